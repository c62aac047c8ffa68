import type { Pool, QueryConfig } from 'pg'
import { rethrow } from './errors.js'
import { readQuery } from './read-retry.js'

/** How a table's rows are read by id: the statement (`$1` is an array of ids), a row's id, a row as a record. */
export interface BatchedGet<K, Row, R> {
  statement: { name: string, text: string }
  idOf: (row: Row) => K
  toRecord: (row: Row) => R
}

/** Most ids in one statement; more waiting ids go out as further statements. */
const MAX_BATCH = 256

/** A read waiting for the round's statements: the rows by id answer it (or the statements' error). */
interface Waiting<K, Row> {
  ids: readonly K[]
  done: (rows: ReadonlyMap<K, Row>) => void
  failed: (err: unknown) => void
}

/**
 * Reads records by id, batched: every `get` and `getMany` issued while the
 * event loop handles one round of I/O (all the requests that arrived
 * together) is answered by one `… WHERE id = ANY($1)` statement over the
 * distinct ids they asked for, sent once that round is over (setImmediate).
 * Under load this turns N round trips, N pool check-outs and N result
 * descriptions into one; alone, a read waits for nothing but the end of its
 * own I/O round. A `getMany` (an expanded page's references) waits as one
 * read, not one per id: one promise, its records mapped from the round's rows.
 *
 * What a caller sees is what one statement per read gave: a batch is sent
 * only after each of its reads was issued, so a read issued after a write
 * was acknowledged sees that write; an id without a row is `undefined`;
 * each caller gets records of its own (never an object another caller
 * holds); and when a statement of the round fails, every read of the round
 * fails with the same error (rethrow: StoreUnavailableError when PostgreSQL
 * is the cause). No caching: every read goes to the database.
 */
export class BatchedGets<K, Row extends object, R> {
  readonly #pool: Pool
  readonly #read: BatchedGet<K, Row, R>
  #waiting: Array<Waiting<K, Row>> = []

  constructor (pool: Pool, read: BatchedGet<K, Row, R>) {
    this.#pool = pool
    this.#read = read
  }

  async get (id: K): Promise<R | undefined> {
    return await new Promise<R | undefined>((resolve, reject) => {
      this.#wait({
        ids: [id],
        done: (rows) => { const row = rows.get(id); resolve(row === undefined ? undefined : this.#read.toRecord(row)) },
        failed: reject
      })
    })
  }

  /** The records of `ids` that exist, in the order of `ids` (an id asked twice answered twice). */
  async getMany (ids: readonly K[]): Promise<R[]> {
    if (ids.length === 0) return []
    return await new Promise<R[]>((resolve, reject) => {
      this.#wait({
        ids,
        done: (rows) => {
          const found: R[] = []
          for (const id of ids) {
            const row = rows.get(id)
            if (row !== undefined) found.push(this.#read.toRecord(row))
          }
          resolve(found)
        },
        failed: reject
      })
    })
  }

  #wait (waiting: Waiting<K, Row>): void {
    if (this.#waiting.push(waiting) === 1) setImmediate(() => { void this.#send() })
  }

  /** The round's statements: its distinct ids, at most MAX_BATCH a statement, sent together. */
  async #send (): Promise<void> {
    const round = this.#waiting
    this.#waiting = []
    const distinct = new Set<K>()
    for (const w of round) for (const id of w.ids) distinct.add(id)
    const ids = [...distinct]
    const chunks: K[][] = []
    for (let i = 0; i < ids.length; i += MAX_BATCH) chunks.push(ids.slice(i, i + MAX_BATCH))
    const rows = new Map<K, Row>()
    try {
      const results = await Promise.all(chunks.map(async (chunk) => await readQuery<Row>(this.#pool, { ...this.#read.statement, values: [chunk] } as QueryConfig)))
      for (const result of results) for (const row of result.rows) rows.set(this.#read.idOf(row), row)
    } catch (err) {
      let error: unknown
      try { rethrow(err) } catch (e) { error = e }
      for (const w of round) w.failed(error)
      return
    }
    for (const w of round) {
      try { w.done(rows) } catch (err) { w.failed(err) }
    }
  }
}
