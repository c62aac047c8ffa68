import type { FastifyRequest } from 'fastify'
import {
  andAllowance, holds, mergePatch, ownerOf, viewAllowed, visibleRecord, writeAllowed,
  type Caller, type CollectionAccess, type QueryableStore, type RecordFilter, type RecordStore, type StoredRecord
} from '../../domain/index.js'
import { AppError } from '../../http/errors/index.js'
import { callerOf } from '../../http/security/index.js'

/**
 * The record rules (docs/rules.md) as the record routes apply them: one
 * place that narrows a list to what its caller may list, hides the fields
 * a caller may not read, and refuses the writes a rule refuses. A collection
 * without rules never reaches any of it (the routes test `access` first).
 */

/** The caller of a request whose collection has rules. */
export function requestCaller (request: FastifyRequest): Caller {
  return callerOf(request)
}

/** 403 RULE_DENIED naming the operation. */
export function ruleDenied (operation: 'create' | 'update' | 'delete', what?: string): AppError {
  return new AppError('RULE_DENIED', `The collection's ${operation} rule does not allow this ${operation}${what === undefined ? '' : ` (${what})`}`)
}

/** 403 OWNER_MISMATCH naming the owner field. */
export function ownerMismatch (field: string, creating: boolean): AppError {
  return new AppError('OWNER_MISMATCH', creating
    ? `body.${field} is the record's owner, set from the caller's subject: leave it out or send your own subject`
    : `body.${field} is the record's owner, which an update never changes: leave it out or send the value it holds`)
}

/** A create's input with its owner set from the caller, or OWNER_MISMATCH. */
export function ownedInput<T extends Readonly<Record<string, unknown>>> (access: CollectionAccess, caller: Caller, body: T, stored?: StoredRecord): T {
  const owned = ownerOf(access, caller, body, stored)
  if (owned === 'mismatch') throw ownerMismatch(access.owner as string, stored === undefined)
  if (owned.owner === undefined) return body
  if (owned.value === undefined) {
    if (body[owned.owner] === undefined) return body
    const { [owned.owner]: _dropped, ...rest } = body
    return rest as T
  }
  return { ...body, [owned.owner]: owned.value }
}

/**
 * The store as one caller reads it for expansions: records whose view rule
 * does not hold are left out, guarded fields hidden. Every other method is
 * the store's own.
 */
export function readableStore (store: RecordStore, caller: Caller): RecordStore {
  const access = store.declaration.access
  if (access === undefined || caller.admin) return store
  const readable = (records: readonly StoredRecord[]): StoredRecord[] => records.filter((r) => viewAllowed(access, caller, r)).map((r) => visibleRecord(access, r, caller))
  return new Proxy(store, {
    get (target, property) {
      if (property === 'getMany') return async (...args: Parameters<RecordStore['getMany']>) => readable(await target.getMany(...args))
      if (property === 'withValues') return async (...args: Parameters<RecordStore['withValues']>) => readable(await target.withValues(...args))
      if (property === 'get') {
        return async (...args: Parameters<RecordStore['get']>) => {
          const found = await target.get(...args)
          return found === undefined || !viewAllowed(access, caller, found) ? undefined : visibleRecord(access, found, caller)
        }
      }
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
    }
  })
}

// The narrowing of lists is the domain's (src/domain/rules/narrow.ts), shared with GraphQL.
export { andAllowance, guardedAllowance, narrowedFilter, narrowedThrough } from '../../domain/index.js'
export { holds, viewAllowed, visibleRecord }

/** The store as one caller lists it: every record read has its guarded fields hidden (the filter is narrowed by the route). */
export function visibleStore (store: RecordStore, access: CollectionAccess, caller: Caller): QueryableStore<StoredRecord, string> {
  if (access.guarded.length === 0 || caller.admin) return store
  const shown = (records: readonly StoredRecord[]): StoredRecord[] => records.map((r) => visibleRecord(access, r, caller))
  return {
    query: async (query) => shown(await store.query(query)),
    count: store.count.bind(store),
    batches: async function * (query) { for await (const batch of store.batches(query)) yield shown(batch) },
    importAll: async () => { throw new TypeError('a list as one caller sees it is read only') }
  }
}

/** A create's input as the rules permit it: its owner set from the caller, then the create rule checked (`what`: which item of a bulk create). */
export function permittedCreate<T extends Readonly<Record<string, unknown>>> (access: CollectionAccess, caller: Caller, body: T, what?: string): T {
  const input = ownedInput(access, caller, body)
  if (!writeAllowed(access, 'create', caller, { written: input, body })) throw ruleDenied('create', what)
  return input
}

/**
 * A filtered PATCH's or DELETE's filter as the rules permit it (`filter`
 * already narrowed to what the caller may list): every selected record must
 * pass the update or delete rule — a patch also as it will be after it — or
 * the whole request is refused and nothing written. The filter returned
 * ANDs the rule too, so a record changed meanwhile is never written past it.
 */
export async function permittedWhere (store: RecordStore, access: CollectionAccess, caller: Caller, operation: 'update' | 'delete', filter: RecordFilter, patch?: Readonly<Record<string, unknown>>): Promise<RecordFilter> {
  if (!access.has(operation) || caller.admin) return filter
  const allowance = access.allowance(operation, caller, patch)
  if (operation === 'delete' || patch === undefined) {
    const refused = allowance === true ? 0 : await store.count(andAllowance(filter, allowance === false ? true : { op: 'not', item: allowance }))
    if (refused > 0) throw ruleDenied(operation, `${refused} of the records selected`)
    return andAllowance(filter, allowance)
  }
  for await (const batch of store.batches({ ...filter, sort: [] })) {
    for (const record of batch) {
      if (!writeAllowed(access, 'update', caller, { stored: record, written: { ...mergePatch(store.declaration, record, patch), id: record.id }, body: patch })) {
        throw ruleDenied(operation, `record ${String(record.id)}`)
      }
    }
  }
  return andAllowance(filter, allowance)
}
