import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify'
import { allOf, callerKey, IF_PRESENT, NO_CONDITION, writeAllowed, type Caller, type CollectionAccess, type CreateResult, type RecordFilter, type ReferenceFilter, type DeleteResult, type RecordId, type RecordInput, type QueryableStore, type RecordStore, type RecordStores, type StoreRevision, type StoredRecord, type WriteCondition, type WriteResult } from '../../domain/index.js'
import {
  ARRAY_FRAME, answerOnce, exactJsonParser, conditionalRead, csvColumns, hasPreconditions, isRevisioned, pageHeaders, parseListQuery, preconditionFailed, readPage,
  sendJsonList, sendStream, streamsWhole, writeConditionFor, JSON_TYPE, type Keep, type KeptLists, type KeptPages, type ListRequest, type Page, type RecordEtags, type WriteAnswer
} from '../../http/rest/index.js'
import { AppError, type ErrorCode } from '../../http/errors/index.js'
import { FilterCache, type CollectionModel } from '../../records/index.js'
import { aggregateQuery, aggregateRoute } from './aggregate.js'
import { Projection, withFields } from './projection.js'
import { answer, noBody, type OperationNotes } from '../../http/openapi/index.js'
import type { ExpandedRecord } from '../../records/index.js'
import type { AskedExpansion, Expansion, Operation, WirePolicy } from './policy.js'
import { patchedRecord } from '../../data/patch.js'
import { narrowedFilter, ownedInput, permittedCreate, permittedWhere, requestCaller, ruleDenied, viewAllowed, visibleRecord, visibleStore } from './access.js'
import { bodyMembers, bodyValidator, bulkInputs, checkPatch, checkRecord, isObject, MAX_BULK_RECORDS, MERGE_PATCH_TYPE, readOnlyFields, refuseUnknownMembers } from './bodies.js'

/**
 * The REST routes of every collection (students v2, the address book,
 * declared collections): one function per handler, each built once per
 * route at registration from the collection's wire policy (./policy.ts) and
 * its declaration (the store's), so a request pays for no policy lookups.
 *
 * GET lists (paged; filter, sort, search; NDJSON and CSV streams) and reads
 * by id with a strong ETag (304 on If-None-Match); POST creates (201,
 * Location, ETag); PUT replaces an existing record, or creates it where the
 * declaration's putCreates says so; DELETE removes (204). If-Match /
 * If-None-Match pin a write to the record they were checked against
 * (compare-and-set in the store); Idempotency-Key replays a write's answer.
 * PATCH merges a patch (RFC 7396) into a record; POST of a JSON array creates
 * every record or none (./bodies.ts). A write body's member that is not a
 * field of the record is refused (FIELD_UNKNOWN, with "did you mean").
 */

/** What the routes of a collection get (one set per server and collection). */
export interface RecordRoutesOptions {
  records: RecordStore
  /** ETags by record object, kept by this server (src/http/rest/record-etags.ts). */
  etags: RecordEtags
  /** Pages serialised once per store revision (memory store), kept by this server. */
  pages: KeptPages
  /** Whole lists serialised once per store revision (`list: 'whole'`), kept by this server. */
  lists: KeptLists
}

/** A record route's request: the id in the path, a JSON object body. */
export type IdRequest = FastifyRequest<{ Params: { id: string } }>
type BodyRequest = FastifyRequest<{ Params: { id: string }, Body: Record<string, unknown> }>

/** What every handler of one collection shares, computed once at registration. */
export interface RouteContext {
  policy: WirePolicy
  store: RecordStore
  /** The records' URL path (Location, `next` links): the mount's prefix and the policy's resources. */
  path: string
  etagOf: (record: StoredRecord) => string
  options: RecordRoutesOptions
  /** `fields=`: the records narrowed to some fields (./projection.ts). */
  projection: Projection
  /** `filter=` texts already read for this collection: a repeated filter is not parsed again (rules still narrow each request). */
  filters: FilterCache
}

