import DataLoader from 'dataloader'
import type { Pool, QueryConfig } from 'pg'
import { rethrow } from './errors.js'
import { readQuery } from './read-retry.js'

/** How a table's rows are read by id: the statement (`$1` is an array of ids), a row's id, a row as a record. */
export interface BatchedGet<K, Row, R> {
  statement: { name: string, text: string }
  idOf: (row: Row) => K
  toRecord: (row: Row) => R
}

/** Most ids in one statement; more waiting reads go out as further statements. */
const MAX_BATCH = 256

/**
 * Reads records by id, batched: every `get` issued while the event loop
 * handles one round of I/O (all the requests that arrived together) is
 * answered by one `… WHERE id = ANY($1)` statement, sent once that round is
 * over (setImmediate). Under load this turns N round trips, N pool check-outs
 * and N result descriptions into one; alone, a read waits for nothing but
 * the end of its own I/O round.
 *
 * What a caller sees is what one statement per get gave: a batch is sent
 * only after each of its reads was issued, so a read issued after a write
 * was acknowledged sees that write; an id without a row is `undefined`; and
 * when the statement fails, every read of the batch fails with the same
 * error (rethrow: StoreUnavailableError when PostgreSQL is the cause). No
 * caching: every read goes to the database.
 */
export class BatchedGets<K, Row extends object, R> {
  readonly #loader: DataLoader<K, R | undefined>

  constructor (pool: Pool, read: BatchedGet<K, Row, R>) {
    this.#loader = new DataLoader<K, R | undefined>(async (ids) => {
      let rows: Row[]
      try {
        rows = (await readQuery<Row>(pool, { ...read.statement, values: [ids] } as QueryConfig)).rows
      } catch (err) { return rethrow(err) }
      const byId = new Map<K, Row>()
      for (const row of rows) byId.set(read.idOf(row), row)
      return ids.map((id) => {
        const row = byId.get(id)
        return row === undefined ? undefined : read.toRecord(row)
      })
    }, { cache: false, maxBatchSize: MAX_BATCH, batchScheduleFn: (send) => { setImmediate(send) } })
  }

  async get (id: K): Promise<R | undefined> {
    return await this.#loader.load(id)
  }
}
