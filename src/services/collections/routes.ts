import type { FastifyInstance, FastifySchema, FastifySchemaCompiler } from 'fastify'
import { NO_CONDITION, type DeleteResult, type RecordId, type RecordInput, type RecordStore, type StoredRecord, type WriteCondition, type WriteResult } from '../../domain/index.js'
import {
  answerOnce, conditionalRead, exactJsonParser, hasPreconditions, isRevisioned, pageHeaders, parseListQuery, preconditionFailed, readPage, sendStream, csvColumns,
  strongEtag, vendorJsonPattern, writeConditionFor, type KeptPages, type Page, type Representation, type WriteAnswer
} from '../../http/rest/index.js'
import { querystringSchema } from '../../http/rest/index.js'
import { AppError, problems } from '../../http/errors/index.js'
import { ACCEPTS_KEY, SEQUENCE_PATH_ID, UUID_PATH_ID, answer, noBody, type OperationNotes } from '../../http/openapi/index.js'
import type { UserCollection } from './declare.js'
import { createBody, pageSchema, pascalOf, putBody, queryModel, recordLine, recordSchema, singularOf } from './schema.js'
import { isUuid, sharedCollectionValidator } from './validation.js'

export interface CollectionRoutesOptions {
  collection: UserCollection
  store: RecordStore
  /** Vendor name of the versioned media types, whose bodies are JSON too. */
  vendor: string
  /** Pages serialised once per store revision (memory store), kept by this server. */
  pages: KeptPages
  /** The collection's validators, shared by its mounts (each schema compiled once); a fresh one when not given. */
  validator?: FastifySchemaCompiler<FastifySchema>
}

interface IdParams { id: string }

/** Strong ETag of a record: its JSON (fields in declaration order, the same from every store). */
export function recordEtag (record: StoredRecord): string {
  return strongEtag(JSON.stringify(record))
}

const notes = (extra: OperationNotes = {}): OperationNotes => ({ store: true, ...extra })

/**
 * A declared collection at `{prefix}/<name>`, with the address book's
 * conventions: POST creates (201, Location, ETag), GET by id reads (ETag,
 * 304), PUT replaces an existing record (404 when missing), DELETE removes
 * it; If-Match / If-None-Match are a compare-and-set in the store; lists
 * page, filter, sort, search, count and stream NDJSON; Idempotency-Key
 * replays a write's answer. Bodies are checked with the declared schema.
 */
