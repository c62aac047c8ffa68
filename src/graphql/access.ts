import type { FastifyRequest } from 'fastify'
import {
  andAllowance, guardedAllowance, narrowedFilter, ownerOf, viewAllowed, writeAllowed,
  type AccessOf, type AggregateQuery, type Caller, type CollectionAccess, type Narrowing, type RecordFilter, type StoredRecord, type WriteSubject
} from '../domain/index.js'
import { AppError } from '../http/errors/index.js'
import { callerOf } from '../http/security/index.js'

/**
 * The record rules (docs/rules.md) in GraphQL: the same compiled access
 * REST asks (src/domain/rules/), applied to what each resolver reads and
 * writes. A list's rule joins its filter (pushed down to the store, so
 * counts and paging stay exact), a record the caller may not view is null
 * as a missing one is, a refused write is RULE_DENIED or OWNER_MISMATCH.
 */

/** Who sent the GraphQL request, as the rules see it. */
export function callerIn (context: { request: FastifyRequest }): Caller {
  return callerOf(context.request)
}

/**
 * A list's filter as this caller may list it (the domain's one narrowing,
 * as REST's): the list rule (or, for a back-relation, the view rule) ANDed,
 * guarded fields the query names read only where the caller may read them,
 * and each filter through a reference (`author__name`) narrowed to the
 * target records the caller may list, so a filter never tells the values
 * of records out of the caller's reach.
 */
export function listedFilter (access: CollectionAccess | undefined, caller: Caller, filter: RecordFilter, narrowing: Narrowing = {}): RecordFilter {
  return narrowedFilter(access, caller, filter, narrowing)
}

/** An aggregate over what the caller may list: the list rule, and the records whose guarded fields it groups by or measures the caller may read. */
export function listedAggregate (access: CollectionAccess | undefined, caller: Caller, query: AggregateQuery): AggregateQuery {
  if (access === undefined) return query
  const filter = listedFilter(access, caller, query.filter)
  return { ...query, filter: andAllowance(filter, guardedAllowance(access, caller, [...query.groupBy, ...query.sums, ...query.min, ...query.max])) }
}

/** The rules of each collection by name, as the narrowing of filters through references asks them. */
export function accessOfStores (stores: ReadonlyMap<string, { declaration: { access?: CollectionAccess } }>): AccessOf {
  return (collection) => stores.get(collection)?.declaration.access
}

/** The record when the caller may view it, else null (a record out of reach reads as one that does not exist). */
export function viewable (access: CollectionAccess | undefined, caller: Caller, record: StoredRecord | undefined | null): StoredRecord | null {
  if (record === undefined || record === null) return null
  return viewAllowed(access, caller, record) ? record : null
}

/** Refuses a write its collection's rule does not allow (RULE_DENIED, naming the rule's operation). */
export function checkWrite (access: CollectionAccess | undefined, operation: 'create' | 'update' | 'delete', caller: Caller, subject: WriteSubject): void {
  if (writeAllowed(access, operation, caller, subject)) return
  throw new AppError('RULE_DENIED', `The ${operation} rule of this collection does not allow this write`)
}

/**
 * The body with its owner field as the server sets it (`x-owner`): the
 * caller's subject on a create, the stored owner on a replace or update;
 * another value is OWNER_MISMATCH.
 */
export function ownedBody<B extends Readonly<Record<string, unknown>>> (access: CollectionAccess | undefined, caller: Caller, body: B, stored?: object): B {
  const owner = ownerOf(access, caller, body, stored)
  if (owner === 'mismatch') {
    const field = access?.owner ?? ''
    throw new AppError('OWNER_MISMATCH', `${field} is set by the server from the caller (x-owner): leave it out, or send the value it holds`, { errors: [{ code: 'OWNER_MISMATCH', field, detail: `body.${field} names another owner` }] })
  }
  if (owner.owner === undefined) return body
  const owned: Record<string, unknown> = { ...body }
  if (owner.value === undefined) Reflect.deleteProperty(owned, owner.owner)
  else owned[owner.owner] = owner.value
  return owned as B
}