/** Registers list, get, create, replace and delete of one collection in `app` (a mount's scope). */
export function recordRoutes (app: FastifyInstance, policy: WirePolicy, options: RecordRoutesOptions): RouteContext {
  const collection: RouteContext = { policy, store: options.records, path: `${app.prefix}${policy.resources}`, etagOf: options.etags.of, options, projection: new Projection(policy.schemas.model, policy.schemas.record), filters: new FilterCache(policy.schemas.model) }
  const { resources, ids, tags, operations: ops, schemas, notFound } = policy
  const { putCreates } = collection.store.declaration
  const many = resources === '' ? '/' : resources
  const one = `${resources}/:id`
  const described = (op: Operation): { operationId: string, tags: string[], summary: string, description?: string } =>
    op.description === undefined ? { operationId: op.operationId, tags, summary: op.summary } : { operationId: op.operationId, tags, summary: op.summary, description: op.description }
  const queries = routeSchemasOf(policy, collection.store.declaration.keptOnUpdate)
  policy.prepare(app)
  // RFC 7396 patches are JSON; a POST or PUT sent as one is refused (checkBody).
  app.addContentTypeParser(MERGE_PATCH_TYPE, { parseAs: 'string' }, exactJsonParser)
  const checkBody = bodyCheck(bodyMembers(collection.store.declaration))
  // Under record rules (docs/rules.md) a write may be refused by a rule, or for naming another owner.
  const { access } = collection.store.declaration
  const ruleErrors: ErrorCode[] = access === undefined ? [] : ['RULE_DENIED', ...(access.owner === undefined ? [] : ['OWNER_MISMATCH' as const])]

  app.get(many, {
    schema: {
      ...described(ops.list),
      querystring: queries.list,
      'x-rqs': notes({ errors: ['INVALID_QUERY', 'INVALID_CURSOR'], headers: { 200: ['Link', 'X-Total-Count'] } }),
      response: { 200: answer(schemas.list, ops.list.answer) }
    },
    config: { streams: true, rqs: { access: 'read' } }
  }, policy.list === 'whole' ? listWhole(collection) : listPages(collection))

  // A static path: the router prefers it to `/:id`, and no id codec reads `aggregate` as an id.
  if (policy.aggregates !== false) aggregateRoute(app, policy, collection.store, `${resources}/aggregate`, queries.aggregate)

  app.get(one, {
    config: { rqs: { access: 'read' } },
    compress: false, // one record: always small (src/http/compression.ts)
    schema: {
      ...described(ops.get),
      params: ids.params,
      querystring: queries.record,
      'x-rqs': notes({ errors: policy.expand === undefined ? ['INVALID_ID', notFound.code] : ['INVALID_ID', 'INVALID_QUERY', notFound.code], preconditions: 'read', headers: { 200: ['ETag'] } }),
      response: { 200: answer(schemas.record, ops.get.answer) }
    }
  }, getRecord(collection))

  app.post(many, {
    compress: false, // one record: always small (src/http/compression.ts)
    config: { rqs: { access: 'write' } },
    preValidation: checkBody,
    // A JSON array is a bulk create, its items validated by the handler (naming `/index/field`).
    attachValidation: true,
    schema: {
      ...described(ops.create),
      description: `${ops.create.description === undefined ? '' : `${ops.create.description} `}A JSON array of up to ${MAX_BULK_RECORDS} records is a bulk create: all or nothing (a bad item refuses the request, its entries naming \`/index/field\`), 201 with the created records in order; Idempotency-Key replays it as one write.`,
      body: schemas.create,
      'x-rqs': notes({
        errors: [...(policy.writeErrors ?? []), ...referenceErrors(policy), 'BULK_SIZE', ...ruleErrors],
        headers: { 201: policy.replacedHeader ? ['Location', 'ETag', 'Replaced-Record'] : ['Location', 'ETag'] },
        alternatives: { 201: { schema: { type: 'array', items: schemas.record, description: 'A bulk create: the created records, in the order sent.' }, headers: 'Not sent for a bulk create (an array).' } }
      }),
      response: { 201: answer(schemas.record, ops.create.answer) }
    }
  }, createRecord(collection))

  app.put(one, {
    config: { rqs: { access: 'write' } },
    compress: false, // one record: always small (src/http/compression.ts)
    preValidation: checkBody,
    schema: {
      ...described(ops.replace),
      params: ids.params,
      body: schemas.put,
      'x-rqs': notes(putCreates
        ? { errors: ['INVALID_ID', 'ID_MISMATCH', ...policy.writeErrors ?? [], ...referenceErrors(policy)], preconditions: 'write', headers: { 200: ['ETag'], 201: ['Location', 'ETag'] } }
        : { errors: ['INVALID_ID', 'ID_MISMATCH', notFound.code, ...policy.writeErrors ?? [], ...referenceErrors(policy), ...ruleErrors], preconditions: 'write', headers: { 200: ['ETag'] } }),
      response: putCreates
        ? { 200: answer(schemas.record, ops.replace.answer), 201: answer(schemas.record, ops.replace.created ?? 'Created at this id.') }
        : { 200: answer(schemas.record, ops.replace.answer) }
    }
  }, putRecord(collection))

  const { patchBody, where } = queries
  app.patch(one, {
    config: { rqs: { access: 'write' } },
    compress: false, // one record: always small (src/http/compression.ts)
    preValidation: checkBody,
    schema: {
      operationId: ops.replace.operationId.replace(/^(replace|put)/, 'patch'),
      tags,
      summary: `Change some fields of a record (merge patch, RFC 7396; If-Match honoured)`,
      description: 'Send `application/merge-patch+json` (or `application/json`): a member sent replaces the field, `null` removes an optional field (a required one set to null is 400 FIELD_REQUIRED), a member left out keeps its value. The merged record is checked as a create body is. Fields an update keeps (the address book\'s `name`) cannot change (400). Never creates: 404 when missing; If-Match / If-None-Match as for PUT; Idempotency-Key replays.',
      params: ids.params,
      body: { content: { [JSON_TYPE]: { schema: patchBody }, [MERGE_PATCH_TYPE]: { schema: patchBody } } },
      'x-rqs': notes({ errors: ['INVALID_ID', 'ID_MISMATCH', notFound.code, ...ruleErrors], preconditions: 'write', headers: { 200: ['ETag'] } }),
      response: { 200: answer(schemas.record, 'The record as patched, with its new ETag.') }
    }
  }, patchRecord(collection))

  const changed = { 200: { type: 'object', title: 'Changed', description: 'How many records the write changed.', properties: { changed: { type: 'integer', minimum: 0 } }, required: ['changed'], additionalProperties: false, examples: [{ changed: 2 }] } }
  app.patch(many, {
    config: { rqs: { access: 'write' } },
    preValidation: checkBody,
    schema: {
      operationId: `patch${ops.list.operationId.replace(/^list/, '')}Where`,
      tags,
      summary: 'Merge one patch into every record a filter selects (one transaction; all=true for every record)',
      description: 'The list\'s filters (`field=value`, `field[op]=value`, `q`) select the records; the patch (RFC 7396) is merged into each, all in one transaction, with a change on the feed for each. Without any filter the request is refused (400 FILTER_REQUIRED) unless `all=true`. The patch may not name the id or a field an update keeps. Answers `{"changed": n}`.',
      querystring: where,
      body: { content: { [JSON_TYPE]: { schema: patchBody }, [MERGE_PATCH_TYPE]: { schema: patchBody } } },
      'x-rqs': notes({ errors: ['INVALID_QUERY', 'FILTER_REQUIRED', ...ruleErrors] }),
      response: changed
    }
  }, writeWhere(collection, 'patch'))

  app.delete(many, {
    config: { rqs: { access: 'write' } },
    schema: {
      operationId: `delete${ops.list.operationId.replace(/^list/, '')}Where`,
      tags,
      summary: 'Delete every record a filter selects (one transaction; all=true for every record)',
      description: 'The list\'s filters (`field=value`, `field[op]=value`, `q`) select the records, deleted in one transaction with a change on the feed for each. Without any filter the request is refused (400 FILTER_REQUIRED) unless `all=true`. Answers `{"changed": n}`.',
      querystring: where,
      'x-rqs': notes({ errors: ['INVALID_QUERY', 'FILTER_REQUIRED', ...ruleErrors] }),
      response: changed
    }
  }, writeWhere(collection, 'delete'))

  app.delete(one, {
    config: { rqs: { access: 'write' } },
    compress: false, // one record: always small (src/http/compression.ts)
    schema: {
      ...described(ops.delete),
      params: ids.params,
      'x-rqs': notes({ errors: [...(policy.expand?.referred === true ? ['INVALID_ID', notFound.code, 'RECORD_REFERENCED'] as ErrorCode[] : ['INVALID_ID', notFound.code] as ErrorCode[]), ...(access === undefined ? [] : ['RULE_DENIED' as const])], preconditions: 'write' }),
      response: { 204: noBody(ops.delete.answer) }
    }
  }, deleteRecord(collection))
  return collection
}

