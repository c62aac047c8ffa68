import pg from 'pg'
import { isUnavailable } from './errors.js'

/**
 * The migrations' advisory lock, which a start's migrations and every change
 * of a collection take, so no instance ever sees half of another's work: in
 * one transaction (`underMigrationLock`), or held by one connection across
 * several short transactions and index builds (`holdingMigrationLock`; a
 * session lock and a transaction lock on one key exclude each other).
 */

/** Any 64-bit key, the same in every rqs instance ("rqs-mig" in ASCII). */
const MIGRATION_LOCK_KEY = '32212886842337639'

/** Longer than any step takes: pg's client-side query timeout cannot be switched off, only put far away. */
const NO_QUERY_TIMEOUT = 2 ** 31 - 1

/** A statement that may take long (a lock waited for, an index built): without the pool's client-side query timeout, which pg reads per query (its types do not list it). */
export function untimed (text: string): pg.QueryConfig {
  return { text, query_timeout: NO_QUERY_TIMEOUT } as pg.QueryConfig
}

/** Runs `work` in one transaction under the lock, with no statement timeout (a step may take long on a big table, and waiting for another instance's lock is expected). */
export async function underMigrationLock<R> (pool: pg.Pool, work: (client: pg.ClientBase) => Promise<R>): Promise<R> {
  return await withClient(pool, async (client) => {
    await client.query('BEGIN')
    try {
      await client.query('SET LOCAL statement_timeout = 0')
      await client.query(untimed(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`))
      const result = await work(client)
      await client.query('COMMIT')
      return result
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {})
      throw err
    }
  })
}

/**
 * Runs `work` on one connection that holds the lock for its whole length,
 * outside any transaction (so it may build indexes concurrently and commit
 * in steps), with no statement timeout. The lock goes with the session
 * when the connection dies.
 */
export async function holdingMigrationLock<R> (pool: pg.Pool, work: (client: pg.ClientBase) => Promise<R>): Promise<R> {
  return await withClient(pool, async (client) => {
    await client.query('SET statement_timeout = 0')
    await client.query(untimed(`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`))
    try {
      return await work(client)
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`)
      await client.query('RESET statement_timeout')
    }
  })
}

/** A connection of the pool for `work`; one that failed for want of the database is not given back. */
async function withClient<R> (pool: pg.Pool, work: (client: pg.PoolClient) => Promise<R>): Promise<R> {
  const client = await pool.connect()
  let failed: Error | undefined
  try {
    return await work(client)
  } catch (err) {
    failed = err as Error
    throw err
  } finally {
    client.release(failed !== undefined && isUnavailable(failed) ? failed : undefined)
  }
}

/** SQLSTATE lock_not_available: a lock_timeout ran out. */
const LOCK_NOT_AVAILABLE = '55P03'

/** How long a step that needs a table to itself waits for it, each try. */
export const SHORT_LOCK_MS = 200

/** Thrown when the table never came free for a short step (long readers or writers held it the whole time). */
export class TableBusyError extends Error {
  override name = 'TableBusyError'
}

/**
 * Runs `work` in one transaction whose every lock wait is at most
 * SHORT_LOCK_MS (lock_timeout): a step that needs the table to itself
 * (ACCESS EXCLUSIVE) never queues writers behind a long reader for longer
 * than that. When the wait runs out the transaction is rolled back and
 * tried again after a pause (writers get the table between tries), for at
 * most `giveUpMs`.
 */
export async function withShortLocks<R> (client: pg.ClientBase, work: () => Promise<R>, giveUpMs = 60_000): Promise<R> {
  const deadline = Date.now() + giveUpMs
  for (let attempt = 1; ; attempt++) {
    await client.query('BEGIN')
    try {
      await client.query(`SET LOCAL lock_timeout = '${SHORT_LOCK_MS}ms'`)
      const result = await work()
      await client.query('COMMIT')
      return result
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {})
      if (!(err instanceof pg.DatabaseError) || err.code !== LOCK_NOT_AVAILABLE) throw err
      if (Date.now() >= deadline) throw new TableBusyError(`the table was never free for ${SHORT_LOCK_MS} ms in ${Math.round(giveUpMs / 1000)} s (${attempt} tries): long transactions held it`)
      // Growing pauses with jitter, so the writers that queued meanwhile run first.
      await new Promise((resolve) => setTimeout(resolve, Math.min(2000, 50 * attempt) + Math.random() * 50))
    }
  }
}
