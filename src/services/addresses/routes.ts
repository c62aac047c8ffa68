import type { FastifyInstance } from 'fastify'
import { MAX_INT64_ID, type RecordId } from '../../domain/index.js'
import { exactJsonParser, type Representation, vendorJsonPattern } from '../../http/rest/index.js'
import { AppError, problems } from '../../http/errors/index.js'
import { ACCEPTS_KEY, int64PathId } from '../../http/openapi/index.js'
import { recordRoutes, type RecordRoutesOptions } from '../records/routes.js'
import type { IdCodec, WirePolicy } from '../records/policy.js'
import { checkBodyId, parseAddressId } from './id.js'
import { Address, AddressCreateBody, AddressPage, AddressPutBody } from './schema.js'
import { ADDRESS_QUERY, addressLine, AddressListQuery } from './query.js'

export interface AddressRoutesOptions extends RecordRoutesOptions {
  /** Vendor name of the versioned media types, whose bodies are JSON too. */
  vendor: string
}

/**
 * Documents the path parameter; the id itself is parsed exactly (64-bit) by
 * the route, which answers INVALID_ID for anything else. A string here, so no
 * client turns it into a double.
 */
const ADDRESS_ID_TEXT = 'The address id: an integer 1 … 9223372036854775807 in plain decimal digits, no leading zero (anything else is 400 INVALID_ID).'

/** Address ids on the wire: 64-bit, exact in paths and bodies. */
const ADDRESS_IDS: IdCodec = {
  parse: (segment) => {
    const id = parseAddressId(segment)
    if (id === undefined) {
      throw new AppError('INVALID_ID', `"${segment.slice(0, 40)}" is not an address id: use an integer from 1 to 9223372036854775807 in plain decimal`)
    }
    return id
  },
  params: {
    type: 'object',
    // Any string: the route parses the id (INVALID_ID); the API description shows exactly what it takes.
    // The example is the largest id, one the service never hands out: the PUT example creates its own record
    // there and the GET and DELETE examples meet it, not a record someone made. (One only: a second would come
    // first among the document's named examples, which are ordered by JavaScript's rules for integer-like keys.)
    properties: { id: { type: 'string', description: ADDRESS_ID_TEXT, examples: [MAX_INT64_ID.toString()], [ACCEPTS_KEY]: int64PathId(MAX_INT64_ID.toString(), ADDRESS_ID_TEXT) } },
    required: ['id']
  },
  checkBody: (value, id) => {
    const check = checkBodyId(value, id as bigint)
    if (check === 'invalid') {
      const detail = 'body.id must be an integer in plain decimal digits'
      return new AppError('VALIDATION_FAILED', detail, { errors: [{ code: 'FIELD_TYPE', field: 'id', detail }] })
    }
    return check === 'different' ? new AppError('ID_MISMATCH', `body.id ${String(value)} differs from the path id ${String(id)}`) : undefined
  }
}

/**
 * The address book service (spec: "Address book service"), its collection at
 * `{prefix}/addresses`. POST creates a new record every time; PUT stores the
 * entity at its id (its declaration: putCreates, and an update keeps the
 * stored name, so the body may leave it out). Every error is an RFC 9457
 * problem. The record routes every collection shares (../records/routes.ts),
 * with this wire policy.
 */
export function addressPolicy (vendor: string): WirePolicy {
  return {
    resources: '/addresses',
    noun: 'address',
    ids: ADDRESS_IDS,
    notFound: { code: 'ADDRESS_NOT_FOUND', error: (id: RecordId) => new AppError('ADDRESS_NOT_FOUND', `No address has the id ${String(id)}`) },
    list: 'pages',
    replacedHeader: false,
    schemas: { record: Address, list: AddressPage, querystring: AddressListQuery, model: ADDRESS_QUERY, create: AddressCreateBody, put: AddressPutBody },
    line: addressLine,
    tags: ['addresses'],
    operations: {
      list: {
        operationId: 'listAddresses',
        summary: 'List addresses (paged; filter, sort, search; NDJSON with Accept: application/x-ndjson)',
        description: '`limit` per page (default 50, at most 500), ascending ids unless `sort` says otherwise. `next` and `Link: <…>; rel="next"` lead to the next page while there is one; `count=true` adds `X-Total-Count`. With `Accept: application/x-ndjson` the answer is every matching record, one a line (a `limit` caps it, with no maximum).',
        answer: 'A page of addresses.'
      },
      get: { operationId: 'getAddress', summary: 'Retrieve an address (ETag; If-None-Match → 304)', answer: 'The address, with its ETag.' },
      create: { operationId: 'createAddress', summary: 'Create an address (not idempotent: a new id every time)', answer: 'Created: the stored address; Location names it.' },
      replace: { operationId: 'putAddress', summary: 'Update city and postalCode (name kept), or create at this id; idempotent', answer: 'Updated: the stored address (its name kept).', created: 'Created at this id.' },
      delete: { operationId: 'deleteAddress', summary: 'Delete an address (204; If-Match honoured)', answer: 'Deleted. No body.' }
    },
    prepare: (app) => {
      // Only JSON bodies (plain or versioned), parsed so ids beyond 2^53 stay exact; any other Content-Type is 415.
      app.removeAllContentTypeParsers()
      app.addContentTypeParser('application/json', { parseAs: 'string' }, exactJsonParser)
      app.addContentTypeParser(vendorJsonPattern(vendor), { parseAs: 'string' }, exactJsonParser)
    }
  }
}

async function addressRoutes (app: FastifyInstance, opts: AddressRoutesOptions): Promise<void> {
  recordRoutes(app, addressPolicy(opts.vendor), opts)
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
    methods: [['/addresses', ['GET', 'POST', 'PATCH', 'DELETE']], ['/addresses/:id', ['GET', 'PUT', 'PATCH', 'DELETE']]]
  }
}

export const ADDRESS_REPRESENTATIONS = [addressRepresentation(1), addressRepresentation(2)]