/** The schemas a collection's routes derive from its policy, on every mount. */
interface RouteSchemas {
  list: Record<string, unknown>
  record: Record<string, unknown>
  aggregate: Record<string, unknown>
  where: Record<string, unknown>
  patchBody: Record<string, unknown>
}

/**
 * Made once per policy and shared by every mount of the collection (each version at the base, /v1, /v2):
 * the same objects, which a shared validator knows by identity. Made anew on every mount, each was
 * serialised to be recognised, and building them again was a part of a start with many collections.
 */
const routeSchemas = new WeakMap<WirePolicy, RouteSchemas & { kept: readonly string[] }>()

function routeSchemasOf (policy: WirePolicy, kept: readonly string[]): RouteSchemas {
  const found = routeSchemas.get(policy)
  if (found !== undefined && found.kept === kept) return found
  const { schemas } = policy
  const made = {
    kept,
    list: withFields(schemas.querystring),
    record: withFields(policy.expand === undefined ? undefined : schemas.expandQuery),
    aggregate: filteredWriteQuery(schemas.querystring, 'aggregate', schemas.model),
    where: filteredWriteQuery(schemas.querystring),
    patchBody: mergePatchSchema(policy, kept)
  }
  routeSchemas.set(policy, made)
  return made
}

/** A PATCH body as the API description shows it: any object, its example one field (not a kept one) of the create example. */
function mergePatchSchema ({ schemas }: WirePolicy, kept: readonly string[]): Record<string, unknown> {
  const example = (schemas.create as { examples?: unknown[] }).examples?.[0]
  const schema: Record<string, unknown> = { type: 'object', description: 'Some fields of the record (RFC 7396): each member sent replaces the field, null removes an optional one.' }
  if (isObject(example)) {
    const field = Object.keys(example).find((f) => f !== 'id' && !kept.includes(f))
    if (field !== undefined) schema.examples = [{ [field]: example[field] }]
  }
  return schema
}

/** A write's refusal through references, for the API description. */
function referenceErrors (policy: WirePolicy): ErrorCode[] {
  return policy.expand?.refers === true ? ['REFERENCE_NOT_FOUND'] : []
}

/** For the API description: problem details (the default shape), and every route reads or writes records. */
function notes (extra: OperationNotes): OperationNotes {
  return { store: true, ...extra }
}

/** A list that is every record without parameters (an array), and a page `{items, next}` with `limit`. */
function listWhole ({ policy, store, path, options, projection, filters }: RouteContext): RouteHandlerMethod {
  const { model, array, page: pageSchema } = policy.schemas
  if (array === undefined || pageSchema === undefined) throw new TypeError('a whole list needs the schemas of its array and its page')
  const everyone = { store, path: path === '' ? '/' : path }
  const writers = { line: policy.line, columns: csvColumns(model) }
  const every = everyRecord(store)
  const { access } = store.declaration
  return async function listRecords (request, reply) {
    // A serializer of our own leaves the content type to us: JSON unless a vendor type was negotiated.
    if (reply.getHeader('content-type') === undefined) reply.type(JSON_TYPE)
    // Under rules the whole list is the caller's own (docs/rules.md): read as a narrowed list, never a kept one.
    const caller = access === undefined ? undefined : requestCaller(request)
    // Serialised by the schema of the shape sent (one union schema would test every record against both).
    if (caller === undefined && request.stream === undefined && Object.keys(request.query as object).length === 0) {
      if (isRevisioned(every)) return await options.lists.send(reply, every, ARRAY_FRAME)
      if (await streamsWhole(store)) return await sendJsonList(reply, store, ARRAY_FRAME)
      return reply.serializer(reply.compileSerializationSchema(array)).send(await every.list())
    }
    const records = caller === undefined ? everyone : { store: visibleStore(store, access as CollectionAccess, caller), path: everyone.path }
    const { query, fields } = projection.split(request.query as Record<string, unknown>)
    let list = parseListQuery(model, query, request.stream === undefined ? 'page' : 'stream', filters)
    if (caller !== undefined) list = { ...list, filter: narrowedFilter(access as CollectionAccess, caller, list.filter, { sort: list.sort }) }
    if (fields !== undefined) return await sendProjected(request, reply, projection, records, list, fields, writers)
    if (request.stream !== undefined) return await sendStream(reply, records, list, request.stream, writers)
    const page = await readPage(records, list)
    pageHeaders(reply, page)
    if (list.pageSize === undefined) return reply.serializer(reply.compileSerializationSchema(array)).send(page.items)
    return reply.serializer(reply.compileSerializationSchema(pageSchema)).send(pageBody(page))
  }
}

