import { createHash } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import {
  callerKey, IdempotencyKeyUsedError, IF_ABSENT, IF_PRESENT, NO_CONDITION, type Caller, type KeptWrite, type KeyedWrite, type RecordId, type RecordInput, type RecordStore,
  type StoredRecord, type WriteCondition
} from '../domain/index.js'
import type { ServedCollection } from '../data/collection.js'
import { patchedRecord, readOnlyOf } from '../data/patch.js'
import { AppError } from '../http/errors/index.js'
import { preconditionFailed, writeConditionFor } from '../http/rest/index.js'
import { idempotencyKey } from '../http/rest/idempotency.js'
import { principalOf } from '../http/security/index.js'
import { callerIn, checkWrite, ownedBody, viewable } from './access.js'

/**
 * The mutations of a collection, with REST's rules: the write scope, the
 * bodies checked by REST's schemas, `ifMatch` as If-Match (a compare-and-set
 * in the store), REST's not-found and precondition codes, and the request's
 * Idempotency-Key (one keyed write per request: a retry gets the kept answer).
 * A collection with rules (docs/rules.md) checks each write as REST does:
 * the owner set from the caller, a record out of view not found, a write
 * the rule refuses RULE_DENIED, and the write pinned to the record checked.
 */

// A type, not an interface: graphql-http and graphql-sse take contexts that are records.
export type WriteContext = {
  request: FastifyRequest
  /** Whether tokens are checked at all (otherwise every client may write, as over REST). */
  auth: boolean
}

export type Outcome = 'CREATED' | 'REPLACED'

/** How often an update without ifMatch reads again when another write came between its read and its write. */
const PATCH_ATTEMPTS = 5

export interface Written {
  record: StoredRecord
  outcome: Outcome
}

/** Refuses a mutation without the write scope, as REST's routes refuse a write. */
export function requireWrite (context: WriteContext): void {
  if (!context.auth) return
  const principal = principalOf(context.request)
  if (principal === undefined) throw new AppError('UNAUTHENTICATED', 'This request needs an access token: send Authorization: Bearer <token>')
  if (!principal.scopes.has('write')) throw new AppError('FORBIDDEN', 'This request needs a token with the write scope')
}

export class CollectionWrites {
  readonly #uuid: boolean
  readonly #name: string

  constructor (readonly collection: ServedCollection, readonly store: RecordStore) {
    this.#uuid = store.declaration.ids === 'uuid'
    this.#name = collection.name
  }

