import { compareKeys } from './compare.js'
import type { RecordFilter } from './query.js'
import type { FieldValue } from './values.js'

/**
 * Aggregates over the records a filter selects (issue 31, item 6): groups by
 * up to MAX_GROUP_FIELDS fields, each group's count, and per field its sum,
 * average, least and greatest value. A store answers raw rows (SQL stores
 * one GROUP BY; the memory store, or any store without `aggregate`, through
 * aggregateRecords); finishGroups turns them into the answer alike on every
 * store: groups in key order (an unset key first, as an ascending sort puts
 * it), averages computed here as sum / count of values, and sums and
 * averages of `number` fields rounded to 12 significant digits (a database
 * adds floating point numbers in an order of its own). Integer sums are exact.
 */
export interface AggregateQuery<F extends string = string> {
  filter: RecordFilter<F>
  groupBy: readonly F[]
  /** Fields whose sum and count of values are read (for `sum` and `avg`). */
  sums: readonly F[]
  min: readonly F[]
  max: readonly F[]
  /** Read at most this many groups (a caller asks one more than it allows, to tell that there are too many). */
  limit: number
}

/** One group as a store reads it: values in the order of the query's lists, null for unset. */
export interface AggregateRow {
  key: Array<FieldValue | null>
  count: number
  /** Per `sums` field: the sum (null when no record holds a value) and how many records hold one. */
  sums: Array<number | null>
  counts: number[]
  min: Array<FieldValue | null>
  max: Array<FieldValue | null>
}

/** What the client asked for: the query's lists say which fields, these which answers. */
export interface AggregateAsk<F extends string = string> {
  count: boolean
  sum: readonly F[]
  avg: readonly F[]
  /** Fields of kind `number` (not integer): their sums and averages are rounded. */
  decimals: ReadonlySet<string>
}

export interface AggregateGroup {
  key: Record<string, FieldValue | null>
  count?: number
  sum?: Record<string, number | null>
  avg?: Record<string, number | null>
  min?: Record<string, FieldValue | null>
  max?: Record<string, FieldValue | null>
}

/** At most this many fields in `groupBy`, and this many groups in an answer. */
export const MAX_GROUP_FIELDS = 3
export const MAX_GROUPS = 1000

/** Computes the rows of an aggregate over records read in batches (the memory store, and any store without a GROUP BY). */
export async function aggregateRecords<F extends string> (batches: AsyncIterable<readonly object[]>, query: AggregateQuery<F>): Promise<AggregateRow[]> {
  const groups = new Map<string, AggregateRow>()
  const at = (record: object, field: string): FieldValue | null => (record as Record<string, FieldValue | undefined>)[field] ?? null
  for await (const batch of batches) {
    for (const record of batch) {
      const key = query.groupBy.map((f) => at(record, f))
      const name = JSON.stringify(key.map((v) => typeof v === 'bigint' ? `${v}n` : v))
      let row = groups.get(name)
      if (row === undefined) {
        if (groups.size >= query.limit) return [...groups.values()]
        row = { key, count: 0, sums: query.sums.map(() => null), counts: query.sums.map(() => 0), min: query.min.map(() => null), max: query.max.map(() => null) }
        groups.set(name, row)
      }
      row.count++
      query.sums.forEach((f, i) => {
        const value = at(record, f)
        if (typeof value !== 'number') return
        row.sums[i] = (row.sums[i] ?? 0) + value
        row.counts[i] = (row.counts[i] ?? 0) + 1
      })
      query.min.forEach((f, i) => {
        const value = at(record, f)
        if (value !== null && (row.min[i] === null || compareKeys(value, row.min[i]) < 0)) row.min[i] = value
      })
      query.max.forEach((f, i) => {
        const value = at(record, f)
        if (value !== null && (row.max[i] === null || compareKeys(value, row.max[i]) > 0)) row.max[i] = value
      })
    }
  }
  // Without groupBy there is always one group, as SQL's aggregate without GROUP BY gives (count 0 when nothing matches).
  if (query.groupBy.length === 0 && groups.size === 0) return [{ key: [], count: 0, sums: query.sums.map(() => null), counts: query.sums.map(() => 0), min: query.min.map(() => null), max: query.max.map(() => null) }]
  return [...groups.values()]
}

/** The answer's groups from a store's rows, in key order, alike on every store. */
export function finishGroups<F extends string> (query: AggregateQuery<F>, ask: AggregateAsk<F>, rows: readonly AggregateRow[]): AggregateGroup[] {
  const sorted = [...rows].sort((a, b) => {
    for (let i = 0; i < a.key.length; i++) {
      const order = compareKeys(a.key[i], b.key[i])
      if (order !== 0) return order
    }
    return 0
  })
  const round = (field: string, value: number | null): number | null => value === null || !ask.decimals.has(field) ? value : Number(value.toPrecision(12))
  return sorted.map((row) => {
    const group: AggregateGroup = { key: Object.fromEntries(query.groupBy.map((f, i) => [f, row.key[i] ?? null])) }
    if (ask.count) group.count = row.count
    const summed = (field: F): number => query.sums.indexOf(field)
    if (ask.sum.length > 0) group.sum = Object.fromEntries(ask.sum.map((f) => [f, round(f, row.sums[summed(f)] ?? null)]))
    if (ask.avg.length > 0) {
      group.avg = Object.fromEntries(ask.avg.map((f) => {
        const sum = row.sums[summed(f)] ?? null
        const n = row.counts[summed(f)] ?? 0
        return [f, sum === null || n === 0 ? null : Number((sum / n).toPrecision(12))]
      }))
    }
    if (query.min.length > 0) group.min = Object.fromEntries(query.min.map((f, i) => [f, row.min[i] ?? null]))
    if (query.max.length > 0) group.max = Object.fromEntries(query.max.map((f, i) => [f, row.max[i] ?? null]))
    return group
  })
}