/** A list that is always a page: `limit` per page (a default and a maximum), `next` while another follows. */
function listPages ({ policy, store, path, options, projection, filters }: RouteContext): RouteHandlerMethod {
  const { model } = policy.schemas
  const { access } = store.declaration
  const everyone = { store, path }
  const writers = { line: policy.line, columns: csvColumns(model) }
  return async function listRecords (request, reply) {
    // Under rules a list is the caller's own (docs/rules.md): narrowed, its records' guarded fields hidden, never a kept page.
    const caller = access === undefined ? undefined : requestCaller(request)
    const records = caller === undefined ? everyone : { store: visibleStore(store, access as CollectionAccess, caller), path }
    const { query: unprojected, fields } = projection.split(request.query as Record<string, unknown>)
    const expanded = expansionAsked(policy.expand, unprojected)
    const asked = expanded?.query ?? unprojected
    // A filter through a reference sees only the target records the caller may list (docs/rules.md).
    const through = policy.expand?.through(asked, caller ?? requestCaller(request))
    let list = parseListQuery(model, through?.rest ?? asked, request.stream === undefined ? 'page' : 'stream', filters)
    if (through !== undefined || expanded !== undefined) {
      // What the list's own parser does not know: carried on by next links as the client sent it.
      const carried: Array<[string, string]> = [...list.carried, ...through?.carried ?? [], ...(expanded === undefined ? [] : [['expand', expanded.text] as [string, string]])]
      list = { ...list, filter: through === undefined ? list.filter : withThrough(list.filter, through.filters, through.own), carried }
    }
    if (caller !== undefined) list = { ...list, filter: narrowedFilter(access as CollectionAccess, caller, list.filter, { sort: list.sort }) }
    if (expanded !== undefined) {
      if (fields !== undefined) throw new AppError('INVALID_QUERY', 'fields and expand: ask for one of them (a projection of expanded records is not supported)')
      // The targets an expansion adds follow their own collection's rules, whether this one has any or not.
      const reader = caller ?? requestCaller(request)
      if (request.stream === 'ndjson') return await sendStream(reply, { store: expandedStore(records.store, expanded, reader), path }, list, request.stream, { ...writers, line: jsonLine })
      if (request.stream === undefined) {
        // Kept as the plain page is, while neither this store nor any store the expansion reads is written.
        const kept = through === undefined && caller === undefined && isRevisioned(store) ? expanded.expansion.keptRevision(expanded.asked, store.revision) : undefined
        if (kept === undefined) return await expandedPage(reply, records, list, expanded, reader)
        const serialize = reply.compileSerializationSchema(expanded.asked.page as Record<string, unknown>)
        return await options.pages.send(reply, { store: withRevision(store, kept), path }, list, request.url, async (page) => await expandedBody(page, expanded, reader), (body) => serialize(body as Record<string, unknown>))
      }
    }
    // A projection is never a kept page (those hold whole records): it reads and writes its own.
    if (fields !== undefined) return await sendProjected(request, reply, projection, records, list, fields, writers)
    if (request.stream !== undefined) return await sendStream(reply, records, list, request.stream, writers)
    // A kept page answers for the store's revision: one filtered through references depends on other collections too.
    if (through === undefined && caller === undefined && isRevisioned(store)) return await options.pages.send(reply, { store, path }, list, request.url, pageBody)
    const page = await readPage(records, list)
    pageHeaders(reply, page)
    return pageBody(page)
  }
}

/** An `expand` asked for on a collection with relations: its relations, the expansion, and the query without it. */
interface Expanded { asked: AskedExpansion, expansion: Expansion, text: string, query: Record<string, unknown> }

function expansionAsked (expansion: Expansion | undefined, query: unknown): Expanded | undefined {
  const given = query as Record<string, unknown>
  if (expansion === undefined || typeof given.expand !== 'string') return undefined
  const { expand: text, ...rest } = given
  return { asked: expansion.parse(text), expansion, text, query: rest }
}

/** A page with each record's `expand` (one store query per relation for the page), written by the serializer of this expansion's shape. */
async function expandedPage (reply: FastifyReply, records: { store: QueryableStore<StoredRecord, string>, path: string }, list: ReturnType<typeof parseListQuery>, expanded: Expanded, caller: Caller | undefined): Promise<unknown> {
  const page = await readPage(records, list)
  pageHeaders(reply, page)
  return sendShaped(reply, expanded.asked.page, await expandedBody(page, expanded, caller))
}

async function expandedBody (page: Page<StoredRecord>, { asked: { nodes }, expansion }: Expanded, caller: Caller | undefined): Promise<unknown> {
  const items = await expansion.apply(nodes, page.items, caller)
  return page.next === undefined ? { items } : { items, next: page.next }
}

/** The store read under another revision (an expanded page's, which other stores' writes move on too). */
function withRevision (store: QueryableStore<StoredRecord, string>, revision: StoreRevision): QueryableStore<StoredRecord, string> & { revision: StoreRevision } {
  return {
    query: async (query) => await store.query(query),
    count: async (filter) => await store.count(filter),
    batches: (query) => store.batches(query),
    importAll: async () => { throw new TypeError('a list read under another revision is read only') },
    revision
  }
}

/** A body written by the serializer of its own schema (compiled once per route and schema object). */
function sendShaped (reply: FastifyReply, schema: unknown, body: unknown): FastifyReply {
  // A serializer of our own leaves the content type to us: JSON unless a vendor type was negotiated.
  if (reply.getHeader('content-type') === undefined) reply.type(JSON_TYPE)
  return reply.serializer(reply.compileSerializationSchema(schema as Record<string, unknown>)).send(body)
}

/** The store as an NDJSON stream reads it, each batch expanded (one store query per relation per batch). */
function expandedStore (store: QueryableStore<StoredRecord, string>, { asked: { nodes }, expansion }: Expanded, caller: Caller | undefined): QueryableStore<ExpandedRecord, string> {
  return {
    query: async (query) => await expansion.apply(nodes, await store.query(query), caller),
    count: store.count.bind(store),
    batches: async function * (query) { for await (const batch of store.batches(query)) yield await expansion.apply(nodes, batch, caller) },
    importAll: async () => { throw new TypeError('an expanded list is read only') }
  }
}

function jsonLine (record: ExpandedRecord): string {
  return `${JSON.stringify(record)}\n`
}

/**
 * A list narrowed to some fields (`fields=`): a stream with the narrowed
 * line and columns, or a page (or, without paging, an array) written by the
 * narrowed serializer. `fields` goes on in the next link.
 */
async function sendProjected (
  request: FastifyRequest, reply: FastifyReply, projection: Projection, records: { store: QueryableStore<StoredRecord, string>, path: string },
  list: ListRequest, fields: string[], writers: { line: (record: StoredRecord) => string, columns: readonly string[] }
): Promise<FastifyReply> {
  const serialize = projection.serializers(reply, fields)
  list.carried.push(['fields', String((request.query as Record<string, unknown>).fields)])
  if (request.stream !== undefined) return await sendStream(reply, records, list, request.stream, { line: (r) => `${serialize.record(r)}\n`, columns: request.stream === 'csv' ? projection.columns(fields) : writers.columns })
  const page = await readPage(records, list)
  pageHeaders(reply, page)
  if (reply.getHeader('content-type') === undefined) reply.type(JSON_TYPE)
  return reply.send(list.pageSize === undefined ? serialize.array(page.items) : serialize.page(pageBody(page)))
}

