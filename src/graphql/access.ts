import type { FastifyRequest } from 'fastify'
import {
  ownerOf, restrictedFilter, viewAllowed, writeAllowed,
  type Caller, type CollectionAccess, type RecordFilter, type StoredRecord, type WriteSubject
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

/** A list's filter with the list rule ANDed for this caller (the same filter when the collection has no list rule). */
export function listedFilter (access: CollectionAccess | undefined, caller: Caller, filter: RecordFilter, operation: 'list' | 'view' = 'list'): RecordFilter {
  if (access === undefined || !access.has(operation)) return filter
  const expression = restrictedFilter(filter.expression, access.allowance(operation, caller))
  return expression === undefined ? filter : { ...filter, expression }
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
