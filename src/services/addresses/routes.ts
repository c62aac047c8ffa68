import type { FastifyInstance } from 'fastify'
import { IF_PRESENT, MAX_ADDRESS_ID, NO_CONDITION, type Address as StoredAddress, type AddressStore, type DeleteResult, type PutResult, type WriteCondition } from '../../domain/index.js'
import { conditionalRead, hasPreconditions, preconditionFailed, writeConditionFor, exactJsonParser, answerOnce, type WriteAnswer, type Representation, vendorJsonPattern, parseListQuery, pageHeaders, readPage, sendStream, csvColumns, type Page, isRevisioned, type KeptPages } from '../../http/rest/index.js'
import { AppError, problems } from '../../http/errors/index.js'
import type { AddressEtags } from './etag.js'
import { checkBodyId, parseAddressId } from './id.js'
import { Address, AddressCreateBody, AddressPage, AddressPutBody, type IdParams } from './schema.js'
import { ADDRESS_QUERY, addressLine, AddressListQuery } from './query.js'
import { ACCEPTS_KEY, answer, int64PathId, noBody, type OperationNotes } from '../../http/openapi/index.js'
export interface AddressRoutesOptions {
  store: AddressStore
  /** Vendor name of the versioned media types, whose bodies are JSON too. */
  vendor: string
  /** Pages serialised once per store revision (memory store), kept by this server. */
  pages: KeptPages
  /** ETags by record object, kept by this server. */
  etags: AddressEtags
}

const tags = ['addresses']
/**
 * Documents the path parameter; the id itself is parsed exactly (64-bit) by
 * the route, which answers INVALID_ID for anything else. A string here, so no
 * client turns it into a double.
 */
const ADDRESS_ID_TEXT = 'The address id: an integer 1 … 9223372036854775807 in plain decimal digits, no leading zero (anything else is 400 INVALID_ID).'
const IdParamsSchema = {
  type: 'object',
  // Any string: the route parses the id (INVALID_ID); the API description shows exactly what it takes.
  properties: { id: { type: 'string', description: ADDRESS_ID_TEXT, examples: ['1', '9223372036854775807'], [ACCEPTS_KEY]: int64PathId(MAX_ADDRESS_ID.toString(), ADDRESS_ID_TEXT) } },
  required: ['id']
} as const
/** For the API description: problem details (the default shape), and every route reads or writes records. */
const notes = (extra: OperationNotes = {}): OperationNotes => ({ store: true, ...extra })

/**
 * The address book service (spec: "Address book service"), its collection at
 * `{prefix}/addresses`. POST creates a new record every time; PUT stores the
 * entity at its id (update keeps the stored name; create uses the path id).
 * Every error is an RFC 9457 problem (src/http/problem.ts). Reads carry a
 * strong ETag; PUT and DELETE honour If-Match / If-None-Match with an atomic
 * compare-and-set in the store, so no update is lost to a race.
 */