/** A page's representation: `next` only when another page follows. */
function pageBody (page: Page<StoredRecord>): { items: StoredRecord[], next?: string } {
  return page.next === undefined ? { items: page.items } : { items: page.items, next: page.next }
}

/** The store as a whole list reads it (KeptLists): every record, and its revision where it has one. Built once per route. */
function everyRecord (store: RecordStore): WholeList {
  const every: WholeList = {
    query: store.query.bind(store),
    count: store.count.bind(store),
    batches: store.batches.bind(store),
    importAll: store.importAll.bind(store),
    list: async () => await store.query({ where: [], sort: [] })
  }
  if (store.revision !== undefined) every.revision = store.revision
  return every
}

type WholeList = QueryableStore<StoredRecord, string> & { revision?: StoreRevision, list: () => Promise<StoredRecord[]> }

function getRecord ({ policy, store, etagOf, projection }: RouteContext): RouteHandlerMethod {
  const { ids, notFound, noun } = policy
  const { access } = store.declaration
  return async function getById (request, reply) {
    const id = ids.parse((request as IdRequest).params.id)
    const fields = projection.read((request.query as Record<string, unknown>).fields)
    const expanded = expansionAsked(policy.expand, request.query)
    if (expanded !== undefined && fields !== undefined) throw new AppError('INVALID_QUERY', 'fields and expand: ask for one of them (a projection of expanded records is not supported)')
    const found = await store.get(id)
    if (found === undefined) throw notFound.error(id)
    const caller = access === undefined ? undefined : requestCaller(request)
    // A record the caller may not view is not found: its existence is no answer either.
    if (caller !== undefined && !viewAllowed(access, caller, found)) throw notFound.error(id)
    const current = caller === undefined ? found : visibleRecord(access, found, caller)
    // The ETag names the record alone: an expanded answer has none (the records it adds change on their own).
    if (expanded !== undefined) return sendShaped(reply, expanded.asked.record, (await expanded.expansion.apply(expanded.asked.nodes, [current], caller ?? requestCaller(request)))[0])
    const outcome = conditionalRead(request, reply, etagOf(current))
    if (outcome === 'not-modified') return reply
    if (outcome === 'failed') throw preconditionFailed(request.headers, `${noun} ${id}`)
    if (fields === undefined) return current
    // The ETag set above is the whole record's: a projection is a view of that representation.
    if (reply.getHeader('content-type') === undefined) reply.type(JSON_TYPE)
    return reply.send(projection.serializers(reply, fields).record(current))
  }
}

/**
 * A write body's members, before its schema drops any: FIELD_UNKNOWN for one
 * the record does not have; a merge patch sent to POST or PUT is 415.
 */
