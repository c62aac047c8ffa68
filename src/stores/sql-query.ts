import type { Condition, FieldKinds, FieldValue, RecordFilter, RecordQuery, SortKey } from './query.js'

/**
 * Compiles a RecordQuery into SQL for both SQL stores: WHERE from the
 * conditions and the search, ORDER BY the sort keys then id, and keyset
 * pagination (rows strictly after the position) written so an index on
 * (first sort column, id) can start at the position instead of counting rows
 * from the beginning. Values are always bound parameters, never SQL text.
 */

/** What differs between SQLite and PostgreSQL. */
export interface SqlDialect {
  /** The placeholder of the n-th parameter (1-based): `?` or `$n`. */
  placeholder: (n: number) => string
  /** SQL that is true when the bound text `needle` occurs in `column`, ignoring case. */
  contains: (column: string, needle: string) => string
  /** The value bound as a needle (SQLite folds it in JavaScript, PostgreSQL in SQL). */
  needle: (text: string) => string
}

export interface SqlTable<F extends string> {
  name: string
  /** Column of each field. */
  columns: Readonly<Record<F, string>>
  kinds: FieldKinds<F>
  /** The select list, e.g. `id, first_name AS firstName, …`. */
  select: string
}

export interface CompiledSql {
  text: string
  values: unknown[]
}

const COMPARISON: Record<Exclude<Condition['op'], 'contains'>, string> = { eq: '=', ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' }

class Builder<F extends string> {
  readonly values: unknown[] = []
  constructor (readonly table: SqlTable<F>, readonly dialect: SqlDialect) {}

  bind (value: unknown): string {
    this.values.push(value)
    return this.dialect.placeholder(this.values.length)
  }

  column (field: string): string {
    return this.table.columns[field as F]
  }

  condition (c: Condition): string {
    const column = this.column(c.field)
    if (c.op === 'contains') return this.dialect.contains(column, this.bind(this.dialect.needle(c.value as string)))
    return `${column} ${COMPARISON[c.op]} ${this.bind(c.value)}`
  }

  filter (filter: RecordFilter): string[] {
    const parts = filter.where.map((c) => this.condition(c))
    if (filter.search !== undefined) {
      const text = (Object.keys(this.table.kinds) as F[]).filter((f) => this.table.kinds[f] === 'text')
      parts.push(`(${text.map((f) => this.dialect.contains(this.column(f), this.bind(this.dialect.needle(filter.search as string)))).join(' OR ')})`)
    }
    return parts
  }

  /**
   * Rows after (keys…, id) in the order (sort…, id ASC). All ascending: one
   * row-value comparison, which both databases answer from an index. Mixed
   * directions: the expansion (k1 ≷ v1) OR (k1 = v1 AND k2 ≷ v2) … OR (… AND
   * id > v), plus a plain bound on the first key so the index is still used.
   */
  after (sort: readonly SortKey[], keys: readonly FieldValue[], id: FieldValue): string {
    const columns = [...sort.map((k) => this.column(k.field)), this.column('id')]
    const values = [...keys, id]
    if (sort.every((k) => !k.descending)) {
      if (columns.length === 1) return `${columns[0] as string} > ${this.bind(values[0])}`
      return `(${columns.join(', ')}) > (${values.map((v) => this.bind(v)).join(', ')})`
    }
    const descending = [...sort.map((k) => k.descending), false]
    const lead = `${columns[0] as string} ${descending[0] === true ? '<=' : '>='} ${this.bind(values[0])}`
    const branches: string[] = []
    for (let i = 0; i < columns.length; i++) {
      const equal = columns.slice(0, i).map((c, j) => `${c} = ${this.bind(values[j])}`)
      equal.push(`${columns[i] as string} ${descending[i] === true ? '<' : '>'} ${this.bind(values[i])}`)
      branches.push(equal.join(' AND '))
    }
    return `${lead} AND (${branches.map((b) => `(${b})`).join(' OR ')})`
  }
}

function where (parts: string[]): string {
  return parts.length === 0 ? '' : ` WHERE ${parts.join(' AND ')}`
}

/** SELECT … WHERE … ORDER BY … LIMIT for a query. */
export function compileSelect<F extends string> (table: SqlTable<F>, dialect: SqlDialect, query: RecordQuery<F>): CompiledSql {
  const b = new Builder(table, dialect)
  const parts = b.filter(query)
  if (query.after !== undefined) parts.push(b.after(query.sort, query.after.keys, query.after.id))
  const order = [...query.sort.map((k) => `${b.column(k.field)}${k.descending ? ' DESC' : ''}`), b.column('id')].join(', ')
  const limit = query.limit === undefined ? '' : ` LIMIT ${Math.max(0, Math.floor(query.limit))}`
  return { text: `SELECT ${table.select} FROM ${table.name}${where(parts)} ORDER BY ${order}${limit}`, values: b.values }
}

/** SELECT count(*) for a filter. */
export function compileCount<F extends string> (table: SqlTable<F>, dialect: SqlDialect, filter: RecordFilter<F>): CompiledSql {
  const b = new Builder(table, dialect)
  return { text: `SELECT count(*) AS n FROM ${table.name}${where(b.filter(filter))}`, values: b.values }
}
