import type { FastifyInstance, FastifySchema, FastifySchemaCompiler } from 'fastify'
import type { RecordId } from '../../domain/index.js'
import { exactJsonParser, querystringSchema, vendorJsonPattern, type Representation } from '../../http/rest/index.js'
import { AppError, problems } from '../../http/errors/index.js'
import { ACCEPTS_KEY, SEQUENCE_PATH_ID, UUID_PATH_ID } from '../../http/openapi/index.js'
import { recordRoutes, type RecordRoutesOptions } from '../records/routes.js'
import type { Expansion, IdCodec, WirePolicy } from '../records/policy.js'
import { pageWithExpandMember, querystringWithExpand, withExpandMember } from './expand.js'
import type { CollectionSchema } from './declare.js'
import { createBody, lineOf, pageSchema, pascalOf, putBody, queryModel, recordSchema, singularOf } from './schema.js'
import { isUuid, sharedCollectionValidator } from './validation.js'

export interface CollectionRoutesOptions extends RecordRoutesOptions {
  collection: CollectionSchema
  /** Vendor name of the versioned media types, whose bodies are JSON too. */
  vendor: string
  /** The collection's validators, shared by its mounts (each schema compiled once); a fresh one when not given. */
  validator?: FastifySchemaCompiler<FastifySchema>
  /** `?expand=`, when the collection has relations (references from or to it). */
  expansion?: Expansion
}

const LIST_TEXT = '`limit` per page (default 50, at most 500), ascending ids unless `sort` says otherwise. `next` and `Link: <…>; rel="next"` lead to the next page while there is one; `count=true` adds `X-Total-Count`. With `Accept: application/x-ndjson` the answer is every matching record, one a line (a `limit` caps it). Optional fields filter but do not sort.'

/**
 * A declared collection at `{prefix}/<name>`, with the address book's
 * conventions: POST creates (201, Location, ETag), GET by id reads (ETag,
 * 304), PUT replaces an existing record (404 when missing), DELETE removes
 * it; If-Match / If-None-Match are a compare-and-set in the store; lists
 * page, filter, sort, search, count and stream NDJSON; Idempotency-Key
 * replays a write's answer. Bodies are checked with the declared schema.
 * The record routes every collection shares (../records/routes.ts), with
 * the wire policy its declaration gives.
 */
export function collectionPolicy (collection: CollectionSchema, vendor: string, validator: FastifySchemaCompiler<FastifySchema> = sharedCollectionValidator(), expansion?: Expansion): WirePolicy {
  const name = collection.declaration.name
  const one = singularOf(name)
  const many = pascalOf(name)
  const model = queryModel(collection)
  return {
    resources: `/${name}`,
    noun: name,
    ids: collection.declaration.ids === 'uuid' ? uuidIds(name) : sequenceIds(name),
    notFound: {
      code: 'RECORD_NOT_FOUND',
      error: (id) => {
        const detail = `No record of ${name} has the id ${String(id)}`
        return new AppError('RECORD_NOT_FOUND', detail, { errors: [{ code: 'RECORD_NOT_FOUND', field: `${name}/${String(id)}`, detail }] })
      }
    },
    list: 'pages',
    replacedHeader: false,
    // A unique key: a create or replace may be 409 (issue 29).
    ...(collection.rules.unique.length === 0 ? {} : { writeErrors: ['DUPLICATE_KEY'] as const }),
    schemas: expansion === undefined
      ? { record: recordSchema(collection), list: pageSchema(collection), querystring: querystringSchema(model), model, create: createBody(collection), put: putBody(collection) }
      : {
          record: withExpandMember(recordSchema(collection)),
          list: pageWithExpandMember(pageSchema(collection)),
          querystring: querystringWithExpand(querystringSchema(model), expansion.relations),
          expandQuery: querystringWithExpand(undefined, expansion.relations),
          model,
          create: createBody(collection),
          put: putBody(collection)
        },
    ...(expansion === undefined ? {} : { expand: expansion }),
    line: lineOf(collection),
    tags: [name],
    operations: {
      list: { operationId: `list${many}`, summary: `List ${name} (paged; filter, sort, search; NDJSON with Accept: application/x-ndjson)`, description: LIST_TEXT, answer: `A page of ${name}.` },
      get: { operationId: `get${one}`, summary: `Retrieve a record of ${name} (ETag; If-None-Match → 304)`, answer: 'The record, with its ETag.' },
      create: { operationId: `create${one}`, summary: `Create a record of ${name} (a new id every time; Idempotency-Key replays)`, answer: 'Created: the stored record; Location names it.' },
      replace: { operationId: `replace${one}`, summary: `Replace a record of ${name} (never creates: 404 when missing; If-Match honoured)`, answer: 'Replaced: the stored record.' },
      delete: { operationId: `delete${one}`, summary: `Delete a record of ${name} (204; If-Match honoured)`, answer: 'Deleted. No body.' }
    },
    prepare: (app) => {
      // Only JSON bodies (plain or versioned); any other Content-Type is 415.
      app.removeAllContentTypeParsers()
      app.addContentTypeParser('application/json', { parseAs: 'string' }, exactJsonParser)
      app.addContentTypeParser(vendorJsonPattern(vendor), { parseAs: 'string' }, exactJsonParser)
      // The declared formats (date, email, …) are checked by validators that know them.
      app.setValidatorCompiler(validator)
    }
  }
}