/** A write route's check of its body before validation: no merge patch but on PATCH, no member that is not a field (v2, declared collections). */
export function bodyCheck (members: readonly string[]): (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => void {
  // Synchronous (a callback, no promise): every write of a record route pays for it.
  return function checkBodyMembers (request, _reply, done) {
    const type = request.headers['content-type']
    if (request.method !== 'PATCH' && typeof type === 'string' && type.toLowerCase().startsWith(MERGE_PATCH_TYPE)) {
      done(new AppError('UNSUPPORTED_MEDIA_TYPE', `${MERGE_PATCH_TYPE} is for PATCH; send application/json`))
      return
    }
    try {
      refuseUnknownMembers(request.body, members)
    } catch (err) {
      done(err as Error)
      return
    }
    done()
  }
}

function createRecord (collection: RouteContext): RouteHandlerMethod {
  const { policy, store, path, etagOf } = collection
  const bulk = createRecords(collection)
  const created = policy.replacedHeader
    ? ({ outcome, record }: CreateResult): WriteAnswer => {
        const location = `${path}/${record.id}`
        // The count id rule gave the id of a record held: the header names what was overwritten.
        return { status: 201, headers: outcome === 'replaced' ? { location, etag: etagOf(record), 'replaced-record': location } : { location, etag: etagOf(record) }, body: record }
      }
    : ({ record }: CreateResult): WriteAnswer => ({ status: 201, headers: { location: `${path}/${record.id}`, etag: etagOf(record) }, body: record })
  const { access } = store.declaration
  // Made once: a create without an Idempotency-Key makes no closure of its own.
  // The store's promise carried on, not awaited in an async frame of its own.
  const createOne = (keep: Keep, request: FastifyRequest): Promise<WriteAnswer> => store.create(request.body as RecordInput, keep(created)).then(created)
  return async function create (request, reply) {
    if (Array.isArray(request.body)) return await bulk.call(this, request, reply)
    if (request.validationError !== undefined) throw request.validationError
    // The body schema drops every member but the declared fields: the body is the input.
    if (access === undefined) return await answerOnce(request, reply, store, createOne)
    const caller = requestCaller(request)
    const shown = visibleAnswer(created, access, caller)
    return await answerOnce(request, reply, store, async (keep) => {
      const input = permittedCreate(access, caller, request.body as RecordInput)
      return shown(await store.create(input, keep(shown)))
    }, callerKey(caller))
  }
}

/**
 * A bulk create: every item checked first (nothing is written when one
 * fails), then one createMany (one transaction); 201 with the records in
 * order. Each item gets the id the id rule gives in its turn.
 */
function createRecords ({ policy, store }: RouteContext): RouteHandlerMethod {
  const array = { type: 'array', items: policy.schemas.record }
  const members = bodyMembers(store.declaration)
  const { access } = store.declaration
  return async function createMany (request, reply) {
    const checked = bulkInputs(bodyValidator(request, policy.schemas.create), members, request.body as unknown[])
    const caller = access === undefined ? undefined : requestCaller(request)
    // One refused item refuses the whole request: nothing is written.
    const inputs = caller === undefined ? checked : checked.map((input, i) => permittedCreate(access as CollectionAccess, caller, input, `item ${i}`))
    // The route's response schema is one record's: the array is serialised by a schema of its own.
    // fast-json-stringify takes any JSON value (here an array); fastify types its input as an object.
    const serialise = reply.compileSerializationSchema(array) as (value: unknown) => string
    const shown = (record: StoredRecord): StoredRecord => caller === undefined ? record : visibleRecord(access, record, caller)
    const created = (results: CreateResult[]): WriteAnswer => ({ status: 201, text: serialise(results.map((r) => shown(r.record))) })
    return await answerOnce(request, reply, store, async (keep) => created(await store.createMany(inputs, keep(created))), caller === undefined ? undefined : callerKey(caller))
  }
}

function putRecord (collection: RouteContext): RouteHandlerMethod {
  const { policy: { ids }, store } = collection
  const replace = replaceRecord(collection)
  const { access } = store.declaration
  return async function put (request, reply) {
    return await answerOnce(request, reply, store, async (keep) => {
      const { params, body } = request as BodyRequest
      const id = ids.parse(params.id)
      if (body.id !== undefined) {
        const failure = ids.checkBody(body.id, id)
        if (failure !== undefined) throw failure
      }
      return await replace(request, keep, id, body)
    }, access === undefined ? undefined : callerKey(requestCaller(request)))
  }
}

/**
 * A PUT's work once its id is known (PUT /{id}, and students' PUT / that
 * names the record in its body): evaluates If-Match / If-None-Match against
 * the record and pins the write to it. RFC 9110 §13.2.1: a PUT that never
 * creates answers 404 for a missing record whatever the preconditions say.
 * A field an update keeps (the address book's name) may be left out: then
 * only an update may happen, and a create asks for it.
 */
export function replaceRecord ({ policy, store, path, etagOf }: RouteContext): (request: FastifyRequest, keep: Keep, id: RecordId, body: Readonly<Record<string, unknown>>) => Promise<WriteAnswer> {
  const { notFound, noun } = policy
  const { declaration } = store
  const fields = Object.keys(declaration.fields)
  const kept = declaration.putCreates ? declaration.keptOnUpdate : []
  const stored = (result: WriteResult): WriteAnswer | undefined => {
    if (result.outcome === 'created') return { status: 201, headers: { etag: etagOf(result.record), location: `${path}/${result.record.id}` }, body: result.record }
    if (result.outcome === 'replaced') return { status: 200, headers: { etag: etagOf(result.record) }, body: result.record }
    return undefined
  }
  const { access } = declaration
  const guarded = access === undefined ? undefined : guardedReplace({ policy, store, path, etagOf, access })
  return async (request, keep, id, body) => {
    if (guarded !== undefined) return await guarded(request, keep, id, body)
    const conditional = hasPreconditions(request.headers)
    const missing = kept.length === 0 ? undefined : kept.find((field) => body[field] === undefined)
    let condition: WriteCondition<StoredRecord> = NO_CONDITION
    if (conditional || missing !== undefined) {
      // Read first only when a precondition or a missing kept field makes the current record matter.
      const current = await store.get(id)
      if (current === undefined) {
        if (!declaration.putCreates) throw notFound.error(id)
        if (missing !== undefined) throw keptFieldRequired(missing)
      }
      if (conditional) {
        // Pin the write to the state the precondition was checked against: compare-and-set in the store.
        const pinned = writeConditionFor(request.headers, current, etagOf)
        if (pinned === undefined) throw preconditionFailed(request.headers, `${noun} ${id}`)
        condition = pinned
      } else {
        condition = IF_PRESENT // a kept field left out: only an update may happen
      }
    }
    const input: Record<string, RecordInput[string]> = {}
    for (const field of fields) if (body[field] !== undefined) input[field] = body[field] as RecordInput[string]
    const result = await store.put(id, input, condition, keep(stored))
    if (result.outcome === 'not-found' && !declaration.putCreates) throw notFound.error(id)
    if (result.outcome === 'not-found' || result.outcome === 'precondition-failed') {
      // Changed between our read and the write: the client's precondition no longer holds,
      // or (a kept field left out, no precondition) the record vanished and a create needs the field.
      throw conditional || missing === undefined ? preconditionFailed(request.headers, `${noun} ${id}`) : keptFieldRequired(missing)
    }
    return stored(result) as WriteAnswer
  }
}

/**
 * A PUT under rules: the record read first (a missing one, or one the caller
 * may not view, is 404), its owner kept (another one sent is OWNER_MISMATCH),
 * the update rule checked against it and the record it becomes, and the
 * write pinned to the record checked (If-Match / If-None-Match as always).
 */
function guardedReplace ({ policy, store, path, etagOf, access }: Pick<RouteContext, 'policy' | 'store' | 'path' | 'etagOf'> & { access: CollectionAccess }): (request: FastifyRequest, keep: Keep, id: RecordId, body: Readonly<Record<string, unknown>>) => Promise<WriteAnswer> {
  const { notFound, noun } = policy
  const { putCreates } = store.declaration
  const fields = Object.keys(store.declaration.fields)
  return async (request, keep, id, body) => {
    const caller = requestCaller(request)
    const stored = (result: WriteResult): WriteAnswer | undefined => {
      if (result.outcome === 'created') return { status: 201, headers: { etag: etagOf(result.record), location: `${path}/${result.record.id}` }, body: visibleRecord(access, result.record, caller) }
      return result.outcome === 'replaced' ? { status: 200, headers: { etag: etagOf(result.record) }, body: visibleRecord(access, result.record, caller) } : undefined
    }
    for (let attempt = 1; ; attempt++) {
      const current = await store.get(id)
      // A PUT that creates (the address book's) is a create: checked as one, and pinned to the id being free.
      if (current === undefined && putCreates) {
        const missing = store.declaration.keptOnUpdate.find((field) => body[field] === undefined)
        if (missing !== undefined) throw keptFieldRequired(missing)
        const input = permittedCreate(access, caller, body, `${noun} ${id}`)
        const condition = hasPreconditions(request.headers) ? writeConditionFor(request.headers, undefined, etagOf) : { kind: 'absent' as const }
        if (condition === undefined) throw preconditionFailed(request.headers, `${noun} ${id}`)
        const created: Record<string, RecordInput[string]> = {}
        for (const field of fields) if (input[field] !== undefined) created[field] = input[field] as RecordInput[string]
        const result = await store.put(id, created, condition, keep(stored))
        const answer = stored(result)
        if (answer !== undefined && result.outcome === 'created') return answer
        // Created by another write meanwhile: check that record's update, once more.
        if (hasPreconditions(request.headers) || attempt === PATCH_ATTEMPTS) throw preconditionFailed(request.headers, `${noun} ${id}`)
        continue
      }
      if (current === undefined || !viewAllowed(access, caller, current)) throw notFound.error(id)
      const conditional = hasPreconditions(request.headers)
      const condition = conditional ? writeConditionFor(request.headers, current, etagOf) : { kind: 'matches' as const, current }
      if (condition === undefined) throw preconditionFailed(request.headers, `${noun} ${id}`)
      const owned = ownedInput(access, caller, body, current)
      const input: Record<string, RecordInput[string]> = {}
      for (const field of fields) if (owned[field] !== undefined) input[field] = owned[field] as RecordInput[string]
      // Fields an update keeps (the address book's name) are the stored ones in the record it becomes.
      const written: Record<string, unknown> = { ...input, id }
      for (const field of store.declaration.keptOnUpdate) written[field] = current[field]
      if (!writeAllowed(access, 'update', caller, { stored: current, written, body })) throw ruleDenied('update', `${noun} ${id}`)
      const result = await store.put(id, input, condition, keep(stored))
      if (result.outcome === 'replaced') return stored(result) as WriteAnswer
      if (result.outcome === 'not-found') throw notFound.error(id)
      // Changed since it was checked: the client's precondition no longer holds, or (none) check the new state.
      if (conditional || attempt === PATCH_ATTEMPTS) throw preconditionFailed(request.headers, `${noun} ${id}`)
    }
  }
}

/** A write's answer with its record as the caller may see it (guarded fields hidden). */
function visibleAnswer<R extends { record: StoredRecord }> (render: (result: R) => WriteAnswer, access: CollectionAccess, caller: Caller): (result: R) => WriteAnswer {
  if (access.guarded.length === 0 || caller.admin) return render
  return (result) => render({ ...result, record: visibleRecord(access, result.record, caller) })
}

function keptFieldRequired (field: string): AppError {
  const detail = `body.${field} is required when the PUT creates the record`
  return new AppError('VALIDATION_FAILED', detail, { errors: [{ code: 'FIELD_REQUIRED', field, detail }] })
}

/** List parameters that choose a page or a format, not records: a filtered write refuses them. */
const PAGE_PARAMS = ['limit', 'cursor', 'sort', 'count', 'download', 'bom']

/**
 * A list parameter without its examples (they describe the list, not a write). One that has none is the
 * list's own, shared as the mounts share the list's schema: copying each of thousands of parameters at
 * the declaration limits was ≈ 4 % of such a start.
 */
function withoutExamples (schema: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(schema, 'examples') && !Object.hasOwn(schema, 'example')) return schema
  const { examples: _examples, example: _example, ...rest } = schema
  return rest
}

