import { UndeclaredFieldError } from './errors.js'
import { fold, type FoldedField } from './case-fold.js'
import { KINDS, type Kind } from './kinds/index.js'
import type { FieldValue, ListOperator, Operator } from './values.js'
import { isPath, valueAtPath } from './paths.js'
import { expressionTest, fieldsOf, type FilterExpr } from './filter/index.js'
export { LIST_OPERATORS, OPERATORS, type FieldValue, type FilterOperator, type JsonData, type JsonValue, type ListOperator, type Operator } from './values.js'
import { compareKeys, compareValues } from './compare.js'
export { compareKeys, compareText, compareValues } from './compare.js'

/**
 * Queries over a collection, the same for every store: conditions that must
 * all hold, a case-insensitive search over the text fields, a sort (ties
 * broken by id), a keyset position to continue after, and a limit.
 * Stores know nothing of how a client wrote the query (see src/http/query/).
 *
 * Meanings every store keeps alike (the conformance suite checks them):
 * - text compares by Unicode code point (SQLite BINARY, PostgreSQL COLLATE "C",
 *   compareText below), integers by value;
 * - `contains` and the search compare folded text: Unicode full case folding
 *   with canonical normalisation, computed by `fold` (src/domain/case-fold.ts) for
 *   every store (the SQL stores keep a folded copy of each text field);
 * - a keyset position is the sort key values and the id of the last record a
 *   page held: the next page starts strictly after it, so records inserted or
 *   deleted meanwhile never make a page skip or repeat one that stayed.
 */

/** One condition: `field op value`. `contains` applies to text fields only. */
export interface Condition<F extends string = string> {
  field: F
  op: Operator
  value: FieldValue
}

/** A condition on a list field (issue 29, item 7): the list holds `values[0]` (`has`), or any of `values` (`hasAny`). */
export interface ListCondition<F extends string = string> {
  field: F
  op: ListOperator
  values: readonly FieldValue[]
}

export interface SortKey<F extends string = string> {
  field: F
  descending: boolean
}

/** Which records: every condition holds, and the search (if any) is found in a text field. */
export interface RecordFilter<F extends string = string> {
  where: ReadonlyArray<Condition<F>>
  /** Conditions on list fields, which must all hold too. */
  lists?: ReadonlyArray<ListCondition<F>>
  /** Case-insensitive substring searched in every text field; one match suffices. */
  search?: string
  /** A filter expression (./filter/), which must hold too: `filter=`, and the bracket operators a condition cannot say. */
  expression?: FilterExpr
  /** Filters through references (`author.name[contains]=…`): each holds (a semi-join). */
  through?: ReadonlyArray<ReferenceFilter<F>>
}

/** Only records whose reference `field` names a record of `target` that `filter` accepts. */
export interface ReferenceFilter<F extends string = string> {
  field: F
  target: string
  filter: RecordFilter
}

/** Where a page ended: the sort key values of its last record (in sort order; null: the field unset), then its id. */
export interface Position {
  keys: ReadonlyArray<FieldValue | null>
  id: number | bigint | string
}

export interface RecordQuery<F extends string = string> extends RecordFilter<F> {
  /** Sort keys in order; the id breaks ties (see orderKeys). Empty: ascending id. */
  sort: ReadonlyArray<SortKey<F>>
  /** Only records strictly after this position in the sort order. */
  after?: Position
  /** At most this many records; undefined: all of them. */
  limit?: number
}

/** The fields of a collection and their kinds (src/domain/kinds/); `id` is always one of them. */
export type FieldKinds<F extends string> = Readonly<Record<F, Kind>>

/**
 * Throws UndeclaredFieldError unless every field a query names (conditions,
 * sort keys) is one of `kinds`' own: `constructor` or `toString` are
 * properties of every object, never fields of a record.
 */
export function assertDeclaredFields (collection: string, kinds: FieldKinds<string>, query: RecordFilter & { sort?: ReadonlyArray<SortKey> }): void {
  for (const c of query.where) if (!Object.hasOwn(kinds, c.field)) throw new UndeclaredFieldError(collection, c.field)
  for (const c of query.lists ?? []) if (!Object.hasOwn(kinds, c.field)) throw new UndeclaredFieldError(collection, c.field)
  if (query.expression !== undefined) for (const field of fieldsOf(query.expression)) if (!Object.hasOwn(kinds, field)) throw new UndeclaredFieldError(collection, field)
  for (const k of query.sort ?? []) if (!Object.hasOwn(kinds, k.field)) throw new UndeclaredFieldError(collection, k.field)
}

/** How many records a store hands over at once when streaming. */
export const STREAM_BATCH_SIZE = 256

/**
 * The queries every record store answers. `batches` streams every matching
 * record in order, a batch at a time, and pulls the next batch only when the
 * consumer asks (back-pressure); a consumer that stops early (break, return,
 * an aborted request) ends the work and frees what the store held.
 */
/** How an import's records landed: ids not held before, and ids whose record it replaced. */
export interface ImportOutcome {
  created: number
  replaced: number
}

