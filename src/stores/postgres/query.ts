import type { Pool, PoolClient } from 'pg'
import { STREAM_BATCH_SIZE, type AggregateQuery, type AggregateRow, type RecordFilter, type RecordQuery } from '../../domain/index.js'
import { aggregateRow, compileAggregate, compileCount, compileSelect, type SqlDialect, type SqlTable } from '../sql-query.js'
import { isUnavailable, rethrow } from './errors.js'
import { postgresListHas } from '../json-columns.js'
import { budgetedRead } from './budgeted-read.js'
import { ReadBudget } from '../read-budget.js'

/** `contains` and the search: the folded needle in a folded column (migration 5), whatever the database's locale. */
const dialect: SqlDialect = {
  placeholder: (n) => `$${n}`,
  contains: (column, needle, start) => `strpos(${column}, ${needle}::text) ${start === true ? '= 1' : '> 0'}`,
  listHas: postgresListHas,
  listValue: (value) => JSON.stringify([value])
}

/**
 * Queries over one PostgreSQL table. Streaming uses a server-side cursor
 * (DECLARE … CURSOR in a read-only, repeatable-read transaction on one pooled
 * connection): one snapshot, a FETCH of one batch each time the consumer asks
 * for more, and the cursor closed and the connection returned when it stops.
 * Every FETCH is an ordinary query, so the pool's query timeout still guards it.
 */
export class PostgresQueries<F extends string, Row extends object, R> {
  constructor (private readonly pool: Pool, private readonly table: SqlTable<F>, private readonly toRecord: (row: Row) => R, private readonly budget = ReadBudget.NONE) {}

  async query (query: RecordQuery<F>): Promise<R[]> {
    const { text, values } = compileSelect(this.table, dialect, query)
    try {
      return (await budgetedRead<Row>(this.pool, { text, values }, this.budget)).rows.map(this.toRecord)
    } catch (err) { return rethrow(err) }
  }

  /** The records a filter selects, locked for the rest of `client`'s transaction (a filtered write); failures are the transaction's to report. */
  async locked (client: PoolClient, filter: RecordFilter<F>): Promise<R[]> {
    const { text, values } = compileSelect(this.table, dialect, { ...filter, sort: [] })
    return (await client.query<Row>({ text: `${text} FOR UPDATE`, values })).rows.map(this.toRecord)
  }

  async count (filter: RecordFilter<F>): Promise<number> {
    const { text, values } = compileCount(this.table, dialect, filter)
    try {
      return Number((await budgetedRead<{ n: bigint }>(this.pool, { text, values }, this.budget)).rows[0]?.n ?? 0)
    } catch (err) { return rethrow(err) }
  }

  async aggregate (query: AggregateQuery<F>): Promise<AggregateRow[]> {
    const { text, values } = compileAggregate(this.table, dialect, query)
    try {
      const rows = (await budgetedRead<Record<string, unknown>>(this.pool, { text, values }, this.budget)).rows
      return rows.map((row) => aggregateRow(this.table.kinds, query, row))
    } catch (err) { return rethrow(err) }
  }

  async * batches (query: RecordQuery<F>): AsyncGenerator<R[]> {
    const { text, values } = compileSelect(this.table, dialect, query)
    let client: PoolClient
    try { client = await this.pool.connect() } catch (err) { return rethrow(err) }
    let broken: Error | undefined
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
      await client.query({ text: `DECLARE rqs_stream NO SCROLL CURSOR FOR ${text}`, values })
      for (;;) {
        const rows = (await client.query<Row>(`FETCH ${STREAM_BATCH_SIZE} FROM rqs_stream`)).rows
        if (rows.length === 0) break
        yield rows.map(this.toRecord)
        if (rows.length < STREAM_BATCH_SIZE) break
      }
    } catch (err) {
      if (isUnavailable(err)) broken = err as Error
      rethrow(err)
    } finally {
      // Ends the transaction, which closes the cursor, also when the consumer stopped early.
      if (broken === undefined) await client.query('ROLLBACK').catch((e: unknown) => { broken = e as Error })
      client.release(broken)
    }
  }
}

/** For statements the store builds itself (src/stores/sql-query.ts compileWithValues). */
export { dialect as POSTGRES_DIALECT }