/**
 * A filtered write's query string: the list's filters and `q`, and `all`.
 * Its only example is a search no record matches: "Try it out" then changes
 * nothing (an example filter could hit someone's records).
 */
function filteredWriteQuery (list: unknown, use: 'write' | 'aggregate' = 'write', model?: CollectionModel): Record<string, unknown> {
  const properties: Record<string, unknown> = {}
  for (const [param, schema] of Object.entries((list as { properties?: Record<string, unknown> }).properties ?? {})) {
    if (PAGE_PARAMS.includes(param)) continue
    const shown = withoutExamples(schema as Record<string, unknown>)
    properties[param] = param === 'q' && use === 'write' ? { ...shown, examples: ['no record holds this text'] } : shown
  }
  if (use === 'aggregate' && model !== undefined) return { type: 'object', properties: { ...properties, ...aggregateQuery(model) } }
  properties.all = { type: 'boolean', description: '`true`: every record the filters select, or with no filter every record of the collection (without it, no filter is 400 FILTER_REQUIRED).' }
  return { type: 'object', properties }
}

/**
 * PATCH or DELETE on the collection: the records the list's filters select
 * (the same parsed filter a list reads, so every operator it learns works
 * here too), changed in one store transaction. No filter is refused unless
 * `all=true`, so a stray request never empties a collection.
 */
function writeWhere ({ policy, store }: RouteContext, kind: 'patch' | 'delete'): RouteHandlerMethod {
  const { model } = policy.schemas
  const { access } = store.declaration
  const updatedStamps = readOnlyFields(policy.schemas.create).filter((f) => !store.declaration.keptOnUpdate.includes(f))
  const changed = (n: number): WriteAnswer => ({ status: 200, body: { changed: n } })
  return async function changeWhere (request, reply) {
    const { all, ...query } = request.query as Record<string, unknown>
    const paging = Object.keys(query).filter((param) => PAGE_PARAMS.includes(param))
    if (paging.length > 0) throw new AppError('INVALID_QUERY', `${paging.join(', ')}: a ${kind === 'patch' ? 'PATCH' : 'DELETE'} of many records takes the list's filters (and all=true) only`)
    const { filter: asked } = parseListQuery(model, query, 'stream')
    const filter = access === undefined ? asked : narrowedFilter(access, requestCaller(request), asked)
    if (asked.where.length === 0 && (filter.lists ?? []).length === 0 && filter.expression === undefined && filter.search === undefined && all !== true) {
      throw new AppError('FILTER_REQUIRED', `A ${kind === 'patch' ? 'PATCH' : 'DELETE'} of ${policy.resources === '' ? 'students' : policy.resources.slice(1)} names no filter: add one, or all=true for every record`)
    }
    const caller = access === undefined ? undefined : requestCaller(request)
    const scope = caller === undefined ? undefined : callerKey(caller)
    if (kind === 'delete') {
      const permitted = caller === undefined ? filter : await permittedWhere(store, access as CollectionAccess, caller, 'delete', filter)
      return await answerOnce(request, reply, store, async (keep) => changed(await store.deleteWhere(permitted, keep(changed))), scope)
    }
    const body = request.body
    if (!isObject(body)) throw new AppError('JSON_EXPECTED', 'A merge patch is a JSON object')
    const failures = checkPatch(bodyValidator(request, policy.schemas.create), store.declaration, body)
    if (failures.length > 0) throw new AppError('VALIDATION_FAILED', failures.map((f) => f.detail).join('; '), { errors: failures, subject: 'body' })
    // Fields the server sets on every write (`x-auto: updated`) take the time of this one.
    const now = new Date().toISOString()
    const patch = updatedStamps.length === 0 ? body : { ...body, ...Object.fromEntries(updatedStamps.map((f) => [f, now])) }
    const permitted = caller === undefined ? filter : await permittedWhere(store, access as CollectionAccess, caller, 'update', filter, body)
    return await answerOnce(request, reply, store, async (keep) => changed(await store.updateWhere(permitted, patch, keep(changed))), scope)
  }
}