export interface QueryableStore<R, F extends string> {
  query (query: RecordQuery<F>): Promise<R[]>
  count (filter: RecordFilter<F>): Promise<number>
  batches (query: RecordQuery<F>): AsyncIterable<readonly R[]>
  /**
   * Stores every record of `source` (upserting by id), all or nothing: when
   * the source throws, nothing of it stays. Returns how many records it read;
   * `onApplied` hears, inside the applying transaction, how many distinct ids
   * were new and how many replaced a record held (`rqs import`'s summary).
   */
  importAll (source: AsyncIterable<readonly R[]>, onApplied?: (outcome: ImportOutcome) => void): Promise<number>
  /**
   * Present only on a store that sees every write made to its records (the
   * memory store): `current` advances on each write, so an answer built at
   * one revision stays exact while it stands (answers serialised once).
   * Database stores have none: another process may write.
   */
  readonly revision?: StoreRevision
}

/** A counter every write advances (see QueryableStore.revision). */
export interface StoreRevision {
  readonly current: number
}

type Row = Readonly<Record<string, FieldValue>>

/** A field's or dotted path's value in a record (src/domain/paths.ts). */
const at = (r: unknown, field: string): FieldValue => valueAtPath(r, field) as FieldValue

/**
 * The keys that order records completely: the sort keys, then the id in the
 * direction of the last sort key, so that `-age` is exactly the reverse of
 * `age` and a single-key order is one index walked either way. A sort that
 * names the id already ends there.
 */
export function orderKeys (sort: ReadonlyArray<SortKey>): SortKey[] {
  const at = sort.findIndex((k) => k.field === 'id')
  if (at !== -1) return sort.slice(0, at + 1)
  return [...sort, { field: 'id', descending: sort[sort.length - 1]?.descending ?? false }]
}

/** The values of a position in the order of orderKeys(sort). */
export function positionValues (sort: ReadonlyArray<SortKey>, position: Position): Array<FieldValue | null> {
  return [...position.keys, position.id].slice(0, orderKeys(sort).length)
}

/** Orders two records by the sort keys, then by id; an unset value first ascending, last descending (compareKeys). */
export function sortComparator<R> (sort: ReadonlyArray<SortKey>): (a: R, b: R) => number {
  const keys = orderKeys(sort)
  return (a, b) => {
    const x = a as Row
    const y = b as Row
    for (const key of keys) {
      const c = compareKeys(valueAtPath(x, key.field) as FieldValue | undefined, valueAtPath(y, key.field) as FieldValue | undefined)
      if (c !== 0) return key.descending ? -c : c
    }
    return 0
  }
}

/** True when `record` comes strictly after `position` in the sort order. */
export function isAfter (record: unknown, sort: ReadonlyArray<SortKey>, position: Position): boolean {
  const r = record as Row
  const keys = orderKeys(sort)
  const values = positionValues(sort, position)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as SortKey
    const c = compareKeys(valueAtPath(r, key.field) as FieldValue | undefined, values[i])
    if (c !== 0) return key.descending ? c < 0 : c > 0
  }
  return false
}

/** The position of a record in a sort order: what a cursor encodes. */
export function positionOf (record: unknown, sort: ReadonlyArray<SortKey>): Position {
  const r = record as Row
  return { keys: sort.map((k) => (valueAtPath(r, k.field) as FieldValue | undefined) ?? null), id: r.id as number | bigint | string }
}

const foldField: FoldedField = (record, field) => fold((record as Row)[field] as string)

/** A predicate for a filter, evaluated in memory. */
export function matcher<R> (filter: RecordFilter, kinds: FieldKinds<string>, folded: FoldedField = foldField): (record: R) => boolean {
  const tests = filter.where.map((c) => conditionTest(c, folded))
  for (const c of filter.lists ?? []) tests.push(listTest(c))
  if (filter.expression !== undefined) tests.push(expressionTest(filter.expression, folded))
  if (filter.search !== undefined) {
    const needle = fold(filter.search)
    const textFields = Object.keys(kinds).filter((f) => f !== 'id' && KINDS[kinds[f] as Kind].folded)
    tests.push((r) => textFields.some((f) => r[f] !== undefined && folded(r, f).includes(needle)))
  }
  if (tests.length === 0) return () => true
  return (record) => {
    for (const test of tests) if (!test(record as Row)) return false
    return true
  }
}

/** A list condition: the list holds the value (`has`) or one of them (`hasAny`); a record without the list holds none. */
function listTest (c: ListCondition): (r: Row) => boolean {
  return (r) => {
    const list = r[c.field] as unknown
    return Array.isArray(list) && c.values.some((v) => list.includes(v))
  }
}

function conditionTest (c: Condition, folded: FoldedField): (r: Row) => boolean {
  const { value } = c
  const field = c.field
  if (isPath(field)) {
    // A nested scalar (`address.city`): the same test on the value its path reads (no `contains`: the model offers none).
    const test = conditionTest({ ...c, field: 'value' }, folded)
    return (r) => test({ value: at(r, field) })
  }
  switch (c.op) {
    case 'eq': return (r) => r[field] === value
    // An absent (optional) field satisfies no condition, as SQL's NULL does.
    case 'ne': return (r) => r[field] !== value && r[field] !== undefined
    case 'gt': return (r) => r[field] !== undefined && compareValues(r[field] as FieldValue, value) > 0
    case 'gte': return (r) => r[field] !== undefined && compareValues(r[field] as FieldValue, value) >= 0
    case 'lt': return (r) => r[field] !== undefined && compareValues(r[field] as FieldValue, value) < 0
    case 'lte': return (r) => r[field] !== undefined && compareValues(r[field] as FieldValue, value) <= 0
    case 'contains': {
      const needle = fold(value as string)
      return (r) => r[field] !== undefined && folded(r, field).includes(needle)
    }
  }
}
