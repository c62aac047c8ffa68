import { DatabaseError, type Pool, type QueryConfig, type QueryResult, type QueryResultRow } from 'pg'
import { StoreTimeoutError } from '../../domain/index.js'
import { deadlineLeft } from '../../lib/deadline.js'
import { checkReadBudget } from '../read-budget.js'
import { readQuery } from './read-retry.js'

/**
 * A read on the pool bounded by what is left of the request's read budget
 * (`--read-budget`, src/lib/deadline.ts). None starts once it is spent. While
 * more is left than the pool's own statement timeout, the read goes as any
 * other (that timeout bounds it, and costs nothing more); with less left, it
 * runs in a read-only transaction whose statement_timeout is what is left, so
 * the database itself stops it at the request's deadline.
 */
export async function budgetedRead<Row extends QueryResultRow> (pool: Pool, query: QueryConfig): Promise<QueryResult<Row>> {
  checkReadBudget()
  const budget = deadlineLeft()
  const poolTimeout = (pool.options as { statement_timeout?: number }).statement_timeout ?? 0
  if (budget === undefined || (poolTimeout > 0 && budget.left >= poolTimeout)) return await readQuery<Row>(pool, query)
  const client = await pool.connect()
  let broken: Error | undefined
  try {
    await client.query('BEGIN READ ONLY')
    // 0 would turn the timeout off: a deadline about to pass still gets a millisecond.
    await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.ceil(budget.left))}`)
    const result = await client.query<Row>(query)
    await client.query('COMMIT')
    return result
  } catch (err) {
    await client.query('ROLLBACK').catch((e: unknown) => { broken = e as Error })
    if (err instanceof DatabaseError && err.code === '57014') {
      throw new StoreTimeoutError(budget.ms, `The request's reads took longer than its budget of ${budget.ms} ms (--read-budget)`, { cause: err })
    }
    throw err
  } finally {
    client.release(broken)
  }
}
