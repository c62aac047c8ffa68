import type { Pool, PoolClient } from 'pg'
import { isUnavailable, rethrow } from './errors.js'

/**
 * Runs `work` inside BEGIN … COMMIT on one pooled connection; rolls back on
 * any error. A connection that failed is destroyed rather than reused.
 */
export async function inTransaction<T> (pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  let client: PoolClient
  try { client = await pool.connect() } catch (err) { return rethrow(err) }
  let broken: Error | undefined
  try {
    await client.query('BEGIN')
    const result = await work(client)
    await client.query('COMMIT')
    return result
  } catch (err) {
    if (isUnavailable(err)) broken = err as Error
    else await client.query('ROLLBACK').catch((e: unknown) => { broken = e as Error })
    return rethrow(err)
  } finally {
    client.release(broken)
  }
}