  /** An id argument as the collection's ids are (REST's INVALID_ID otherwise). */
  idOf (text: string): RecordId {
    const ids = this.store.declaration.ids
    if (this.#uuid) {
      const id = text.toLowerCase()
      if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)) return id
    } else if (ids === 'int64') {
      if (/^[1-9][0-9]{0,18}$/.test(text) && BigInt(text) <= 9223372036854775807n) return BigInt(text)
    } else if (/^(0|[1-9][0-9]{0,15})$/.test(text) && Number.isSafeInteger(Number(text)) && Number(text) >= this.store.declaration.firstId) {
      return Number(text)
    }
    throw new AppError('INVALID_ID', `"${text.slice(0, 40)}" is not an id of ${this.#name}`)
  }

  notFound (id: RecordId): AppError {
    const code = this.collection.notFound ?? 'RECORD_NOT_FOUND'
    const detail = `No record of ${this.#name} has the id ${id}`
    return new AppError(code, detail, code === 'RECORD_NOT_FOUND' ? { errors: [{ code, field: `${this.#name}/${id}`, detail }] } : {})
  }

  /** The input with nulls left out, checked as REST checks the body. */
  #body (kind: 'create' | 'replace', input: Readonly<Record<string, unknown>>): RecordInput {
    const body: Record<string, unknown> = {}
    for (const [field, value] of Object.entries(input)) if (value !== null && value !== undefined) body[field] = value
    const failures = this.collection.checkBody?.(kind, body) ?? []
    if (failures.length > 0) throw new AppError('VALIDATION_FAILED', failures.map((f) => f.detail).join('; '), { errors: failures, subject: 'body' })
    return body as RecordInput
  }

  async create (context: WriteContext, field: string, input: Readonly<Record<string, unknown>>): Promise<Written> {
    requireWrite(context)
    const access = this.store.declaration.access
    const caller = callerIn(context)
    const body = this.#body('create', ownedBody(access, caller, input))
    checkWrite(access, 'create', caller, { written: body, body: sent(input) })
    return await keyed(context.request, this.store, [field, input, ...fingerprintOf(access === undefined ? undefined : caller)], toWritten, async (keep) => {
      const result = await this.store.create(body, keep((r) => ({ record: r.record, outcome: r.outcome === 'replaced' ? 'REPLACED' : 'CREATED' })))
      return { record: result.record, outcome: result.outcome === 'replaced' ? 'REPLACED' : 'CREATED' }
    })
  }

  async replace (context: WriteContext, field: string, args: { id: string, input: Readonly<Record<string, unknown>>, ifMatch?: string | null }): Promise<Written> {
    requireWrite(context)
    const id = this.idOf(args.id)
    const access = this.store.declaration.access
    if (access !== undefined) return await this.#replaceChecked(context, field, id, args)
    const body = this.#body('replace', args.input)
    const ifMatch = args.ifMatch ?? undefined
    // A field an update keeps (the address book's name) may be left out: then only an update may happen.
    const missingKept = this.store.declaration.keptOnUpdate.find((f) => body[f] === undefined && this.store.declaration.fields[f]?.required === true)
    return await keyed(context.request, this.store, [field, args], toWritten, async (keep) => {
      let condition: WriteCondition<StoredRecord> = NO_CONDITION
      if (ifMatch !== undefined) condition = await this.#pinned(id, ifMatch)
      else if (missingKept !== undefined && this.store.declaration.putCreates) condition = IF_PRESENT
      const result = await this.store.put(id, body, condition, keep((r) => r.outcome === 'created' || r.outcome === 'replaced' ? { record: r.record, outcome: r.outcome === 'created' ? 'CREATED' : 'REPLACED' } : undefined))
      if (result.outcome === 'not-found') throw this.notFound(id)
      if (result.outcome === 'precondition-failed') {
        if (ifMatch !== undefined) throw preconditionFailed({ 'if-match': ifMatch }, `${this.#name} ${id}`)
        const detail = `body.${missingKept ?? ''} is required when the write creates the record`
        throw new AppError('VALIDATION_FAILED', detail, { subject: 'body', errors: [{ code: 'FIELD_REQUIRED', field: missingKept, detail }] })
      }
      return { record: result.record, outcome: result.outcome === 'created' ? 'CREATED' : 'REPLACED' }
    })
  }

  /**
   * A replace under rules: the record read, the rule checked against it and
   * the new one (a create's rule when there is none and replaces create),
   * and the write pinned to the record read; another write in between makes
   * it read and check again.
   */
  async #replaceChecked (context: WriteContext, field: string, id: RecordId, args: { id: string, input: Readonly<Record<string, unknown>>, ifMatch?: string | null }): Promise<Written> {
    const { access } = this.store.declaration
    const caller = callerIn(context)
    const ifMatch = args.ifMatch ?? undefined
    return await keyed(context.request, this.store, [field, args, callerKey(caller)], toWritten, async (keep) => {
      for (let attempt = 1; ; attempt++) {
        const read = await this.store.get(id)
        const current = viewable(access, caller, read)
        if (read !== undefined && current === null) throw this.notFound(id)
        if (current === null && !this.store.declaration.putCreates) throw this.notFound(id)
        if (current !== null && ifMatch !== undefined) await this.#pinned(id, ifMatch, current)
        if (current === null && ifMatch !== undefined) throw this.notFound(id)
        const body = this.#body('replace', ownedBody(access, caller, args.input, current ?? undefined))
        if (current === null) checkWrite(access, 'create', caller, { written: body, body: sent(args.input) })
        else checkWrite(access, 'update', caller, { stored: current, written: body, body: sent(args.input) })
        const condition: WriteCondition<StoredRecord> = current === null ? IF_ABSENT : { kind: 'matches', current }
        const result = await this.store.put(id, body, condition, keep((r) => r.outcome === 'created' || r.outcome === 'replaced' ? { record: r.record, outcome: r.outcome === 'created' ? 'CREATED' : 'REPLACED' } : undefined))
        if (result.outcome === 'created' || result.outcome === 'replaced') return { record: result.record, outcome: result.outcome === 'created' ? 'CREATED' : 'REPLACED' }
        if (ifMatch !== undefined || attempt === PATCH_ATTEMPTS) throw preconditionFailed({ 'if-match': ifMatch }, `${this.#name} ${id}`)
      }
    })
  }

  /**
   * REST's PATCH: the patch merged into the record read (a field left out is
   * kept, null removes an optional one), checked as a create body, and
   * written pinned to the record read (compare-and-set); without `ifMatch` a
   * write that came in between makes it read and merge again.
   */
  async update (context: WriteContext, field: string, args: { id: string, patch: Readonly<Record<string, unknown>>, ifMatch?: string | null }): Promise<Written> {
    requireWrite(context)
    const id = this.idOf(args.id)
    const ifMatch = args.ifMatch ?? undefined
    const { declaration } = this.store
    const { access } = declaration
    const caller = callerIn(context)
    const readOnly = readOnlyOf(this.collection.model)
    return await keyed(context.request, this.store, [field, args, ...fingerprintOf(access === undefined ? undefined : caller)], toWritten, async (keep) => {
      for (let attempt = 1; ; attempt++) {
        const current = viewable(access, caller, await this.store.get(id))
        if (current === null) throw this.notFound(id)
        if (ifMatch !== undefined) await this.#pinned(id, ifMatch, current)
        const patch = ownedBody(access, caller, args.patch, current)
        const merged = patchedRecord(declaration, current, patch, readOnly, (record) => this.collection.checkBody?.('create', record) ?? [], 'patch')
        checkWrite(access, 'update', caller, { stored: current, written: merged, body: sent(args.patch) })
        const result = await this.store.put(id, merged, { kind: 'matches', current }, keep((r) => r.outcome === 'replaced' ? { record: r.record, outcome: 'REPLACED' } : undefined))
        if (result.outcome === 'replaced') return { record: result.record, outcome: 'REPLACED' }
        if (result.outcome === 'not-found') throw this.notFound(id)
        if (ifMatch !== undefined || attempt === PATCH_ATTEMPTS) throw preconditionFailed({ 'if-match': ifMatch }, `${this.#name} ${id}`)
      }
    })
  }

  async delete (context: WriteContext, field: string, args: { id: string, ifMatch?: string | null }): Promise<string> {
    requireWrite(context)
    const id = this.idOf(args.id)
    const ifMatch = args.ifMatch ?? undefined
    const { access } = this.store.declaration
    const caller = callerIn(context)
    return await keyed(context.request, this.store, [field, args, ...fingerprintOf(access === undefined ? undefined : caller)], (kept) => String((kept as { id: string }).id), async (keep) => {
      for (let attempt = 1; ; attempt++) {
        let condition: WriteCondition<StoredRecord> = NO_CONDITION
        if (access !== undefined) {
          // Checked against the record read (out of view: not found, before any If-Match), and deleted only as read.
          const current = viewable(access, caller, await this.store.get(id))
          if (current === null) throw this.notFound(id)
          checkWrite(access, 'delete', caller, { stored: current })
          condition = ifMatch === undefined ? { kind: 'matches', current } : await this.#pinned(id, ifMatch, current)
        } else if (ifMatch !== undefined) condition = await this.#pinned(id, ifMatch)
        const result = await this.store.delete(id, condition, keep((r) => r.outcome === 'deleted' ? { id: String(id) } : undefined))
        if (result.outcome === 'not-found') throw this.notFound(id)
        if (result.outcome === 'deleted') return String(id)
        // A write between the read and the delete: read and check again (with If-Match, the version is stale).
        if (access === undefined || ifMatch !== undefined || attempt === PATCH_ATTEMPTS) throw preconditionFailed({ 'if-match': ifMatch }, `${this.#name} ${id}`)
      }
    })
  }

  /** `ifMatch` evaluated as REST evaluates If-Match: against the record now (or the one just read), which the write must still find (compare-and-set). */
  async #pinned (id: RecordId, ifMatch: string, read?: StoredRecord): Promise<WriteCondition<StoredRecord>> {
    const current = read ?? await this.store.get(id)
    if (current === undefined) throw this.notFound(id)
    const etag = this.collection.etag
    const condition = etag === undefined ? undefined : writeConditionFor({ 'if-match': ifMatch }, current, (r) => etag.call(this.collection, r))
    if (condition === undefined) throw preconditionFailed({ 'if-match': ifMatch }, `${this.#name} ${id}`)
    return condition
  }
}

