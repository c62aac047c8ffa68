import { orderKeys, positionValues, UndeclaredFieldError, type AggregateQuery, type AggregateRow, type Condition, type FieldKinds, type FieldValue, type FilterExpr, type ListCondition, type Position, type RecordFilter, type RecordQuery, type SortKey } from '../domain/index.js'
import { fold } from '../domain/index.js'

/**
 * Compiles a RecordQuery into SQL for both SQL stores: WHERE from the
 * conditions and the search, ORDER BY the sort keys then id, and keyset
 * pagination (rows strictly after the position) written so an index on
 * (first sort column, id) can start at the position instead of counting rows
 * from the beginning. Values are always bound parameters, never SQL text.
 * `contains` and the search look for the folded needle in the folded copy of
 * each text field the store keeps (see src/domain/case-fold.ts): a substring test,
 * which no b-tree index can answer, so they filter the rows an index walk or
 * a scan gives.
 */

/** What differs between SQLite and PostgreSQL. */
export interface SqlDialect {
  /** The placeholder of the n-th parameter (1-based): `?` or `$n`. */
  placeholder: (n: number) => string
  /** SQL that is true when the bound text `needle` occurs in `column` (both folded); with `start`, only at its start. */
  contains: (column: string, needle: string, start?: boolean) => string
  /** SQL true when the list in `column` holds one of the values bound as `placeholders` (each bound as `listValue` gives it). */
  listHas?: (column: string, placeholders: readonly string[]) => string
  /** How a list condition's value is bound: SQLite the value, PostgreSQL a one-item JSON array. */
  listValue?: (value: FieldValue) => unknown
}

export interface SqlTable<F extends string> {
  name: string
  /** Column of each field. */
  columns: Readonly<Record<F, string>>
  /** Column of each text field's folded copy, which the store writes with the record. */
  folded: Readonly<Partial<Record<F, string>>>
  kinds: FieldKinds<F>
  /** Fields a record may leave unset (NULL): sorted NULLs first ascending, last descending, as the memory store sorts them. */
  optional?: ReadonlySet<string>
  /** The select list, e.g. `id, first_name AS firstName, …`. */
  select: string
  /** The tables reference fields name records of, by field (filters through references). */
  targets?: Readonly<Record<string, SqlTable<string>>>
}

export interface CompiledSql {
  text: string
  values: unknown[]
}

/** How a query should run: fields whose equality conditions must not pick the index (see SqliteQueries). */
export interface QueryPlan {
  unindexed?: ReadonlySet<string>
}

