import Database, { type Statement } from 'better-sqlite3'
import { LRUCache } from 'lru-cache'
import { STREAM_BATCH_SIZE, type AggregateQuery, type AggregateRow, type RecordFilter, type RecordQuery } from '../../domain/index.js'
import { aggregateRow, compileAggregate, compileCount, compileRangeSize, compileSelect, type QueryPlan, type SqlDialect, type SqlTable } from '../sql-query.js'
import { rethrow } from './errors.js'
import { sqliteListHas } from '../json-columns.js'
import { ReadBudget } from '../read-budget.js'

/**
 * An equality condition selecting more rows than this makes a sorted page
 * walk the sort's index (filtering as it goes) rather than collect every
 * matching row and sort them, which SQLite's planner prefers even with
 * statistics. The memory store decides the same way.
 */
const EQUALITY_BUDGET = 2048

const dialect: SqlDialect = {
  placeholder: () => '?',
  contains: (column, needle, start) => `instr(${column}, ${needle}) ${start === true ? '= 1' : '> 0'}`,
  listHas: sqliteListHas,
  listValue: (value) => value
}

/**
 * Queries over one SQLite table. Each distinct query shape is prepared once
 * (an LRU of statements). Streaming reads through a second, read-only
 * connection: an open `.iterate()` keeps its connection busy, and the
 * server's connection must stay free for other requests. That connection
 * also gives the whole stream one snapshot.
 */
export class SqliteQueries<F extends string, R> {
  readonly #statements = new LRUCache<string, Statement>({ max: 200 })

  /**
   * `shape` turns a row into a record; without it rows are handed over as read (no per-row work).
   * `budget`: a statement cannot be interrupted once it runs (better-sqlite3 has neither interrupt nor
   * progress handler), so a read that outlasted its budget is refused when it ends, as the other stores
   * refuse it (the same answer on every store).
   */
  constructor (
    private readonly db: Database.Database,
    private readonly table: SqlTable<F>,
    private readonly bigintIds = false,
    private readonly shape?: (row: Record<string, unknown>) => R,
    private readonly budget = ReadBudget.NONE
  ) {}

  #prepare (db: Database.Database, text: string): Statement {
    if (db !== this.db) return db.prepare(text).safeIntegers(this.bigintIds)
    let statement = this.#statements.get(text)
    if (statement === undefined) {
      statement = this.db.prepare(text).safeIntegers(this.bigintIds)
      this.#statements.set(text, statement)
    }
    return statement
  }

  query (query: RecordQuery<F>): R[] {
    const end = this.budget.start()
    try {
      const { text, values } = compileSelect(this.table, dialect, query, this.#plan(query))
      const rows = this.#prepare(this.db, text).all(...bound(values))
      this.budget.check(end)
      const shape = this.shape
      return shape === undefined ? rows as R[] : rows.map((row) => shape(row as Record<string, unknown>))
    } catch (err) { return rethrow(err) }
  }

  /** For a sorted page with equality conditions on other fields: walk the sort's index unless one of them selects few rows. */
  #plan (query: RecordQuery<F>): QueryPlan {
    const lead = query.sort[0]?.field
    if (lead === undefined || query.limit === undefined) return {}
    const equalities = query.where.filter((c) => c.op === 'eq' && c.field !== lead)
    if (equalities.length === 0) return {}
    for (const c of equalities) {
      const { text, values } = compileRangeSize(this.table, dialect, c.field as F, c.value, EQUALITY_BUDGET + 1)
      if (Number(this.#prepare(this.db, text).pluck().get(...bound(values))) <= EQUALITY_BUDGET) return {}
    }
    return { unindexed: new Set(equalities.map((c) => c.field)) }
  }

  count (filter: RecordFilter<F>): number {
    const end = this.budget.start()
    const { text, values } = compileCount(this.table, dialect, filter)
    let n: number
    try { n = Number(this.#prepare(this.db, text).pluck().get(...bound(values))) } catch (err) { return rethrow(err) }
    this.budget.check(end)
    return n
  }

  aggregate (query: AggregateQuery<F>): AggregateRow[] {
    const end = this.budget.start()
    const { text, values } = compileAggregate(this.table, dialect, query)
    try {
      const rows = this.#prepare(this.db, text).all(...bound(values)) as Array<Record<string, unknown>>
      this.budget.check(end)
      return rows.map((row) => aggregateRow(this.table.kinds, query, row))
    } catch (err) { return rethrow(err) }
  }

  async * batches (query: RecordQuery<F>): AsyncGenerator<R[]> {
    const { text, values } = compileSelect(this.table, dialect, query)
    let reader: Database.Database
    let rows: IterableIterator<unknown>
    try {
      reader = new Database(this.db.name, { readonly: true, fileMustExist: true })
      reader.pragma('busy_timeout = 2000')
      rows = this.#prepare(reader, text).iterate(...bound(values))
    } catch (err) { return rethrow(err) }
    try {
      for (;;) {
        const batch: R[] = []
        try {
          for (let next = rows.next(); next.done !== true; next = rows.next()) {
            batch.push(this.shape === undefined ? next.value as R : this.shape(next.value as Record<string, unknown>))
            if (batch.length === STREAM_BATCH_SIZE) break
          }
        } catch (err) { rethrow(err) }
        if (batch.length === 0) return
        yield batch
        if (batch.length < STREAM_BATCH_SIZE) return
      }
    } finally {
      rows.return?.()
      reader.close()
    }
  }
}

/** Query values as SQLite binds them: it has no booleans, a boolean column holds 1 or 0. */
function bound (values: unknown[]): unknown[] {
  return values.some((v) => typeof v === 'boolean') ? values.map((v) => typeof v === 'boolean' ? (v ? 1 : 0) : v) : values
}

/** For statements the store builds itself (src/stores/sql-query.ts compileWithValues). */
export { dialect as SQLITE_DIALECT }
