import type { IncomingHttpHeaders } from 'node:http'
import { IF_PRESENT, NO_CONDITION, viewAllowed, visibleRecord, writeAllowed, type Caller, type CollectionAccess, type RecordId, type RecordInput, type RecordWrites, type StoredRecord, type WriteCondition } from '../../domain/index.js'
import { AppError } from '../../http/errors/index.js'
import { hasPreconditions, preconditionFailed, recordEtag, writeConditionFor } from '../../http/rest/index.js'
import { evaluatePreconditions } from '../../http/rest/conditional.js'
import { patchedRecord, readOnlyOf } from '../../data/patch.js'
import { bodyMembers, refuseUnknownMembers } from '../records/bodies.js'
import type { Target } from './targets.js'
import { ownedInput, permittedCreate, ruleDenied } from '../records/access.js'

/**
 * What each method of a batch does, with the record routes' rules
 * (src/services/records/routes.ts): the same statuses, ETags, Location,
 * preconditions (a compare-and-set in the store) and refusals. Every check
 * that needs no record runs before the unit of work (`prepare`); `run` works
 * on the unit's view of the collection. A verb is one entry of VERBS.
 */

export const BATCH_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
export type BatchMethod = (typeof BATCH_METHODS)[number]

/** One request of a batch, checked, ready to run. */
export interface Step {
  index: number
  method: BatchMethod
  url: string
  target: Target
  /** The collection's URL as sent: Location starts with it. */
  base: string
  /** The record's id, for a verb on one record. */
  id?: RecordId
  /** If-Match / If-None-Match, by lower-case name. */
  headers: IncomingHttpHeaders
  /** The checked body, declared fields only (POST, PUT); PATCH: the merge patch, its members declared fields. */
  input?: RecordInput
  /** Who sent the batch: the record rules of its collections apply to each request (docs/rules.md). */
  caller?: Caller
}

/** The rules a step runs under: its collection's and its caller, or none. */
function rulesOf (step: Step, records: RecordWrites): { access: CollectionAccess, caller: Caller } | undefined {
  const { access } = records.declaration
  return access === undefined || step.caller === undefined ? undefined : { access, caller: step.caller }
}

/** The record a step answers, as its caller may see it. */
function shown (step: Step, records: RecordWrites, record: StoredRecord): StoredRecord {
  const rules = rulesOf(step, records)
  return rules === undefined ? record : visibleRecord(rules.access, record, rules.caller)
}

/** One request's answer in the batch's: status, the headers that describe the result, the record. */
export interface Answer {
  status: number
  headers: Record<string, string>
  record?: StoredRecord
}

export interface Verb {
  /** On one record (`/books/7`) or on the collection (`/books`). */
  one: boolean
  /** The token scope it needs, as its REST route declares. */
  access: 'read' | 'write'
  /** Whether it takes a body. */
  body: boolean
  /** The input of a body (checked as REST checks it), before the unit starts; throws the REST refusal. */
  prepare?: (target: Target, body: unknown, id: RecordId | undefined) => RecordInput
  run: (step: Step, records: RecordWrites) => Promise<Answer>
}

export const VERBS: Readonly<Record<BatchMethod, Verb>> = {
  GET: { one: true, access: 'read', body: false, run: read },
  POST: { one: false, access: 'write', body: true, prepare: (target, body) => checkedInput(target, 'create', body), run: create },
  PUT: { one: true, access: 'write', body: true, prepare: replaceInput, run: replace },
  PATCH: { one: true, access: 'write', body: true, prepare: patchInput, run: patch },
  DELETE: { one: true, access: 'write', body: false, run: remove }
}

/** GET: 200 with the record and its ETag; If-None-Match → 304, If-Match → 412 as a read's preconditions. */
async function read (step: Step, records: RecordWrites): Promise<Answer> {
  const id = idOf(step)
  const found = await records.get(id)
  const rules = rulesOf(step, records)
  if (found === undefined || (rules !== undefined && !viewAllowed(rules.access, rules.caller, found))) throw step.target.ids.notFound(id)
  const current = shown(step, records, found)
  const etag = recordEtag(current)
  const outcome = hasPreconditions(step.headers) ? evaluatePreconditions(step.headers, etag, true) : 'proceed'
  if (outcome === 'failed') throw preconditionFailed(step.headers, `${step.target.name} ${String(id)}`)
  if (outcome === 'not-modified') return { status: 304, headers: { etag } }
  return { status: 200, headers: { etag }, record: current }
}