async function addressRoutes (app: FastifyInstance, opts: AddressRoutesOptions): Promise<void> {
  const { store } = opts
  const addressEtag = opts.etags.of
  const collection = `${app.prefix}/addresses`

  // Only JSON bodies (plain or versioned), parsed so ids beyond 2^53 stay exact; any other Content-Type is 415.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, exactJsonParser)
  app.addContentTypeParser(vendorJsonPattern(opts.vendor), { parseAs: 'string' }, exactJsonParser)

  app.get<{ Querystring: Record<string, unknown> }>('/addresses', {
    schema: {
      operationId: 'listAddresses',
      tags,
      summary: 'List addresses (paged; filter, sort, search; NDJSON with Accept: application/x-ndjson)',
      description: '`limit` per page (default 50, at most 500), ascending ids unless `sort` says otherwise. `next` and `Link: <…>; rel="next"` lead to the next page while there is one; `count=true` adds `X-Total-Count`. With `Accept: application/x-ndjson` the answer is every matching record, one a line (a `limit` caps it, with no maximum).',
      querystring: AddressListQuery,
      'x-rqs': notes({ errors: ['INVALID_QUERY', 'INVALID_CURSOR'], headers: { 200: ['Link', 'X-Total-Count'] } }),
      response: { 200: answer(AddressPage, 'A page of addresses.') }
    },
    config: { streams: true, rqs: { access: 'read' } }
  }, async (request, reply) => {
    const list = parseListQuery(ADDRESS_QUERY, request.query, request.stream === undefined ? 'page' : 'stream')
    const addresses = { store, path: collection }
    if (request.stream !== undefined) return await sendStream(reply, addresses, list, request.stream, { line: addressLine, columns: csvColumns(ADDRESS_QUERY) })
    if (isRevisioned(store)) return await opts.pages.send(reply, { store, path: collection }, list, request.url, pageBody)
    const page = await readPage(addresses, list)
    pageHeaders(reply, page)
    return pageBody(page)
  })

  app.get<{ Params: IdParams }>('/addresses/:id', {
    config: { rqs: { access: 'read' } },
    compress: false, // one record: always small (src/http/compression.ts)
    schema: {
      operationId: 'getAddress',
      tags,
      summary: 'Retrieve an address (ETag; If-None-Match → 304)',
      params: IdParamsSchema,
      'x-rqs': notes({ errors: ['INVALID_ID', 'ADDRESS_NOT_FOUND'], preconditions: 'read', headers: { 200: ['ETag'] } }),
      response: { 200: answer(Address, 'The address, with its ETag.') }
    }
  }, async (request, reply) => {
    const id = pathId(request.params.id)
    const address = await store.get(id)
    if (address === undefined) throw notFound(id)
    const outcome = conditionalRead(request, reply, addressEtag(address))
    if (outcome === 'not-modified') return reply
    if (outcome === 'failed') throw preconditionFailed(request.headers, `address ${id}`)
    return address
  })

  app.post<{ Body: AddressCreateBody }>('/addresses', {
    compress: false, // one record: always small (src/http/compression.ts)
    config: { rqs: { access: 'write' } },
    schema: {
      operationId: 'createAddress',
      tags,
      summary: 'Create an address (not idempotent: a new id every time)',
      body: AddressCreateBody,
      'x-rqs': notes({ headers: { 201: ['Location', 'ETag'] } }),
      response: { 201: answer(Address, 'Created: the stored address; Location names it.') }
    }
  }, async (request, reply) => await answerOnce(request, reply, store, async (keep) => {
    const { name, city, postalCode } = request.body
    const created = (address: StoredAddress): WriteAnswer => ({ status: 201, headers: { location: `${collection}/${address.id}`, etag: addressEtag(address) }, body: address })
    return created(await store.create({ name, city, postalCode }, keep(created)))
  }))

  app.put<{ Params: IdParams, Body: AddressPutBody }>('/addresses/:id', {
    config: { rqs: { access: 'write' } },
    compress: false, // one record: always small (src/http/compression.ts)
    schema: {
      operationId: 'putAddress',
      tags,
      summary: 'Update city and postalCode (name kept), or create at this id; idempotent',
      params: IdParamsSchema,
      body: AddressPutBody,
      'x-rqs': notes({ errors: ['INVALID_ID', 'ID_MISMATCH'], preconditions: 'write', headers: { 200: ['ETag'], 201: ['Location', 'ETag'] } }),
      response: { 200: answer(Address, 'Updated: the stored address (its name kept).'), 201: answer(Address, 'Created at this id.') }
    }
  }, async (request, reply) => await answerOnce(request, reply, store, async (keep) => {
    const id = pathId(request.params.id)
    const body = request.body
    if (body.id !== undefined) {
      const check = checkBodyId(body.id, id)
      if (check === 'invalid') throw fieldProblem('FIELD_TYPE', 'id', 'body.id must be an integer in plain decimal digits')
      if (check === 'different') throw new AppError('ID_MISMATCH', `body.id ${String(body.id)} differs from the path id ${id}`)
    }
    const conditional = hasPreconditions(request.headers)
    let name = body.name
    let condition: WriteCondition<StoredAddress> = NO_CONDITION
    if (conditional || name === undefined) {
      // Read first only when a precondition or a missing name makes the current record matter.
      const current = await store.get(id)
      if (current === undefined && name === undefined) throw nameRequired()
      if (conditional) {
        // Pin the write to the state the precondition was checked against: compare-and-set in the store.
        const pinned = writeConditionFor(request.headers, current, addressEtag)
        if (pinned === undefined) throw preconditionFailed(request.headers, `address ${id}`)
        condition = pinned
      } else {
        condition = IF_PRESENT // no name: only an update may happen
      }
      name ??= (current as StoredAddress).name
    }
    const stored = (result: PutResult): WriteAnswer | undefined => {
      if (result.outcome === 'precondition-failed') return undefined
      const etag = addressEtag(result.record)
      if (result.outcome === 'created') return { status: 201, headers: { etag, location: `${collection}/${id}` }, body: result.record }
      return { status: 200, headers: { etag }, body: result.record }
    }
    const result = await store.put(id, { name, city: body.city, postalCode: body.postalCode }, condition, keep(stored))
    if (result.outcome === 'precondition-failed') {
      // Changed between our read and the write: the client's precondition no longer holds,
      // or (no name, no precondition) the record vanished and a create needs the name.
      throw conditional ? preconditionFailed(request.headers, `address ${id}`) : nameRequired()
    }
    return stored(result) as WriteAnswer
  }))

  app.delete<{ Params: IdParams }>('/addresses/:id', {
    config: { rqs: { access: 'write' } },
    compress: false, // one record: always small (src/http/compression.ts)
    schema: {
      operationId: 'deleteAddress',
      tags,
      summary: 'Delete an address (204; If-Match honoured)',
      params: IdParamsSchema,
      'x-rqs': notes({ errors: ['INVALID_ID', 'ADDRESS_NOT_FOUND'], preconditions: 'write' }),
      response: { 204: noBody('Deleted. No body.') }
    }
  }, async (request, reply) => await answerOnce(request, reply, store, async (keep) => {
    const id = pathId(request.params.id)
    let condition: WriteCondition<StoredAddress> = NO_CONDITION
    if (hasPreconditions(request.headers)) {
      // RFC 9110 §13.2.1: a missing record is 404 whatever the preconditions say.
      const current = await store.get(id)
      if (current === undefined) throw notFound(id)
      const pinned = writeConditionFor(request.headers, current, addressEtag)
      if (pinned === undefined) throw preconditionFailed(request.headers, `address ${id}`)
      condition = pinned
    }
    const deleted = (result: DeleteResult): WriteAnswer | undefined => result.outcome === 'deleted' ? { status: 204 } : undefined
    const result = await store.delete(id, condition, keep(deleted))
    if (result.outcome === 'not-found') throw notFound(id)
    if (result.outcome === 'precondition-failed') throw preconditionFailed(request.headers, `address ${id}`)
    return deleted(result) as WriteAnswer
  }))
}