/** The values a client sent (nulls left out), as a rule's `@request.body.<field>` reads them. */
function sent (input: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null && value !== undefined))
}

/** What a keyed write's fingerprint adds under rules: the caller, so that another caller's replay is IDEMPOTENCY_KEY_REUSED, never the first caller's answer. */
function fingerprintOf (caller: Caller | undefined): string[] {
  return caller === undefined ? [] : [callerKey(caller)]
}

function toWritten (kept: unknown): Written {
  return kept as Written
}

type Keep = <R>(answer: (result: R) => unknown) => KeyedWrite<R> | undefined

/**
 * Runs a write with the request's Idempotency-Key, if it has one: the
 * mutation's answer is kept with the write, and a retry of the same mutation
 * (field and arguments) with the key gets it back without writing again.
 * Another mutation with the key is IDEMPOTENCY_KEY_REUSED, as over REST.
 */
async function keyed<T> (request: FastifyRequest, store: RecordStore, what: unknown, fromKept: (kept: unknown) => T, work: (keep: Keep) => Promise<T>): Promise<T> {
  const key = idempotencyKey(request)
  if (key === undefined) return await work(() => undefined)
  const fingerprint = createHash('sha256').update(JSON.stringify(['graphql', what])).digest('base64url')
  const replay = (kept: KeptWrite): T => {
    if (kept.fingerprint !== fingerprint) {
      throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used for a different request (operation, resource, version, query or body); use a new key for a new request')
    }
    return fromKept(JSON.parse(kept.answer.body))
  }
  const earlier = await store.keptWrite?.(key)
  if (earlier !== undefined) return replay(earlier)
  try {
    return await work((answer) => ({
      key,
      fingerprint,
      answer: (result) => {
        const body = answer(result)
        return body === undefined ? undefined : { status: 200, headers: {}, body: JSON.stringify(body, (_k, v: unknown) => typeof v === 'bigint' ? v.toString() : v) }
      }
    }))
  } catch (err) {
    if (err instanceof IdempotencyKeyUsedError) return replay(err.kept)
    throw err
  }
}
