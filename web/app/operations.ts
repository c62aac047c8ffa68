import { createContext } from 'preact'
import { useContext, useEffect, useState } from 'preact/hooks'
import type { Api } from './api.js'

/**
 * What the record rules (docs/rules.md) let this page's caller attempt on
 * the collection it shows: GET /collections answers, per caller, the
 * operations of a collection with rules that its token may attempt; the
 * view hides New, Edit and Delete when the answer leaves them out. A
 * collection without rules (or a server that does not say) keeps every
 * action: the server still decides each write, and its refusal is shown.
 * Where the update or delete rule depends on the record, the answer gives
 * the condition a record must meet for this caller, and a row offers Edit
 * or Delete only when its record meets it.
 */

/**
 * Where the server lists its collections (src/services/collections/listing.ts), as the page's
 * configuration names it; none: the server has no listing, so none is asked for.
 */
export const ListingContext = createContext<string | undefined>(undefined)

/** The operations the caller may attempt, and the records it may change; undefined: every one (no rules, or not known). */
export type Attemptable = { operations: ReadonlySet<string>, records: Partial<Record<'update' | 'delete', (record: object) => boolean>> } | undefined

/** The attemptable operations of the collection a view shows, for the rows and forms inside it. */
export const AttemptableContext = createContext<Attemptable>(undefined)

/** Whether the caller may attempt the operation (on this record, for an update or delete). */
export function may (attemptable: Attemptable, operation: 'create' | 'update' | 'delete', record?: object): boolean {
  if (attemptable === undefined) return true
  if (!attemptable.operations.has(operation)) return false
  const test = operation === 'create' || record === undefined ? undefined : attemptable.records[operation]
  return test === undefined || test(record as object)
}

/**
 * A condition from the server as a test of the page's records: the plain
 * comparisons rules mostly make (`and`, `or`, `not`, `=`, `!=`, `in`, unset)
 * of top-level fields. Anything else lets every record through (the server
 * decides when the change is tried); so does a value the page holds
 * differently (ids as text).
 */
function recordTest (condition: unknown): ((record: object) => boolean) | undefined {
  const test = compiled(condition)
  return test === undefined ? undefined : (record) => test(record as Readonly<Record<string, unknown>>)
}

type Test = (record: Readonly<Record<string, unknown>>) => boolean

function compiled (node: unknown): Test | undefined {
  if (typeof node !== 'object' || node === null) return undefined
  const { op, field, value, values, items, item } = node as { op?: unknown, field?: unknown, value?: unknown, values?: unknown, items?: unknown, item?: unknown }
  if ((op === 'and' || op === 'or') && Array.isArray(items)) {
    const tests = items.map(compiled)
    if (tests.some((t) => t === undefined)) return undefined
    const all = tests as Test[]
    return op === 'and' ? (r) => all.every((t) => t(r)) : (r) => all.some((t) => t(r))
  }
  if (op === 'not') {
    const inner = compiled(item)
    return inner === undefined ? undefined : (r) => !inner(r)
  }
  if (typeof field !== 'string' || field === 'id' || field.includes('.')) return undefined
  // A comparison with an unset field holds for no record, as the server's filters have it.
  if (op === 'eq') return (r) => r[field] !== undefined && r[field] === value
  if (op === 'ne') return (r) => r[field] !== undefined && r[field] !== value
  if (op === 'in' && Array.isArray(values)) return (r) => r[field] !== undefined && values.includes(r[field])
  if (op === 'unset') return (r) => r[field] === undefined || r[field] === null
  return undefined
}

/** The operations the caller may attempt on `collection`, read again when the token changes (`epoch`). */
export function useAttemptable (api: Api, collection: string, epoch: number): Attemptable {
  const [attemptable, setAttemptable] = useState<Attemptable>(undefined)
  const listing = useContext(ListingContext)
  useEffect(() => {
    if (listing === undefined) return
    let current = true
    void api.request('GET', listing, { accept: 'application/json' }).then((res) => {
      if (!current) return
      const items = (res.body as { items?: unknown } | undefined)?.items
      const entry = Array.isArray(items) ? (items as Array<{ name?: unknown, operations?: unknown, conditions?: Record<string, unknown> }>).find((item) => item.name === collection) : undefined
      if (!res.ok || entry === undefined || !Array.isArray(entry.operations)) { setAttemptable(undefined); return }
      const records: NonNullable<Attemptable>['records'] = {}
      for (const operation of ['update', 'delete'] as const) {
        const test = recordTest(entry.conditions?.[operation])
        if (test !== undefined) records[operation] = test
      }
      setAttemptable({ operations: new Set(entry.operations as string[]), records })
    })
    return () => { current = false }
  }, [api, collection, epoch, listing])
  return attemptable
}