/** A page's representation: `next` only when another page follows. */
function pageBody (page: Page<StoredAddress>): { items: StoredAddress[], next?: string } {
  return page.next === undefined ? { items: page.items } : { items: page.items, next: page.next }
}

function pathId (segment: string): bigint {
  const id = parseAddressId(segment)
  if (id === undefined) {
    throw new AppError('INVALID_ID', `"${segment.slice(0, 40)}" is not an address id: use an integer from 1 to 9223372036854775807 in plain decimal`)
  }
  return id
}

function notFound (id: bigint): AppError {
  return new AppError('ADDRESS_NOT_FOUND', `No address has the id ${id}`)
}

function nameRequired (): AppError {
  return fieldProblem('FIELD_REQUIRED', 'name', 'body.name is required when the PUT creates the record')
}

function fieldProblem (code: 'FIELD_REQUIRED' | 'FIELD_TYPE', field: string, detail: string): AppError {
  return new AppError('VALIDATION_FAILED', detail, { errors: [{ code, field, detail }] })
}

/**
 * Version 1 of the address book. Version 2 of the API serves the very same
 * representation: nothing in it broke, so nothing changed (spec, rule 1).
 */
function addressRepresentation (version: number): Representation<AddressRoutesOptions> {
  return {
    version,
    plugin: addressRoutes,
    errors: problems,
    methods: [['/addresses', ['GET', 'POST']], ['/addresses/:id', ['GET', 'PUT', 'DELETE']]]
  }
}

export const ADDRESS_REPRESENTATIONS = [addressRepresentation(1), addressRepresentation(2)]