/** How often a PATCH without preconditions reads again when another write came between its read and its write. */
const PATCH_ATTEMPTS = 5

/**
 * PATCH /{id}: the record read, the patch merged (./bodies.ts) and checked
 * as a create body, then written pinned to the record read (compare-and-set
 * in the store, as a PUT with If-Match is). Without preconditions a write
 * that came in between makes it read and merge again; with them it is 412.
 */
function patchRecord ({ policy, store, etagOf }: RouteContext): RouteHandlerMethod {
  const { ids, notFound, noun, schemas } = policy
  const { declaration } = store
  const readOnly = readOnlyFields(schemas.create)
  const stored = (result: WriteResult): WriteAnswer | undefined =>
    result.outcome === 'replaced' ? { status: 200, headers: { etag: etagOf(result.record) }, body: result.record } : undefined
  const { access } = declaration
  return async function patch (request, reply) {
    const { params, body } = request as BodyRequest
    if (!isObject(body)) throw new AppError('JSON_EXPECTED', 'A merge patch is a JSON object')
    const caller = access === undefined ? undefined : requestCaller(request)
    const id = ids.parse(params.id)
    if (body.id !== undefined && body.id !== null) {
      const failure = ids.checkBody(body.id, id)
      if (failure !== undefined) throw failure
    }
    const validate = bodyValidator(request, schemas.create)
    const conditional = hasPreconditions(request.headers)
    return await answerOnce(request, reply, store, async (keep) => {
      for (let attempt = 1; ; attempt++) {
        const current = await store.get(id)
        if (current === undefined) throw notFound.error(id)
        if (caller !== undefined && !viewAllowed(access, caller, current)) throw notFound.error(id)
        if (conditional && writeConditionFor(request.headers, current, etagOf) === undefined) throw preconditionFailed(request.headers, `${noun} ${id}`)
        if (caller !== undefined) ownedInput(access as CollectionAccess, caller, body, current)
        const merged = patchedRecord(declaration, current, body, readOnly, (record) => checkRecord(validate, record))
        if (caller !== undefined && !writeAllowed(access, 'update', caller, { stored: current, written: { ...merged, id }, body })) throw ruleDenied('update', `${noun} ${id}`)
        const result = await store.put(id, merged, { kind: 'matches', current }, keep(stored))
        if (result.outcome === 'replaced') return stored(caller === undefined ? result : { ...result, record: visibleRecord(access, result.record, caller) }) as WriteAnswer
        if (result.outcome === 'not-found') throw notFound.error(id)
        // Changed since it was read: the client's precondition no longer holds, or (none) merge into the new state.
        if (conditional || attempt === PATCH_ATTEMPTS) throw preconditionFailed(request.headers, `${noun} ${id}`)
      }
    }, caller === undefined ? undefined : callerKey(caller))
  }
}

function deleteRecord ({ policy, store, etagOf }: RouteContext): RouteHandlerMethod {
  const { ids, notFound, noun } = policy
  const { access } = store.declaration
  const deleted = (result: DeleteResult): WriteAnswer | undefined => result.outcome === 'deleted' ? { status: 204 } : undefined
  return async function remove (request, reply) {
    const caller = access === undefined ? undefined : requestCaller(request)
    return await answerOnce(request, reply, store, async (keep) => {
      const id = ids.parse((request as IdRequest).params.id)
      let condition: WriteCondition<StoredRecord> = NO_CONDITION
      if (caller !== undefined) {
        // Under rules the record decides: read, checked (404 when not viewable), and the delete pinned to what was checked.
        const current = await store.get(id)
        if (current === undefined || !viewAllowed(access, caller, current)) throw notFound.error(id)
        if (!writeAllowed(access, 'delete', caller, { stored: current })) throw ruleDenied('delete', `${noun} ${id}`)
        condition = hasPreconditions(request.headers) ? writeConditionFor(request.headers, current, etagOf) ?? preconditionFailedThrow(request.headers, `${noun} ${id}`) : { kind: 'matches', current }
      } else if (hasPreconditions(request.headers)) {
        // RFC 9110 §13.2.1: a missing record is 404 whatever the preconditions say.
        const current = await store.get(id)
        if (current === undefined) throw notFound.error(id)
        const pinned = writeConditionFor(request.headers, current, etagOf)
        if (pinned === undefined) throw preconditionFailed(request.headers, `${noun} ${id}`)
        condition = pinned
      }
      const result = await store.delete(id, condition, keep(deleted))
      if (result.outcome === 'not-found') throw notFound.error(id)
      if (result.outcome === 'precondition-failed') throw preconditionFailed(request.headers, `${noun} ${id}`)
      return deleted(result) as WriteAnswer
    }, caller === undefined ? undefined : callerKey(caller))
  }
}

function preconditionFailedThrow (headers: FastifyRequest['headers'], what: string): never {
  throw preconditionFailed(headers, what)
}

/** The store of a collection by name; a server opened without its declaration is a programming error. */
export function collectionStore (stores: RecordStores, name: string): RecordStore {
  const store = stores.collections.get(name)
  if (store === undefined) throw new RangeError(`the stores keep no collection ${name}: open them with its declaration`)
  return store
}

/** A list's filter with the filters through references, and the own part of a `filter=` that went through one. */
function withThrough (filter: RecordFilter, through: ReferenceFilter[], own: RecordFilter | undefined): RecordFilter {
  if (own === undefined) return { ...filter, through }
  const expression = allOf([filter.expression, own.expression].filter((e) => e !== undefined))
  return { ...filter, where: [...filter.where, ...own.where], ...(expression === undefined ? {} : { expression }), through: [...through, ...own.through ?? []] }
}