/** Sequence ids: canonical decimal 1 … 2^53 − 1. */
function sequenceIds (name: string): IdCodec {
  return {
    parse: (segment) => {
      if (/^[1-9][0-9]{0,15}$/.test(segment) && Number.isSafeInteger(Number(segment))) return Number(segment)
      throw new AppError('INVALID_ID', `"${segment.slice(0, 40)}" is not an id of ${name}: use an integer from 1 to ${Number.MAX_SAFE_INTEGER} in plain decimal`)
    },
    params: { type: 'object', properties: { id: { type: 'string', description: SEQUENCE_PATH_ID.description, examples: ['1'], [ACCEPTS_KEY]: SEQUENCE_PATH_ID } }, required: ['id'] },
    checkBody: (value, id) => value === id ? undefined : idMismatch(value, id)
  }
}

/** UUIDs, in any case in a path or body (read in lower case). */
function uuidIds (name: string): IdCodec {
  return {
    parse: (segment) => {
      const id = segment.toLowerCase()
      if (isUuid(id)) return id
      throw new AppError('INVALID_ID', `"${segment.slice(0, 40)}" is not an id of ${name}: use a UUID`)
    },
    params: { type: 'object', properties: { id: { type: 'string', description: UUID_PATH_ID.description, examples: ['0b6c1b8e-3f4a-4c2e-9d7a-5e8f1a2b3c4d'], [ACCEPTS_KEY]: UUID_PATH_ID } }, required: ['id'] },
    checkBody: (value, id) => typeof value === 'string' && value.toLowerCase() === id ? undefined : idMismatch(value, id)
  }
}

function idMismatch (value: unknown, id: RecordId): AppError {
  return new AppError('ID_MISMATCH', `body.id ${JSON.stringify(String(value)).slice(0, 60)} differs from the path id ${String(id)}`)
}

/**
 * The policy of each collection's routes, made once for all its mounts: it is the same in every version
 * and mount (its schemas are built with TypeBox, and building them on every mount was a tenth of a start
 * with 20 collections). Keyed by the routes' options, which a collection changed at run time makes anew.
 */
const policies = new WeakMap<CollectionRoutesOptions, WirePolicy>()

async function collectionRoutes (app: FastifyInstance, opts: CollectionRoutesOptions): Promise<void> {
  let policy = policies.get(opts)
  if (policy === undefined) policies.set(opts, policy = collectionPolicy(opts.collection, opts.vendor, opts.validator, opts.expansion))
  recordRoutes(app, policy, opts)
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
    methods: [[`/${name}`, ['GET', 'POST', 'PATCH', 'DELETE']], [`/${name}/:id`, ['GET', 'PUT', 'PATCH', 'DELETE']]]
  }))
}
