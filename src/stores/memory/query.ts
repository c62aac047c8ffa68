import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import {
  assertDeclaredFields, compareValues, isAfter, matcher, orderKeys, positionOf, sortComparator, STREAM_BATCH_SIZE, valueAtPath,
  type Condition, type FieldKinds, type FieldValue, type RecordFilter, type RecordId, type RecordQuery, type SortKey
} from '../../domain/index.js'
import type { IndexedTable } from './indexed-table.js'
import { PAUSE, SCAN_CHUNK } from './scan.js'
import { FoldedTexts } from './folded-texts.js'
import { ReadBudget } from '../read-budget.js'

/**
 * An equality condition whose index range holds at most this many records is
 * answered from that range (then sorted); a larger one walks the sort index
 * instead and filters as it goes. Either way a page costs little.
 */
const EQUALITY_BUDGET = 2048

export { SCAN_CHUNK }

/**
 * Answers queries from an IndexedTable without sorting the collection: a walk
 * starts at the query's position in the index of its first sort key (or of a
 * small equality range), skips what the filter rejects and stops once the
 * page is full. Records with equal first keys are ordered among themselves by
 * the remaining keys and the id as the walk passes them.
 */
export class MemoryQueries<K extends RecordId, R extends { id: K }> {
  readonly #folded = new FoldedTexts()

  constructor (private readonly table: IndexedTable<K, R>, private readonly kinds: FieldKinds<string>, private readonly collection: string, private readonly budget = ReadBudget.NONE) {}

  /** `keep`: a further test every record must pass (filters through references, resolved by the store). */
  async query (query: RecordQuery, keep?: (record: R) => boolean): Promise<R[]> {
    const out: R[] = []
    const limit = query.limit ?? Infinity
    if (limit <= 0) return out
    const end = this.budget.start()
    for (const record of this.walk(query, keep)) {
      if (record === PAUSE) {
        // Other requests run between chunks; the walk stops here once the read's budget is spent.
        await yieldToEventLoop()
        this.budget.check(end)
        continue
      }
      out.push(record)
      if (out.length >= limit) break
    }
    return out
  }

  async count (filter: RecordFilter, keep?: (record: R) => boolean): Promise<number> {
    if (filter.where.length === 0 && (filter.lists ?? []).length === 0 && filter.search === undefined && filter.expression === undefined && keep === undefined) return this.table.size
    // Walk the narrowest index a condition offers: an equality range, else a range condition's field.
    const bounded = filter.where.find((c) => c.op === 'eq') ?? filter.where.find((c) => c.op !== 'ne' && c.op !== 'contains')
    let n = 0
    const end = this.budget.start()
    for (const record of this.walk({ ...filter, sort: bounded === undefined ? [] : [{ field: bounded.field, descending: false }] }, keep)) {
      if (record === PAUSE) {
        await yieldToEventLoop()
        this.budget.check(end)
      } else n++
    }
    return n
  }

  /**
   * Every matching record in order, a batch at a time; each batch is a fresh
   * walk from the last position, so writes in between are safe. A stream may
   * last as long as its client reads; each batch is a read, with a budget of its own.
   */
  async * batches (query: RecordQuery, keep?: (record: R) => boolean): AsyncGenerator<R[]> {
    let remaining = query.limit ?? Infinity
    let after = query.after
    while (remaining > 0) {
      const batch = await this.query({ ...query, after, limit: Math.min(STREAM_BATCH_SIZE, remaining) }, keep)
      if (batch.length === 0) return
      yield batch
      remaining -= batch.length
      after = positionOf(batch[batch.length - 1], query.sort)
      await yieldToEventLoop() // other requests run between batches
    }
  }

  /**
   * The matching records after the query's position, in sort order, lazily,
   * with PAUSE after every SCAN_CHUNK records read. From its first pause the
   * walk reads a snapshot of the table (IndexedTable.walk), so writes made
   * meanwhile neither disturb it nor show in it (as a SQL store's statement
   * sees one snapshot).
   */
  * walk (query: RecordQuery, keep?: (record: R) => boolean): Generator<R | typeof PAUSE> {
    assertDeclaredFields(this.collection, this.kinds, query)
    const sort = query.sort
    const matches = matcher<R>(query, this.kinds, this.#folded.of)
    const after = query.after
    const wanted = (r: R): boolean => matches(r) && (keep === undefined || keep(r)) && (after === undefined || isAfter(r, sort, after))

    const equality = query.where.find((c) => c.op === 'eq')
    if (equality !== undefined) {
      const range = this.equalRange(equality)
      if (range !== undefined) {
        yield * range.filter(wanted).sort(sortComparator(sort))
        return
      }
    }

    const keys = orderKeys(sort)
    const lead = keys[0] as SortKey
    const field = lead.field
    const { low, high } = bounds(query.where, field)
    // Start at the later of the range's bound and the position (earlier for a descending walk).
    // An unset key (null) gives no start: unset values come first ascending (the walk's start) and last descending (isAfter skips to them).
    const key = after?.keys[0] ?? undefined
    const start = lead.descending ? earlier(high, key) : later(low, sort.length === 0 ? after?.id : key)
    const beyond = (value: FieldValue): boolean => lead.descending
      ? low !== undefined && compareValues(value, low) < 0
      : high !== undefined && compareValues(value, high) > 0
    // The table asks this of each record it reads (a view of its slot), and builds only those given.
    const verdict = (r: R): number => beyond(valueAtPath(r, field) as FieldValue) ? -1 : wanted(r) ? 1 : 0
    const entries = this.table.walk(field, start, lead.descending ? Infinity : -Infinity, lead.descending, verdict)

    if (keys.length === 1 || (keys.length === 2 && keys[1]?.descending === lead.descending)) {
      // The index order (field, then id), walked forward or backward, is the answer's order.
      yield * entries
      return
    }
    // Records sharing the first key are ordered by the other keys and the id before they are given out.
    // (Only sorts on several fields, or mixed directions, get here.)
    const order = sortComparator<R>(sort)
    let group: R[] = []
    let groupValue: FieldValue | undefined
    for (const record of entries) {
      if (record === PAUSE) {
        yield PAUSE
        continue
      }
      const value = valueAtPath(record, field) as FieldValue
      if (groupValue !== undefined && compareValues(value, groupValue) !== 0) {
        yield * group.sort(order)
        group = []
      }
      groupValue = value
      group.push(record)
    }
    yield * group.sort(order)
  }


  /** The records an equality condition selects, from its field's index, or undefined when there are too many. */
  private equalRange (condition: Condition): R[] | undefined {
    return this.table.equalRange(condition.field, condition.value, EQUALITY_BUDGET)
  }
}

/** The tightest bounds the conditions put on one field (undefined: open). */
function bounds (where: readonly Condition[], field: string): { low?: FieldValue, high?: FieldValue } {
  let low: FieldValue | undefined
  let high: FieldValue | undefined
  for (const c of where) {
    if (c.field !== field) continue
    if (c.op === 'eq' || c.op === 'gt' || c.op === 'gte') low = later(low, c.value)
    if (c.op === 'eq' || c.op === 'lt' || c.op === 'lte') high = earlier(high, c.value)
  }
  return { low, high }
}

function later (a: FieldValue | undefined, b: FieldValue | undefined): FieldValue | undefined {
  if (a === undefined) return b
  if (b === undefined) return a
  return compareValues(a, b) >= 0 ? a : b
}

function earlier (a: FieldValue | undefined, b: FieldValue | undefined): FieldValue | undefined {
  if (a === undefined) return b
  if (b === undefined) return a
  return compareValues(a, b) <= 0 ? a : b
}
