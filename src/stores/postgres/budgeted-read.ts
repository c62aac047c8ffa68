import { DatabaseError, type Pool, type QueryConfig, type QueryResult, type QueryResultRow } from 'pg'
import type { ReadBudget } from '../read-budget.js'
import { readQuery } from './read-retry.js'

/**
 * A read on the pool bounded by the read budget (`--read-budget`,
 * ../read-budget.ts). With a budget no shorter than the pool's own statement
 * timeout (the default), the read goes as any other: that timeout bounds it,
 * and costs nothing more. With a shorter one, it runs in a read-only
 * transaction whose statement_timeout is the budget, so the database itself
 * stops it there.
 */
export async function budgetedRead<Row extends QueryResultRow> (pool: Pool, query: QueryConfig, budget: ReadBudget): Promise<QueryResult<Row>> {
  const poolTimeout = (pool.options as { statement_timeout?: number }).statement_timeout ?? 0
  if (budget.ms === 0 || (poolTimeout > 0 && budget.ms >= poolTimeout)) return await readQuery<Row>(pool, query)
  const client = await pool.connect()
  let broken: Error | undefined
  try {
    await client.query('BEGIN READ ONLY')
    await client.query(`SET LOCAL statement_timeout = ${budget.ms}`)
    const result = await client.query<Row>(query)
    await client.query('COMMIT')
    return result
  } catch (err) {
    await client.query('ROLLBACK').catch((e: unknown) => { broken = e as Error })
    if (err instanceof DatabaseError && err.code === '57014') throw budget.spent(err)
    throw err
  } finally {
    client.release(broken)
  }
}