/** POST: 201 with Location and ETag (and Replaced-Record when the count id rule overwrote a record). */
async function create (step: Step, records: RecordWrites): Promise<Answer> {
  const rules = rulesOf(step, records)
  const input = rules === undefined ? step.input ?? {} : permittedCreate(rules.access, rules.caller, step.input ?? {}, `request ${step.index}`)
  const { outcome, record: created } = await records.create(input)
  const record = shown(step, records, created)
  const location = `${step.base}/${String(record.id)}`
  const headers: Record<string, string> = { location, etag: recordEtag(record) }
  if (outcome === 'replaced') headers['replaced-record'] = location
  return { status: 201, headers, record }
}

/**
 * PUT: as the record routes' replaceRecord. A precondition, or a kept field
 * the body leaves out (the address book's name), makes the current record
 * matter: it is read and the write pinned to it.
 */
async function replace (step: Step, records: RecordWrites): Promise<Answer> {
  const rules = rulesOf(step, records)
  if (rules !== undefined) return await guardedReplace(step, records, rules)
  const id = idOf(step)
  const input = step.input ?? {}
  const { declaration } = records
  const { ids, name } = step.target
  const conditional = hasPreconditions(step.headers)
  const missing = declaration.putCreates ? declaration.keptOnUpdate.find((field) => input[field] === undefined) : undefined
  let condition: WriteCondition<StoredRecord> = NO_CONDITION
  if (conditional || missing !== undefined) {
    const current = await records.get(id)
    if (current === undefined) {
      if (!declaration.putCreates) throw ids.notFound(id)
      if (missing !== undefined) throw keptFieldRequired(missing)
    }
    if (conditional) {
      const pinned = writeConditionFor(step.headers, current, recordEtag)
      if (pinned === undefined) throw preconditionFailed(step.headers, `${name} ${String(id)}`)
      condition = pinned
    } else {
      condition = IF_PRESENT
    }
  }
  const result = await records.put(id, input, condition)
  if (result.outcome === 'not-found' && !declaration.putCreates) throw ids.notFound(id)
  if (result.outcome === 'not-found' || result.outcome === 'precondition-failed') {
    throw conditional || missing === undefined ? preconditionFailed(step.headers, `${name} ${String(id)}`) : keptFieldRequired(missing)
  }
  const etag = recordEtag(result.record)
  if (result.outcome === 'created') return { status: 201, headers: { etag, location: `${step.base}/${String(id)}` }, record: result.record }
  return { status: 200, headers: { etag }, record: result.record }
}

/** PUT under rules, as the record routes' guardedReplace: 404 unless viewable, the owner kept, the update rule on both states. */
async function guardedReplace (step: Step, records: RecordWrites, { access, caller }: { access: CollectionAccess, caller: Caller }): Promise<Answer> {
  const id = idOf(step)
  const { ids, name } = step.target
  const current = await records.get(id)
  if (current === undefined || !viewAllowed(access, caller, current)) throw ids.notFound(id)
  const condition = hasPreconditions(step.headers) ? writeConditionFor(step.headers, current, recordEtag) : { kind: 'matches' as const, current }
  if (condition === undefined) throw preconditionFailed(step.headers, `${name} ${String(id)}`)
  const input = ownedInput(access, caller, step.input ?? {}, current)
  if (!writeAllowed(access, 'update', caller, { stored: current, written: { ...input, id }, body: step.input ?? {} })) throw ruleDenied('update', `${name} ${String(id)}`)
  const result = await records.put(id, input, condition)
  if (result.outcome === 'not-found') throw ids.notFound(id)
  if (result.outcome !== 'replaced') throw preconditionFailed(step.headers, `${name} ${String(id)}`)
  const record = shown(step, records, result.record)
  return { status: 200, headers: { etag: recordEtag(record) }, record }
}

/**
 * PATCH: as the record routes' patchRecord, with the same merge and checks
 * (patchedRecord): 404 when missing, If-Match / If-None-Match against the
 * record read (412), 200 with the patched record. The unit's view cannot
 * change between the read and the write, so no second attempt is needed.
 */
async function patch (step: Step, records: RecordWrites): Promise<Answer> {
  const id = idOf(step)
  const { ids, name, collection } = step.target
  const current = await records.get(id)
  const rules = rulesOf(step, records)
  if (current === undefined || (rules !== undefined && !viewAllowed(rules.access, rules.caller, current))) throw ids.notFound(id)
  if (hasPreconditions(step.headers) && writeConditionFor(step.headers, current, recordEtag) === undefined) {
    throw preconditionFailed(step.headers, `${name} ${String(id)}`)
  }
  if (rules !== undefined) ownedInput(rules.access, rules.caller, step.input ?? {}, current)
  const merged = patchedRecord(records.declaration, current, step.input ?? {}, readOnlyOf(collection.model), (record) => collection.checkBody?.('create', record) ?? [])
  if (rules !== undefined && !writeAllowed(rules.access, 'update', rules.caller, { stored: current, written: { ...merged, id }, body: step.input ?? {} })) throw ruleDenied('update', `${name} ${String(id)}`)
  const result = await records.put(id, merged, { kind: 'matches', current })
  if (result.outcome === 'not-found') throw ids.notFound(id)
  if (result.outcome !== 'replaced') throw preconditionFailed(step.headers, `${name} ${String(id)}`)
  const record = shown(step, records, result.record)
  return { status: 200, headers: { etag: recordEtag(record) }, record }
}

