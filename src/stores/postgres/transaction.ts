import type { Pool, PoolClient, QueryConfig, QueryResult, QueryResultRow } from 'pg'
import { StoreOutcomeUnknownError, type KeyedWrite } from '../../domain/index.js'
import { isLostAnswer, isUnavailable, rethrow } from './errors.js'
import type { PostgresKeptWrites } from './kept-writes.js'
import { backendPid, endSession } from './settle.js'

/** How long the settling connection waits for a terminated session to exit (ms). */
const SETTLE_WAIT_MS = 2000

/** What a record store writes through: the pool (PostgresWrites), or one connection inside a unit of work (ClientWrites). */
export interface Writes {
  statement: <R extends QueryResultRow>(query: QueryConfig) => Promise<QueryResult<R>>
  transaction: <R>(work: (client: PoolClient) => Promise<R>, keyed?: KeyedWrite<R>) => Promise<R>
}

/**
 * The writes of a unit of work (RecordStores.atomically): every statement on
 * the unit's connection, inside its open transaction, which the unit commits
 * or rolls back. A record store's own transaction is then just its work.
 */
export class ClientWrites implements Writes {
  constructor (private readonly client: PoolClient) {}

  async statement<R extends QueryResultRow> (query: QueryConfig): Promise<QueryResult<R>> {
    try { return await this.client.query<R>(query) } catch (err) { return rethrow(err) }
  }

  async transaction<R> (work: (client: PoolClient) => Promise<R>): Promise<R> {
    try { return await work(this.client) } catch (err) { return rethrow(err) }
  }
}

/**
 * How rqs writes to PostgreSQL, so that an answer never claims more than is
 * known. A failure before the write was sent, or an error the server
 * answered, means nothing changed (StoreUnavailableError or the error
 * itself). A write that was sent and whose answer was lost (timeout,
 * connection dropped) may have been committed: StoreOutcomeUnknownError,
 * after trying to end its server session so it cannot commit later.
 */
export class PostgresWrites implements Writes {
  readonly #pool: Pool
  readonly #kept: PostgresKeptWrites

  constructor (pool: Pool, kept: PostgresKeptWrites) {
    this.#pool = pool
    this.#kept = kept
  }

  /** One statement that commits on its own (autocommit). */
  async statement<R extends QueryResultRow> (query: QueryConfig): Promise<QueryResult<R>> {
    const client = await this.#connect()
    try {
      const result = await client.query<R>(query)
      client.release()
      return result
    } catch (err) {
      return await this.#fail(client, err, true)
    }
  }

  /**
   * Runs `work` inside BEGIN … COMMIT on one connection. With `keyed`, the
   * Idempotency-Key is claimed first (a concurrent request with the same key
   * waits on it) and the answer kept before COMMIT, so both land together.
   * Only a lost answer to COMMIT leaves the outcome unknown; a failure before
   * it rolls back.
   */
  async transaction<R> (work: (client: PoolClient) => Promise<R>, keyed?: KeyedWrite<R>): Promise<R> {
    const client = await this.#connect()
    let committing = false
    try {
      await client.query('BEGIN')
      if (keyed !== undefined) await this.#kept.claim(client, keyed)
      const result = await work(client)
      if (keyed !== undefined) await this.#kept.keep(client, keyed, keyed.answer(result))
      committing = true
      await client.query('COMMIT')
      client.release()
      return result
    } catch (err) {
      if (!isUnavailable(err) && !isLostAnswer(err)) {
        let broken: Error | undefined
        await client.query('ROLLBACK').catch((e: unknown) => { broken = e as Error })
        client.release(broken)
        return rethrow(err)
      }
      return await this.#fail(client, err, committing)
    }
  }

  async #connect (): Promise<PoolClient> {
    try { return await this.#pool.connect() } catch (err) { return rethrow(err) }
  }

  /**
   * Drops the connection after a failure. When the answer to a sent write was
   * lost, ends its server session (also releasing any locks an open
   * transaction holds) and reports the outcome as unknown if a commit may
   * have happened (`mayHaveCommitted`).
   */
  async #fail (client: PoolClient, err: unknown, mayHaveCommitted: boolean): Promise<never> {
    const lost = isLostAnswer(err)
    client.release(lost || isUnavailable(err) ? err as Error : undefined)
    if (!lost) return rethrow(err)
    const ended = await endSession(this.#pool, backendPid(client), SETTLE_WAIT_MS)
    if (!mayHaveCommitted) return rethrow(err)
    const settled = ended
      ? 'its server session has been ended, so it cannot complete later'
      : 'its server session could not be reached to end it, so it may still complete'
    throw new StoreOutcomeUnknownError(`PostgreSQL did not confirm the write (${(err as Error).message}); ${settled}`, { cause: err })
  }
}