const COMPARISON: Record<Exclude<Condition['op'], 'contains'>, string> = { eq: '=', ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' }

class Builder<F extends string> {
  constructor (readonly table: SqlTable<F>, readonly dialect: SqlDialect, readonly plan: QueryPlan = {}, readonly values: unknown[] = []) {}

  bind (value: unknown): string {
    this.values.push(value)
    return this.dialect.placeholder(this.values.length)
  }

  /** The column of a declared field; any other name is refused here, the one place SQL gets column names from. */
  column (field: string): string {
    if (!Object.hasOwn(this.table.columns, field)) throw new UndeclaredFieldError(this.table.name, field)
    return this.table.columns[field as F]
  }

  /** SQL true when the folded `text` occurs in (or, `start`, starts) the field's folded copy. */
  contains (field: string, text: string, start = false): string {
    this.column(field)
    const column = this.table.folded[field as F]
    if (column === undefined) throw new RangeError(`${field} has no folded copy`)
    return this.dialect.contains(column, this.bind(fold(text)), start)
  }

  /**
   * A filter expression (src/domain/filter/). Its comparisons are SQL's, an
   * unset column making them NULL; `not` is `IS NOT TRUE`, so NULL counts as
   * false throughout and every store gives the same two-valued answer.
   */
  expression (e: FilterExpr): string {
    switch (e.op) {
      case 'and':
      case 'or':
        if (e.items.length === 0) return e.op === 'and' ? '1 = 1' : '1 = 0'
        return `(${e.items.map((item) => this.expression(item)).join(e.op === 'and' ? ' AND ' : ' OR ')})`
      case 'not': return `(${this.expression(e.item)}) IS NOT TRUE`
      case 'unset': return `${this.column(e.field)} IS NULL`
      case 'contains': return this.contains(e.field, e.value)
      case 'startsWith': return this.contains(e.field, e.value, true)
      case 'has': return this.listCondition({ field: e.field, op: 'hasAny', values: e.values })
      // An empty list holds nothing (PostgreSQL has no `IN ()`).
      case 'in': return e.values.length === 0 ? `${this.column(e.field)} <> ${this.column(e.field)}` : `${this.column(e.field)} IN (${e.values.map((v) => this.bind(v)).join(', ')})`
      default: return `${this.column(e.field)} ${COMPARISON[e.op]} ${this.bind(e.value)}`
    }
  }

  condition (c: Condition): string {
    const column = this.column(c.field)
    if (c.op === 'contains') return this.contains(c.field, c.value as string)
    // SQLite: a unary + keeps the planner from searching this column's index.
    const operand = c.op === 'eq' && this.plan.unindexed?.has(c.field) === true ? `+${column}` : column
    return `${operand} ${COMPARISON[c.op]} ${this.bind(c.value)}`
  }

  /** A list condition (issue 29, item 7): `has` binds one value, `hasAny` several. */
  listCondition (c: ListCondition): string {
    const column = this.column(c.field)
    const { listHas, listValue } = this.dialect
    if (listHas === undefined || listValue === undefined) throw new RangeError('this dialect has no list conditions')
    return listHas(column, c.values.map((v) => this.bind(listValue(v))))
  }

  filter (filter: RecordFilter): string[] {
    const parts = filter.where.map((c) => this.condition(c))
    for (const c of filter.lists ?? []) parts.push(this.listCondition(c))
    if (filter.expression !== undefined) parts.push(this.expression(filter.expression))
    if (filter.search !== undefined) {
      // The searched fields are those with a folded copy: every string field, never the id (text for UUIDs).
      const text = Object.keys(this.table.folded)
      // No text field: the search finds nothing, as in the memory store.
      parts.push(text.length === 0 ? '1 = 0' : `(${text.map((f) => this.contains(f, filter.search as string)).join(' OR ')})`)
    }
    for (const through of filter.through ?? []) {
      // A semi-join: the target's conditions in a subquery, its parameters bound in the same list.
      const target = this.table.targets?.[through.field]
      if (target === undefined) throw new UndeclaredFieldError(this.table.name, through.field)
      const inner = new Builder(target, this.dialect, {}, this.values).filter(through.filter)
      parts.push(`${this.column(through.field)} IN (SELECT id FROM ${target.name}${where(inner)})`)
    }
    return parts
  }

  /**
   * Rows after a position in the complete order (orderKeys). One direction:
   * one row-value comparison, which both databases answer from an index.
   * Mixed directions: the expansion (k1 ≷ v1) OR (k1 = v1 AND k2 ≷ v2) … ,
   * plus a plain bound on the first key so the index is still used.
   */
  after (sort: readonly SortKey[], position: Position): string {
    const keys = orderKeys(sort)
    const columns = keys.map((k) => this.column(k.field))
    const values = positionValues(sort, position)
    const descending = keys.map((k) => k.descending)
    if (keys.some((k) => this.table.optional?.has(k.field) === true)) return this.afterNullable(keys, columns, values)
    if (descending.every((d) => d === descending[0])) {
      const op = descending[0] === true ? '<' : '>'
      if (columns.length === 1) return `${columns[0] as string} ${op} ${this.bind(values[0])}`
      return `(${columns.join(', ')}) ${op} (${values.map((v) => this.bind(v)).join(', ')})`
    }
    const lead = `${columns[0] as string} ${descending[0] === true ? '<=' : '>='} ${this.bind(values[0])}`
    const branches: string[] = []
    for (let i = 0; i < columns.length; i++) {
      const equal = columns.slice(0, i).map((c, j) => `${c} = ${this.bind(values[j])}`)
      equal.push(`${columns[i] as string} ${descending[i] === true ? '<' : '>'} ${this.bind(values[i])}`)
      branches.push(equal.join(' AND '))
    }
    return `${lead} AND (${branches.map((b) => `(${b})`).join(' OR ')})`
  }

  /**
   * Rows after a position when a sort key may be NULL (an unset optional
   * field): the expansion of afterwards, with NULL the least value (first
   * ascending, last descending) and a NULL position value compared by IS NULL.
   */
  afterNullable (keys: readonly SortKey[], columns: readonly string[], values: ReadonlyArray<unknown>): string {
    const equal = (c: string, v: unknown): string => v === null ? `${c} IS NULL` : `${c} = ${this.bind(v)}`
    const beyond = (c: string, v: unknown, descending: boolean): string => {
      if (descending) return v === null ? '1 = 0' : `(${c} < ${this.bind(v)} OR ${c} IS NULL)`
      return v === null ? `${c} IS NOT NULL` : `${c} > ${this.bind(v)}`
    }
    const branches: string[] = []
    for (let i = 0; i < columns.length; i++) {
      const parts = columns.slice(0, i).map((c, j) => equal(c, values[j]))
      parts.push(beyond(columns[i] as string, values[i], (keys[i] as SortKey).descending))
      branches.push(parts.join(' AND '))
    }
    return `(${branches.map((b) => `(${b})`).join(' OR ')})`
  }

  /** A sort key of ORDER BY: an optional column's NULLs where the memory store puts them, on both databases. */
  orderBy (key: SortKey): string {
    const column = this.column(key.field)
    const nulls = this.table.optional?.has(key.field) === true ? (key.descending ? ' NULLS LAST' : ' NULLS FIRST') : ''
    return `${column}${key.descending ? ' DESC' : ''}${nulls}`
  }
}

function where (parts: string[]): string {
  return parts.length === 0 ? '' : ` WHERE ${parts.join(' AND ')}`
}

/** SELECT … WHERE … ORDER BY … LIMIT for a query. */
export function compileSelect<F extends string> (table: SqlTable<F>, dialect: SqlDialect, query: RecordQuery<F>, plan: QueryPlan = {}): CompiledSql {
  const b = new Builder(table, dialect, plan)
  const parts = b.filter(query)
  if (query.after !== undefined) parts.push(b.after(query.sort, query.after))
  const order = orderKeys(query.sort).map((k) => b.orderBy(k)).join(', ')
  const limit = query.limit === undefined ? '' : ` LIMIT ${Math.max(0, Math.floor(query.limit))}`
  return { text: `SELECT ${table.select} FROM ${table.name}${where(parts)} ORDER BY ${order}${limit}`, values: b.values }
}

/** How many rows, up to `cap`, hold `value` in the field: counted in the field's index alone. */
export function compileRangeSize<F extends string> (table: SqlTable<F>, dialect: SqlDialect, field: F, value: unknown, cap: number): CompiledSql {
  const b = new Builder(table, dialect)
  return { text: `SELECT count(*) AS n FROM (SELECT 1 FROM ${table.name} WHERE ${b.column(field)} = ${b.bind(value)} LIMIT ${cap})`, values: b.values }
}

/** SELECT count(*) for a filter. */
export function compileCount<F extends string> (table: SqlTable<F>, dialect: SqlDialect, filter: RecordFilter<F>): CompiledSql {
  const b = new Builder(table, dialect)
  return { text: `SELECT count(*) AS n FROM ${table.name}${where(b.filter(filter))}`, values: b.values }
}

/**
 * The rows whose `field` holds one of `values` (and that `filter` accepts),
 * at most `perValue` per value in `sort`'s order (by id without one), ordered
 * by the value, then that order: one
 * statement with a window (the back-relations of references). The select
 * list reads the subquery's columns, which are the table's.
 */
export function compileWithValues<F extends string> (table: SqlTable<F>, dialect: SqlDialect, field: F, values: readonly unknown[], perValue: number, filter: RecordFilter<F> = { where: [] }, valueType = '', sort: ReadonlyArray<SortKey<F>> = []): CompiledSql {
  const b = new Builder(table, dialect)
  const column = b.column(field)
  const list = valueType === '' ? `IN (${values.map((v) => b.bind(v)).join(', ')})` : `= ANY(${b.bind([...values])}::${valueType}[])`
  const parts = [`${column} ${list}`, ...b.filter(filter)]
  // Each value's records numbered in the sort's order (id breaking ties), as a list sorted so would give them.
  const order = orderKeys(sort).map((k) => b.orderBy(k)).join(', ')
  const text = `SELECT ${table.select} FROM (SELECT *, row_number() OVER (PARTITION BY ${column} ORDER BY ${order}) AS rqs__n FROM ${table.name}${where(parts)}) rqs__w
    WHERE rqs__n <= ${b.bind(perValue)} ORDER BY ${column}, rqs__n`
  return { text, values: b.values }
}

/**
 * One GROUP BY for an aggregate, with the WHERE a list of the same filter
 * has: per group its key columns (k0…), count(*) (n), per summed field its
 * sum and count of values (s0…, c0…), and the least and greatest values
 * asked for (lo0…, hi0…). No ORDER BY: the caller orders the groups (as the
 * memory store does), and LIMIT only caps how many it reads.
 */
export function compileAggregate<F extends string> (table: SqlTable<F>, dialect: SqlDialect, query: AggregateQuery<F>): CompiledSql {
  const b = new Builder(table, dialect)
  const keys = query.groupBy.map((f) => b.column(f))
  const select = [
    ...keys.map((c, i) => `${c} AS k${i}`),
    'count(*) AS n',
    ...query.sums.flatMap((f, i) => [`sum(${b.column(f)}) AS s${i}`, `count(${b.column(f)}) AS c${i}`]),
    ...query.min.map((f, i) => `min(${b.column(f)}) AS lo${i}`),
    ...query.max.map((f, i) => `max(${b.column(f)}) AS hi${i}`)
  ]
  const group = keys.length === 0 ? '' : ` GROUP BY ${keys.join(', ')}`
  return { text: `SELECT ${select.join(', ')} FROM ${table.name}${where(b.filter(query.filter))}${group} LIMIT ${Math.max(0, Math.floor(query.limit))}`, values: b.values }
}

/** A row of compileAggregate as the record values the memory store holds: booleans from SQLite's 0/1, numbers from bigint or numeric text. */
export function aggregateRow<F extends string> (kinds: FieldKinds<F>, query: AggregateQuery<F>, row: Record<string, unknown>): AggregateRow {
  const value = (field: F, v: unknown): FieldValue | null => {
    if (v === null || v === undefined) return null
    switch (kinds[field]) {
      case 'boolean': return typeof v === 'boolean' ? v : Number(v) !== 0
      case 'integer':
      case 'number': return Number(v)
      default: return typeof v === 'bigint' ? Number(v) : v as FieldValue
    }
  }
  const number = (v: unknown): number | null => v === null || v === undefined ? null : Number(v)
  return {
    key: query.groupBy.map((f, i) => value(f, row[`k${i}`])),
    count: Number(row.n),
    sums: query.sums.map((_, i) => number(row[`s${i}`])),
    counts: query.sums.map((_, i) => Number(row[`c${i}`])),
    min: query.min.map((f, i) => value(f, row[`lo${i}`])),
    max: query.max.map((f, i) => value(f, row[`hi${i}`]))
  }
}