/** DELETE: 204; a missing record is 404 whatever the preconditions say (RFC 9110 §13.2.1). */
async function remove (step: Step, records: RecordWrites): Promise<Answer> {
  const id = idOf(step)
  const { ids, name } = step.target
  let condition: WriteCondition<StoredRecord> = NO_CONDITION
  const rules = rulesOf(step, records)
  if (rules !== undefined) {
    const current = await records.get(id)
    if (current === undefined || !viewAllowed(rules.access, rules.caller, current)) throw ids.notFound(id)
    if (!writeAllowed(rules.access, 'delete', rules.caller, { stored: current })) throw ruleDenied('delete', `${name} ${String(id)}`)
    condition = { kind: 'matches', current }
  }
  if (hasPreconditions(step.headers)) {
    const current = await records.get(id)
    if (current === undefined) throw ids.notFound(id)
    const pinned = writeConditionFor(step.headers, current, recordEtag)
    if (pinned === undefined) throw preconditionFailed(step.headers, `${name} ${String(id)}`)
    condition = pinned
  }
  const result = await records.delete(id, condition)
  if (result.outcome === 'not-found') throw ids.notFound(id)
  if (result.outcome === 'precondition-failed') throw preconditionFailed(step.headers, `${name} ${String(id)}`)
  return { status: 204, headers: {} }
}

function idOf (step: Step): RecordId {
  if (step.id === undefined) throw new TypeError(`${step.method} ${step.url} runs without a record id`)
  return step.id
}

/** A PUT body: its `id`, if sent, must be the URL's (400 ID_MISMATCH); the rest is checked as a create's. */
function replaceInput (target: Target, body: unknown, id: RecordId | undefined): RecordInput {
  if (isObject(body) && body.id !== undefined) {
    if (!sameId(body.id, id)) throw new AppError('ID_MISMATCH', `body.id ${JSON.stringify(String(body.id)).slice(0, 60)} differs from the URL's id ${String(id)}`)
    const { id: _sent, ...rest } = body
    return checkedInput(target, 'replace', rest)
  }
  return checkedInput(target, 'replace', body)
}

/** A merge patch (RFC 7396): a JSON object of the record's fields; its `id`, if sent (and not null), must be the URL's. */
function patchInput (target: Target, body: unknown, id: RecordId | undefined): RecordInput {
  if (!isObject(body)) throw new AppError('JSON_EXPECTED', 'A merge patch is a JSON object')
  refuseUnknownMembers(body, bodyMembers(target.ids.store.declaration))
  const { id: sent, ...fields } = body
  if (sent !== undefined && sent !== null && !sameId(sent, id)) {
    throw new AppError('ID_MISMATCH', `body.id ${JSON.stringify(String(sent)).slice(0, 60)} differs from the URL's id ${String(id)}`)
  }
  return fields as RecordInput
}

function sameId (sent: unknown, id: RecordId | undefined): boolean {
  if (typeof id === 'string') return typeof sent === 'string' && sent.toLowerCase() === id
  if (typeof id === 'bigint') return (typeof sent === 'bigint' && sent === id) || (typeof sent === 'number' && Number.isSafeInteger(sent) && BigInt(sent) === id)
  return sent === id
}

/** The body checked by the collection's REST schema (POST, or PUT without its id), its declared fields only. */
function checkedInput (target: Target, kind: 'create' | 'replace', body: unknown): RecordInput {
  if (!isObject(body)) {
    const detail = 'body must be a JSON object (the record\'s fields)'
    throw new AppError('VALIDATION_FAILED', detail, { errors: [{ code: 'FIELD_TYPE', field: 'body', detail }], subject: 'body' })
  }
  const copy = { ...body }
  const failures = target.collection.checkBody?.(kind, copy) ?? []
  if (failures.length > 0) throw new AppError('VALIDATION_FAILED', failures.map((f) => f.detail).join('; '), { errors: failures, subject: 'body' })
  const input: Record<string, unknown> = {}
  for (const field of Object.keys(target.ids.store.declaration.fields)) {
    if (copy[field] !== undefined) input[field] = copy[field]
  }
  return input as RecordInput
}

function keptFieldRequired (field: string): AppError {
  const detail = `body.${field} is required when the PUT creates the record`
  return new AppError('VALIDATION_FAILED', detail, { errors: [{ code: 'FIELD_REQUIRED', field, detail }] })
}

function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