async function collectionRoutes (app: FastifyInstance, opts: CollectionRoutesOptions): Promise<void> {
  const { collection, store } = opts
  const name = collection.declaration.name
  const one = singularOf(name)
  const many = pascalOf(name)
  const tags = [name]
  const resources = `/${name}`
  const path = `${app.prefix}${resources}`
  const model = queryModel(collection)
  const record = recordSchema(collection)
  const uuid = collection.declaration.ids === 'uuid'
  const idParams = {
    type: 'object',
    properties: {
      id: uuid
        ? { type: 'string', description: UUID_PATH_ID.description, examples: ['0b6c1b8e-3f4a-4c2e-9d7a-5e8f1a2b3c4d'], [ACCEPTS_KEY]: UUID_PATH_ID }
        : { type: 'string', description: SEQUENCE_PATH_ID.description, examples: ['1'], [ACCEPTS_KEY]: SEQUENCE_PATH_ID }
    },
    required: ['id']
  }

  // Only JSON bodies (plain or versioned); any other Content-Type is 415.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, exactJsonParser)
  app.addContentTypeParser(vendorJsonPattern(opts.vendor), { parseAs: 'string' }, exactJsonParser)
  // The declared formats (date, email, …) are checked by validators that know them.
  app.setValidatorCompiler(opts.validator ?? sharedCollectionValidator())

  const pathId = (segment: string): RecordId => {
    if (uuid) {
      const id = segment.toLowerCase()
      if (isUuid(id)) return id
    } else if (/^[1-9][0-9]{0,15}$/.test(segment) && Number.isSafeInteger(Number(segment))) {
      return Number(segment)
    }
    throw new AppError('INVALID_ID', `"${segment.slice(0, 40)}" is not an id of ${name}: use ${uuid ? 'a UUID' : `an integer from 1 to ${Number.MAX_SAFE_INTEGER} in plain decimal`}`)
  }
  const notFound = (id: RecordId): AppError => {
    const detail = `No record of ${name} has the id ${id}`
    return new AppError('RECORD_NOT_FOUND', detail, { errors: [{ code: 'RECORD_NOT_FOUND', field: `${name}/${id}`, detail }] })
  }
  const what = (id: RecordId): string => `${name} ${id}`
  const fieldsOf = (body: Readonly<Record<string, unknown>>): RecordInput => {
    const input: Record<string, RecordInput[string]> = {}
    for (const field of Object.keys(collection.properties)) {
      const value = body[field]
      if (value !== undefined) input[field] = value as RecordInput[string]
    }
    return input
  }

  app.get<{ Querystring: Record<string, unknown> }>(resources, {
    schema: {
      operationId: `list${many}`,
      tags,
      summary: `List ${name} (paged; filter, sort, search; NDJSON with Accept: application/x-ndjson)`,
      description: '`limit` per page (default 50, at most 500), ascending ids unless `sort` says otherwise. `next` and `Link: <…>; rel="next"` lead to the next page while there is one; `count=true` adds `X-Total-Count`. With `Accept: application/x-ndjson` the answer is every matching record, one a line (a `limit` caps it). Optional fields filter but do not sort.',
      querystring: querystringSchema(model),
      'x-rqs': notes({ errors: ['INVALID_QUERY', 'INVALID_CURSOR'], headers: { 200: ['Link', 'X-Total-Count'] } }),
      response: { 200: answer(pageSchema(collection), `A page of ${name}.`) }
    },
    config: { streams: true, rqs: { access: 'read' } }
  }, async (request, reply) => {
    const list = parseListQuery(model, request.query, request.stream === undefined ? 'page' : 'stream')
    const records = { store, path }
    if (request.stream !== undefined) return await sendStream(reply, records, list, request.stream, { line: recordLine, columns: csvColumns(model) })
    if (isRevisioned(store)) return await opts.pages.send(reply, { store, path }, list, request.url, pageBody)
    const page = await readPage(records, list)
    pageHeaders(reply, page)
    return pageBody(page)
  })

  app.get<{ Params: IdParams }>(`${resources}/:id`, {
    config: { rqs: { access: 'read' } },
    compress: false, // one record: always small
    schema: {
      operationId: `get${one}`,
      tags,
      summary: `Retrieve a record of ${name} (ETag; If-None-Match → 304)`,
      params: idParams,
      'x-rqs': notes({ errors: ['INVALID_ID', 'RECORD_NOT_FOUND'], preconditions: 'read', headers: { 200: ['ETag'] } }),
      response: { 200: answer(record, 'The record, with its ETag.') }
    }
  }, async (request, reply) => {
    const id = pathId(request.params.id)
    const current = await store.get(id)
    if (current === undefined) throw notFound(id)
    const outcome = conditionalRead(request, reply, recordEtag(current))
    if (outcome === 'not-modified') return reply
    if (outcome === 'failed') throw preconditionFailed(request.headers, what(id))
    return current
  })

  app.post<{ Body: Record<string, unknown> }>(resources, {
    compress: false,
    config: { rqs: { access: 'write' } },
    schema: {
      operationId: `create${one}`,
      tags,
      summary: `Create a record of ${name} (a new id every time; Idempotency-Key replays)`,
      body: createBody(collection),
      'x-rqs': notes({ headers: { 201: ['Location', 'ETag'] } }),
      response: { 201: answer(record, 'Created: the stored record; Location names it.') }
    }
  }, async (request, reply) => await answerOnce(request, reply, store, async (keep) => {
    const created = (result: { record: StoredRecord }): WriteAnswer => ({ status: 201, headers: { location: `${path}/${result.record.id}`, etag: recordEtag(result.record) }, body: result.record })
    return created(await store.create(fieldsOf(request.body), keep(created)))
  }))

  app.put<{ Params: IdParams, Body: Record<string, unknown> }>(`${resources}/:id`, {
    config: { rqs: { access: 'write' } },
    compress: false,
    schema: {
      operationId: `replace${one}`,
      tags,
      summary: `Replace a record of ${name} (never creates: 404 when missing; If-Match honoured)`,
      params: idParams,
      body: putBody(collection),
      'x-rqs': notes({ errors: ['INVALID_ID', 'ID_MISMATCH', 'RECORD_NOT_FOUND'], preconditions: 'write', headers: { 200: ['ETag'] } }),
      response: { 200: answer(record, 'Replaced: the stored record.') }
    }
  }, async (request, reply) => await answerOnce(request, reply, store, async (keep) => {
    const id = pathId(request.params.id)
    const bodyId = request.body.id
    if (bodyId !== undefined && (uuid ? typeof bodyId !== 'string' || bodyId.toLowerCase() !== id : bodyId !== id)) {
      throw new AppError('ID_MISMATCH', `body.id ${JSON.stringify(String(bodyId)).slice(0, 60)} differs from the path id ${id}`)
    }
    let condition: WriteCondition<StoredRecord> = NO_CONDITION
    if (hasPreconditions(request.headers)) {
      const current = await store.get(id)
      if (current === undefined) throw notFound(id)
      // Pin the write to the state the precondition was checked against: compare-and-set in the store.
      const pinned = writeConditionFor(request.headers, current, recordEtag)
      if (pinned === undefined) throw preconditionFailed(request.headers, what(id))
      condition = pinned
    }
    const stored = (result: WriteResult): WriteAnswer | undefined =>
      result.outcome === 'replaced' || result.outcome === 'created' ? { status: 200, headers: { etag: recordEtag(result.record) }, body: result.record } : undefined
    const result = await store.put(id, fieldsOf(request.body), condition, keep(stored))
    if (result.outcome === 'not-found') throw notFound(id)
    if (result.outcome === 'precondition-failed') throw preconditionFailed(request.headers, what(id))
    return stored(result) as WriteAnswer
  }))

  app.delete<{ Params: IdParams }>(`${resources}/:id`, {
    config: { rqs: { access: 'write' } },
    compress: false,
    schema: {
      operationId: `delete${one}`,
      tags,
      summary: `Delete a record of ${name} (204; If-Match honoured)`,
      params: idParams,
      'x-rqs': notes({ errors: ['INVALID_ID', 'RECORD_NOT_FOUND'], preconditions: 'write' }),
      response: { 204: noBody('Deleted. No body.') }
    }
  }, async (request, reply) => await answerOnce(request, reply, store, async (keep) => {
    const id = pathId(request.params.id)
    let condition: WriteCondition<StoredRecord> = NO_CONDITION
    if (hasPreconditions(request.headers)) {
      // RFC 9110 §13.2.1: a missing record is 404 whatever the preconditions say.
      const current = await store.get(id)
      if (current === undefined) throw notFound(id)
      const pinned = writeConditionFor(request.headers, current, recordEtag)
      if (pinned === undefined) throw preconditionFailed(request.headers, what(id))
      condition = pinned
    }
    const deleted = (result: DeleteResult): WriteAnswer | undefined => result.outcome === 'deleted' ? { status: 204 } : undefined
    const result = await store.delete(id, condition, keep(deleted))
    if (result.outcome === 'not-found') throw notFound(id)
    if (result.outcome === 'precondition-failed') throw preconditionFailed(request.headers, what(id))
    return deleted(result) as WriteAnswer
  }))
}

function pageBody (page: Page<StoredRecord>): { items: StoredRecord[], next?: string } {
  return page.next === undefined ? { items: page.items } : { items: page.items, next: page.next }
}

/**
 * A declared collection has one representation, served alike in every
 * version the server offers (as the address book's is): nothing in it
 * differs between versions.
 */
export function collectionRepresentations (name: string, versions: readonly number[]): Array<Representation<CollectionRoutesOptions>> {
  return versions.map((version) => ({
    version,
    plugin: collectionRoutes,
    errors: problems,
    methods: [[`/${name}`, ['GET', 'POST']], [`/${name}/:id`, ['GET', 'PUT', 'DELETE']]]
  }))
}
