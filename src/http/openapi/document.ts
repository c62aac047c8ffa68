import type { FastifySchema, RouteOptions } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { ErrorCatalogue, ErrorCode } from '../errors/index.js'
import type { RepresentationRoute } from '../rest/index.js'
import { headerRef, RESPONSE_HEADERS } from './headers.js'
import type { ErrorShapeDoc, HeaderName, OperationNotes } from './notes.js'
import { ERROR_CODE_DESCRIPTION, problemShape } from './problem-shape.js'
import { ACCEPTS_KEY } from './path-ids.js'

/**
 * Turns what @fastify/swagger generates from the route schemas into a
 * description of what the server really answers: every status with its media
 * types, catalogue codes as examples, request and response headers, the
 * header-negotiated versions merged into one operation per path, and named
 * schemas under `components`. Everything here runs when the document is first
 * asked for, never per request.
 */

interface MediaTypeObject {
  schema?: unknown
  examples?: Record<string, { summary?: string, value: unknown }>
  example?: unknown
}

interface ResponseObject {
  description: string
  headers?: Record<string, unknown>
  content?: Record<string, MediaTypeObject>
}

interface ParameterObject {
  in: string
  name: string
  required?: boolean
  description?: string
  schema?: unknown
}

/** What transformRoute adds from the route itself: its mount, and who may use it (config.rqs). */
type Notes = OperationNotes & { representation?: RepresentationRoute, access?: string, probe?: boolean }

/**
 * The refusals of the security features this server has on (issue 11): each
 * adds its answers to the operations it can refuse, and a feature that is off
 * adds nothing, so the document describes this server.
 */
export interface SecurityFeatures {
  /** Bearer tokens: 401 UNAUTHENTICATED, 403 FORBIDDEN, and 429 for too many refused tokens. */
  auth?: boolean
  /** JWTs of an identity provider: 503 AUTH_UNAVAILABLE when its keys cannot be fetched. */
  jwt?: boolean
  /** --rate-limit: 429 RATE_LIMITED, RateLimit headers. */
  rateLimit?: boolean
  /** --overload: 503 OVERLOADED. */
  overload?: boolean
}

interface Operation {
  operationId?: string
  summary?: string
  description?: string
  tags?: string[]
  parameters?: ParameterObject[]
  requestBody?: { required?: boolean, content: Record<string, MediaTypeObject> }
  responses: Record<string, ResponseObject>
  deprecated?: boolean
  'x-rqs'?: Notes
}

type PathItem = Record<string, Operation>

export interface OpenApiDocument {
  openapi: string
  info: Record<string, unknown>
  servers?: unknown[]
  tags?: unknown[]
  paths: Record<string, PathItem>
  components: { schemas: Record<string, unknown>, headers?: Record<string, unknown> }
}

/** Where the header-negotiated twins wait, per version, until they are merged into their path. */
const TWIN_PREFIX = '/@v'
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

/**
 * Codes any route with a JSON body can answer, besides its own; v1's envelope words 415 as a 400.
 * NESTING_TOO_DEEP and REQUEST_TIMEOUT (a body that does not arrive in time) are issue 10's, UNSUPPORTED_CONTENT_ENCODING issue 19's.
 */
const BODY_CODES: readonly ErrorCode[] = ['VALIDATION_FAILED', 'JSON_EXPECTED', 'MALFORMED_JSON', 'FORBIDDEN_PROPERTY', 'BODY_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'UNSUPPORTED_CONTENT_ENCODING', 'NESTING_TOO_DEEP', 'REQUEST_TIMEOUT']

const STATUS_TEXT: Record<string, string> = {
  200: 'OK', 201: 'Created', 204: 'No Content', 304: 'Not Modified', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 408: 'Request Timeout', 429: 'Too Many Requests',
  406: 'Not Acceptable', 412: 'Precondition Failed', 413: 'Content Too Large', 415: 'Unsupported Media Type', 500: 'Internal Server Error', 503: 'Service Unavailable'
}

/** What a collection's stream holds, by media type. */
const STREAM_DESCRIPTIONS: Readonly<Record<string, string>> = {
  'application/x-ndjson': 'Every matching record (a `limit` caps them), one JSON object a line, streamed.',
  'text/csv': 'Every matching record (a `limit` caps them) as CSV (RFC 4180, UTF-8, `header=present`): a header row of the fields, `id` first, then one CRLF-ended row a record; an absent field is an empty cell, an empty text `""`. Streamed.'
}

/**
 * @fastify/swagger's `transform`: versioned routes get their version's
 * operationId and, when Accept chooses the version, a twin path that
 * finishDocument merges into the real one.
 */
export function transformRoute ({ schema, url, route }: { schema: FastifySchema, url: string, route: RouteOptions }): { schema: FastifySchema, url: string } {
  const representation = route.config?.representation
  // A trailing wildcard (static files) is the parameter `path`.
  url = url.replace(/\*$/, '{path}')
  // Routes without a schema reach here too, whatever the type says.
  if ((schema as FastifySchema | undefined) === undefined || schema.hide === true) return { schema, url }
  const declaration = route.config?.rqs
  const notes: Notes = { ...schema['x-rqs'], access: declaration?.access, probe: declaration?.probe }
  const params = documentedParams(wildcardNamed(schema.params))
  const querystring = inChunks(schema.querystring)
  if (representation === undefined) return { schema: { ...schema, params, ...(querystring === undefined ? {} : { querystring }), 'x-rqs': notes }, url }
  const operationId = schema.operationId === undefined
    ? undefined
    : representation.uriVersioned ? `${schema.operationId}V${representation.version}` : schema.operationId
  return {
    schema: { ...schema, params, ...(querystring === undefined ? {} : { querystring }), operationId, 'x-rqs': { ...notes, representation } as Notes },
    url: representation.uriVersioned ? url : `${TWIN_PREFIX}${representation.version}${url}`
  }
}

/** Query parameters a chunk of a long query string's schema holds (see inChunks). */
const PARAMETERS_PER_CHUNK = 32

/**
 * A query string schema of many parameters (a declared collection's list:
 * every operator of every field) as `anyOf` chunks of its properties, for
 * the document only. @fastify/swagger turns the properties into parameters
 * by copying the map gathered so far once per property (quadratic: at the
 * field limit ≈ 2 000 parameters, near a second of one call per list route)
 * and the chunks of `anyOf` into one map in place; the parameters, their
 * order and `required` come out the same. Fastify validates with the route's
 * own schema, which stays as it is. Undefined when the schema stays as it is.
 */
function inChunks (querystring: unknown): unknown {
  const schema = querystring as { properties?: Record<string, unknown>, required?: string[] } | undefined
  const names = Object.keys(schema?.properties ?? {})
  if (schema?.properties === undefined || names.length <= PARAMETERS_PER_CHUNK) return undefined
  const { properties, required } = schema
  const chunks = []
  for (let at = 0; at < names.length; at += PARAMETERS_PER_CHUNK) {
    const own = names.slice(at, at + PARAMETERS_PER_CHUNK)
    const needed = required?.filter((name) => own.includes(name)) ?? []
    chunks.push({ type: 'object', properties: Object.fromEntries(own.map((name) => [name, properties[name]])), ...(needed.length > 0 ? { required: needed } : {}) })
  }
  return { anyOf: chunks }
}

/** The wildcard's parameter (`*` in Fastify's params) under the name the path gives it, `path`. */
function wildcardNamed (params: unknown): unknown {
  const properties = (params as { properties?: Record<string, unknown> } | undefined)?.properties
  if (properties?.['*'] === undefined) return params
  const { '*': wildcard, ...rest } = properties
  return { ...params as object, properties: { ...rest, path: wildcard } }
}

/** Path parameters as the document shows them: what the route's parser accepts (ACCEPTS_KEY), not the any-string Fastify checks. */
function documentedParams (params: unknown): unknown {
  const properties = (params as { properties?: Record<string, Record<string, unknown>> } | undefined)?.properties
  if (properties === undefined || !Object.values(properties).some((p) => ACCEPTS_KEY in p)) return params
  const documented = Object.fromEntries(Object.entries(properties).map(([name, p]) => {
    const { [ACCEPTS_KEY]: accepts, ...rest } = p
    return [name, accepts === undefined ? rest : { ...rest, ...accepts as Record<string, unknown> }]
  }))
  // A copy: the route's own schema (what Fastify validates) stays as it is.
  return { ...params as object, properties: documented }
}

/** What a version's routes on one path say about their errors, for the 405 of a version that lacks a method. */
interface VersionFacts {
  shape: ErrorShapeDoc
  mediaTypes: readonly string[]
  deprecated: boolean
}

/** Hands the event loop to others between slices of a long walk over the document's paths. */
export type Pace = () => Promise<void> | undefined

/** Paths a walk of finishDocument treats before it lets others in. */
const PATHS_PER_SLICE = 16

/**
 * How long a slice may hold the event loop: at the declaration limits one
 * path holds thousands of query parameters, and 16 such paths held it for
 * hundreds of milliseconds.
 */
export const SLICE_MS = 10

/**
 * A pace that lets the event loop go every PATHS_PER_SLICE paths, or sooner
 * once SLICE_MS have passed since it last did (setImmediate: waiting
 * requests are served first).
 */
export function pacedBySlices (): Pace {
  let walked = 0
  let since = performance.now()
  return () => {
    if (++walked % PATHS_PER_SLICE !== 0 && performance.now() - since < SLICE_MS) return undefined
    return new Promise<void>((resolve) => { setImmediate(() => { since = performance.now(); resolve() }) })
  }
}

/**
 * @fastify/swagger's `transformObject`: the document as published, with the
 * codes of the server's catalogue. With many declared collections it walks
 * thousands of operations: `pace` lets others in between its slices.
 */
export async function finishDocument (doc: OpenApiDocument, catalogue: ErrorCatalogue, security: SecurityFeatures = {}, pace: Pace = pacedBySlices()): Promise<OpenApiDocument> {
  const facts = new Map<string, VersionFacts>()
  const accepts = new Map<Operation, RepresentationRoute[]>()
  for (const [path, item] of Object.entries(doc.paths)) {
    await pace()
    // Routes serving GET and HEAD together (static files): HEAD is said once, for the whole document.
    if (item.get !== undefined) delete item.head
    for (const [method, op] of operations(item)) {
      const notes = op['x-rqs'] ?? {}
      delete op['x-rqs']
      describeOperation(op, notes, method, path.replace(/^\/@v\d+/, ''), catalogue, security)
      const r = notes.representation
      if (r !== undefined) {
        accepts.set(op, [r])
        facts.set(`${path} ${r.version}`, { shape: notes.errorShape ?? problemShape, mediaTypes: r.mediaTypes, deprecated: r.deprecated })
      }
    }
  }
  await mergeTwins(doc, facts, accepts, catalogue, pace)
  for (const item of Object.values(doc.paths)) {
    await pace()
    for (const [, op] of operations(item)) {
      const versions = accepts.get(op)
      if (versions !== undefined) addAcceptParameter(op, versions)
      for (const response of Object.values(op.responses)) {
        response.headers = { 'X-Request-Id': headerRef('X-Request-Id'), Vary: headerRef('Vary'), ...response.headers }
      }
    }
  }
  doc.paths = Object.fromEntries(Object.entries(doc.paths).sort(([a], [b]) => a.localeCompare(b)))
  doc.components.schemas = { ...doc.components.schemas, ...await hoistNamedSchemas(doc, pace) }
  await addMediaExamples(doc, pace)
  narrowErrorCodes(doc, catalogue)
  doc.components.headers = { ...RESPONSE_HEADERS }
  checkOperationIds(doc)
  return doc
}

function operations (item: PathItem): Array<[string, Operation]> {
  return Object.entries(item).filter(([method]) => METHODS.includes(method))
}

/** Adds the answers, headers and parameters the route's kind implies to one operation. */
function describeOperation (op: Operation, notes: Notes, method: string, path: string, catalogue: ErrorCatalogue, security: SecurityFeatures): void {
  const representation = notes.representation
  const shape = notes.errorShape ?? problemShape
  // The schemas Fastify serialises 4xx/5xx answers with are replaced by one response per status.
  for (const status of Object.keys(op.responses)) {
    if (/^[1-5]XX$/.test(status)) delete op.responses[status]
  }
  for (const [status, response] of Object.entries(op.responses)) {
    if (response.description === 'Default Response' || response.description === '') response.description = STATUS_TEXT[status] ?? status
    if (representation !== undefined && response.content?.['application/json'] !== undefined) {
      const media = response.content['application/json']
      response.content = Object.fromEntries(ownTypeFirst(representation.mediaTypes).map((type) => [type, { ...media }]))
    }
  }
  // The request body in the version's own media types too: Swagger UI sends the first as Content-Type.
  const body = op.requestBody?.content
  if (representation !== undefined && body?.['application/json'] !== undefined) {
    const media = body['application/json']
    // Plain JSON stays too (every representation's body parser takes it).
    const types = ownTypeFirst([...new Set([...representation.mediaTypes, 'application/json'])])
    // A body of another kind (a merge patch) keeps its own type, after the JSON ones.
    const others = Object.entries(body).filter(([type]) => type !== 'application/json')
    op.requestBody = { ...op.requestBody, content: Object.fromEntries([...types.map((type) => [type, { ...media }] as const), ...others]) }
  }
  // A collection's list also streams its records (src/http/rest/query/respond.ts, src/records/stream.ts).
  const listed = op.responses['200']?.content
  if (representation?.streams !== undefined && listed !== undefined) {
    for (const type of representation.streams) listed[type] = { schema: { type: 'string', description: STREAM_DESCRIPTIONS[type] } }
  }
  if (notes.document !== undefined) Object.assign(op, structuredClone(notes.document))

  const codes = new Set<ErrorCode>(notes.errors ?? [])
  const parameters = op.parameters ?? []
  if (op.requestBody !== undefined) for (const code of BODY_CODES) codes.add(code)
  if (parameters.some((p) => p.in === 'query') && representation !== undefined) codes.add('VALIDATION_FAILED')
  if (notes.preconditions !== undefined) {
    codes.add('PRECONDITION_FAILED')
    if (notes.preconditions === 'write') codes.add('RECORD_EXISTS')
    parameters.push(...preconditionParameters(notes.preconditions))
    if (notes.preconditions === 'read') {
      op.responses['304'] = { description: 'Not Modified: `If-None-Match` names the current ETag. No body.', headers: { ETag: headerRef('ETag') } }
    }
  }
  const readPreconditions = notes.preconditions === 'read'
  if (notes.store === true) {
    codes.add('STORE_UNAVAILABLE')
    codes.add(method === 'post' ? 'RECORD_NOT_CREATED' : 'INTERNAL')
    // What waits on the store can outlast --handler-timeout (issue 10).
    codes.add('PROCESSING_TIMEOUT')
  }
  for (const code of refusals(notes, security)) codes.add(code)
  for (const code of codes) {
    // The mount refuses an unacceptable Accept with a problem, whatever the representation's shape.
    const codeShape = code === 'NOT_ACCEPTABLE' && representation !== undefined ? problemShape : shape
    addError(op, path, code, codeShape, representation?.mediaTypes, catalogue)
  }
  if (representation !== undefined) addError(op, path, 'NOT_ACCEPTABLE', problemShape, representation.mediaTypes, catalogue)
  if (Object.values(op.responses).some((r) => r.content?.[problemShape.mediaTypes?.[0] ?? ''] !== undefined)) {
    parameters.push({ in: 'header', name: 'Accept-Language', required: false, description: 'Language of the problems\' `title` and `message`: `en` (default) or `de`, with q-values.', schema: { type: 'string', examples: ['de, en;q=0.5'] } })
  }
  if (representation?.deprecated === true) {
    op.deprecated = true
    for (const response of Object.values(op.responses)) addHeaders(response, ['Deprecation', 'Sunset', 'Link'])
  }
  // A read whose If-Match failed still names the current ETag.
  if (readPreconditions && op.responses['412'] !== undefined) addHeaders(op.responses['412'], ['ETag'], 'Here: the current one, when a read\'s If-Match failed.')
  for (const [status, names] of Object.entries(notes.headers ?? {})) {
    const response = op.responses[status]
    if (response === undefined) throw new Error(`x-rqs.headers names status ${status}, which ${op.operationId ?? 'an operation'} does not document`)
    addHeaders(response, names)
  }
  for (const [status, alternative] of Object.entries(notes.alternatives ?? {})) {
    const response = op.responses[status]
    if (response === undefined) throw new Error(`x-rqs.alternatives names status ${status}, which ${op.operationId ?? 'an operation'} does not document`)
    for (const media of Object.values(response.content ?? {})) media.schema = { anyOf: [media.schema, structuredClone(alternative.schema)] }
    for (const name of Object.keys(response.headers ?? {})) {
      if (!(name in RESPONSE_HEADERS) || response.headers === undefined) continue
      const header = RESPONSE_HEADERS[name as HeaderName]
      response.headers[name] = { ...header, required: false, description: `${header.description} ${alternative.headers}` }
    }
  }
  // Every answer of a rate-limited route carries the budget.
  if (security.rateLimit === true && notes.probe !== true) {
    for (const response of Object.values(op.responses)) addHeaders(response, ['RateLimit-Policy', 'RateLimit'])
  }
  if (parameters.length > 0) op.parameters = parameters
}

function addHeaders (response: ResponseObject, names: readonly HeaderName[], sometimes?: string): void {
  const header = (name: HeaderName): unknown => sometimes === undefined
    ? headerRef(name)
    : { ...RESPONSE_HEADERS[name], required: false, description: `${RESPONSE_HEADERS[name].description} ${sometimes}` }
  response.headers = { ...response.headers, ...Object.fromEntries(names.map((n) => [n, header(n)])) }
}

/** One catalogue code as an answer of the operation: its status, shape, media types and an example. */
function addError (op: Operation, path: string, code: ErrorCode, shape: ErrorShapeDoc, representationTypes: readonly string[] | undefined, catalogue: ErrorCatalogue): void {
  const status = String(shape.status(code, catalogue))
  const response = op.responses[status] ??= { description: `${STATUS_TEXT[status] ?? status}.` }
  response.description += `\n- \`${code}\`: ${firstSentence(catalogue.entry(code).description)}`
  const types = shape.mediaTypes ?? (representationTypes === undefined ? undefined : ownTypeFirst(representationTypes)) ?? ['application/json']
  response.content ??= {}
  for (const type of types) {
    const media = response.content[type] ??= { schema: shape.schema, examples: {} }
    media.examples ??= {}
    media.examples[code] = { summary: code, value: shape.example(code, path.replace(/\{[^}]*\}/g, '7'), catalogue) }
  }
  const headers: HeaderName[] = [...(shape.headers ?? [])]
  if (RETRIED.has(code)) headers.push('Retry-After')
  if (code === 'UNAUTHENTICATED' || code === 'FORBIDDEN') headers.push('WWW-Authenticate')
  if (code === 'METHOD_NOT_ALLOWED') headers.push('Allow')
  addHeaders(response, headers)
}

/** Codes whose answers say in Retry-After when to try again. */
const RETRIED: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['STORE_UNAVAILABLE', 'SCHEMA_CHANGED', 'PROCESSING_TIMEOUT', 'RATE_LIMITED', 'OVERLOADED', 'AUTH_UNAVAILABLE'])

/** The refusals the security features that are on can answer this route with (src/http/security). */
function refusals (notes: Notes, security: SecurityFeatures): ErrorCode[] {
  const codes: ErrorCode[] = []
  // `public` routes pass without a token; OPTIONS too, but it is not an operation of the document.
  if (security.auth === true && notes.access !== undefined && notes.access !== 'public') {
    codes.push('UNAUTHENTICATED', 'FORBIDDEN', 'RATE_LIMITED')
    if (security.jwt === true) codes.push('AUTH_UNAVAILABLE')
  }
  // Probes (health, readiness) are never rate-limited nor shed: readiness says "unavailable" in its own shape.
  if (notes.probe !== true) {
    if (security.rateLimit === true) codes.push('RATE_LIMITED')
    if (security.overload === true) codes.push('OVERLOADED')
  }
  return codes
}

/**
 * A version's own media types first (`application/vnd.rqs.v2+json` before
 * `application/json`): Swagger UI sends the first type of an operation's
 * first success answer as Accept, and plain JSON chooses v1 at a base path.
 */
function ownTypeFirst (types: readonly string[]): string[] {
  return [...types.filter((t) => t !== 'application/json'), ...types.filter((t) => t === 'application/json')]
}

/** A problem entry's `error` is one of the codes of this server's catalogue (the core's and its services'). */
function narrowErrorCodes (doc: OpenApiDocument, catalogue: ErrorCatalogue): void {
  const entry = doc.components.schemas.ErrorEntry as { properties?: Record<string, unknown> } | undefined
  if (entry?.properties === undefined) return
  entry.properties.error = Type.Union(catalogue.codes.map((code) => Type.Literal(code)), { description: ERROR_CODE_DESCRIPTION })
}

function firstSentence (text: string): string {
  const end = text.indexOf('. ')
  return end === -1 ? text : text.slice(0, end + 1)
}

function preconditionParameters (kind: 'read' | 'write'): ParameterObject[] {
  const etagList = { type: 'string', examples: ['"q1w2e3r4t5y6u7i8"', '*'] }
  return kind === 'read'
    ? [
        { in: 'header', name: 'If-None-Match', required: false, description: 'ETags (or `*`) you hold: when one is current the answer is 304 without a body.', schema: etagList },
        { in: 'header', name: 'If-Match', required: false, description: 'ETags (or `*`) of which one must be current, else 412.', schema: etagList }
      ]
    : [
        { in: 'header', name: 'If-Match', required: false, description: 'Write only if the record is still as you read it: one of these ETags (or `*`: any existing record) must be current, else 412 PRECONDITION_FAILED.', schema: etagList },
        { in: 'header', name: 'If-None-Match', required: false, description: '`*`: write only if no record has this id (create only), else 412 with the entry RECORD_EXISTS. A list of ETags: write only if none is current.', schema: etagList }
      ]
}

/**
 * The routes at a REST service's base path exist once per version and are
 * chosen by Accept; the description has one operation per path and method,
 * whose answers carry each version's media types side by side. A version
 * without the method answers 405 in its own shape.
 */
async function mergeTwins (doc: OpenApiDocument, facts: Map<string, VersionFacts>, accepts: Map<Operation, RepresentationRoute[]>, catalogue: ErrorCatalogue, pace: Pace): Promise<void> {
  const twins = Object.keys(doc.paths).filter((p) => p.startsWith(TWIN_PREFIX)).sort()
  const merged = new Map<string, Map<string, Array<[number, Operation]>>>()
  for (const twin of twins) {
    const match = /^\/@v(\d+)(\/.*)$/.exec(twin)
    if (match === null) continue
    const version = Number(match[1])
    const path = match[2] as string
    const byMethod = merged.get(path) ?? new Map<string, Array<[number, Operation]>>()
    merged.set(path, byMethod)
    for (const [method, op] of operations(doc.paths[twin] as PathItem)) {
      byMethod.set(method, [...(byMethod.get(method) ?? []), [version, op]])
    }
  }
  for (const twin of twins) Reflect.deleteProperty(doc.paths, twin)

  for (const [path, byMethod] of merged) {
    await pace()
    const versions = [...new Set([...byMethod.values()].flatMap((ops) => ops.map(([v]) => v)))].sort()
    const item: PathItem = doc.paths[path] ?? {}
    for (const [method, ops] of byMethod) {
      ops.sort((a, b) => a[0] - b[0])
      const op = mergeOperations(ops)
      const texts = new Set(ops.map(([, o]) => o.description ?? o.summary ?? ''))
      op.description = texts.size === 1
        ? ops[0]?.[1].description
        : ops.map(([v, o]) => `**v${v}**: ${o.description ?? o.summary ?? ''}`).join('\n\n')
      const served = ops.map(([v]) => v)
      for (const version of versions.filter((v) => !served.includes(v))) {
        const f = facts.get(`${TWIN_PREFIX}${version}${path} ${version}`)
        if (f === undefined) continue
        addError(op, path, 'METHOD_NOT_ALLOWED', f.shape, f.mediaTypes, catalogue)
        op.description = [op.description, `**v${version}** has no such operation: with its media types in \`Accept\` the answer is 405.`].filter((t) => t !== undefined).join('\n\n')
      }
      op.deprecated = ops.every(([, o]) => o.deprecated === true) ? true : undefined
      accepts.set(op, ops.flatMap(([, o]) => accepts.get(o) ?? []))
      item[method] = op
    }
    doc.paths[path] = item
  }
}

/**
 * One operation from a path's versions: parameters and request bodies
 * united, and per status every version's media types side by side. Where
 * the versions describe a status differently, each says which it is.
 */
function mergeOperations (ops: Array<[number, Operation]>): Operation {
  const [first] = ops
  if (first === undefined) throw new Error('nothing to merge')
  const parameters: ParameterObject[] = []
  const responses: Record<string, ResponseObject> = {}
  let requestBody: Operation['requestBody']
  const statuses = [...new Set(ops.flatMap(([, op]) => Object.keys(op.responses)))].sort()
  for (const status of statuses) {
    const answers = ops.flatMap(([v, op]) => op.responses[status] === undefined ? [] : [[v, op.responses[status]] as [number, ResponseObject]])
    const texts = new Set(answers.map(([, r]) => r.description))
    const merged: ResponseObject = {
      description: texts.size === 1 ? [...texts][0] as string : answers.map(([v, r]) => `**v${v}**: ${r.description}`).join('\n\n')
    }
    for (const [, r] of answers) {
      if (r.headers !== undefined) merged.headers = { ...merged.headers, ...r.headers }
    }
    // The newest version's media types first: Swagger UI asks for the first one, so it tries the newest version.
    for (const [, r] of [...answers].reverse()) {
      if (r.content !== undefined) merged.content = { ...merged.content, ...structuredClone(r.content) }
    }
    // A header only some versions send is not required of the merged answer.
    for (const name of Object.keys(merged.headers ?? {})) {
      const sending = answers.filter(([, r]) => r.headers?.[name] !== undefined).map(([v]) => v)
      if (sending.length === answers.length || !(name in RESPONSE_HEADERS) || merged.headers === undefined) continue
      const header = RESPONSE_HEADERS[name as HeaderName]
      merged.headers[name] = { ...header, required: false, description: `${header.description} Sent by ${sending.map((v) => `v${v}`).join(', ')} only.` }
    }
    responses[status] = merged
  }
  // A set, not a search of the list: a declared collection's list has thousands of query parameters a version.
  const named = new Set<string>()
  for (const [, op] of ops) {
    for (const p of op.parameters ?? []) {
      const key = `${p.in}\n${p.name}`
      if (named.has(key)) continue
      named.add(key)
      parameters.push(p)
    }
  }
  // The newest version's body types first, as its answers' are: the Content-Type Swagger UI sends matches its Accept.
  for (const [, op] of [...ops].reverse()) {
    if (op.requestBody === undefined) continue
    requestBody ??= { required: true, content: {} }
    for (const [type, media] of Object.entries(op.requestBody.content)) {
      const existing = requestBody.content[type]
      if (existing !== undefined && JSON.stringify(existing.schema) !== JSON.stringify(media.schema)) {
        throw new Error(`the versions of ${op.operationId ?? 'an operation'} take different ${type} bodies: give them their own paths`)
      }
      requestBody.content[type] = media
    }
  }
  if (requestBody !== undefined) requestBody.content = Object.fromEntries(ownTypeFirst(Object.keys(requestBody.content)).map((type) => [type, requestBody.content[type] as MediaTypeObject]))
  const [, base] = first
  return {
    ...base,
    operationId: ops.map(([, op]) => op.operationId).find((id) => id !== undefined),
    // Under the newest version's tag, which its Accept default matches; the older versions have their /vN/ paths.
    tags: ops[ops.length - 1]?.[1].tags ?? [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody !== undefined ? { requestBody } : {}),
    responses
  }
}

/** `Accept` chooses the representation: documented with the media types each version answers with. */
function addAcceptParameter (op: Operation, versions: RepresentationRoute[]): void {
  const lines = [...new Map(versions.map((r) => [r.version, r])).values()]
    .map((r) => `${r.mediaTypes.map((t) => `\`${t}\``).join(' or ')} → v${r.version}`)
  const types = [...versions].reverse().flatMap((r) => ownTypeFirst(r.mediaTypes))
  op.parameters = [
    ...(op.parameters ?? []),
    {
      in: 'header',
      name: 'Accept',
      required: false,
      description: `Chooses the representation: ${lines.join('; ')}. None, \`*/*\` and \`application/json\` get the default; anything else is 406 NOT_ACCEPTABLE.`,
      schema: { type: 'string', examples: [...new Set(types)] }
    }
  ]
}

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs']
const SCHEMA_VALUES = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else']
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems']

/**
 * Every object schema with a `title` (Student, Address, Problem, …) becomes a
 * named component and is referenced where it was inlined, so client
 * generators produce named types. A declaration's own titles are labels for
 * people: a field titled "Author" beside an `authors` collection stays inline
 * (a string is no type to name, and an object that differs from the record
 * keeps its own shape), so no title a declaration chooses stops the start.
 */
async function hoistNamedSchemas (doc: OpenApiDocument, pace: Pace): Promise<Record<string, unknown>> {
  const named = new Map<string, { schema: Record<string, unknown>, text: string }>()
  const hoist = (schema: unknown): unknown => {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema
    const s: Record<string, unknown> = { ...schema as Record<string, unknown> }
    for (const key of SCHEMA_MAPS) {
      const map = s[key]
      if (typeof map === 'object' && map !== null) s[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, hoist(v)]))
    }
    for (const key of SCHEMA_VALUES) if (key in s) s[key] = hoist(s[key])
    for (const key of SCHEMA_LISTS) if (Array.isArray(s[key])) s[key] = (s[key] as unknown[]).map(hoist)
    const title = s.title
    if (typeof title !== 'string' || s.type !== 'object' || !/^[A-Z][A-Za-z0-9]*$/.test(title)) return s
    // @fastify/swagger drops `examples` of some nested copies: those do not make two schemas.
    const { examples, ...described } = s
    const text = JSON.stringify(described)
    const known = named.get(title)
    if (known === undefined || (known.text === text && known.schema.examples === undefined && examples !== undefined)) named.set(title, { schema: s, text })
    else if (known.text !== text) return s
    return { $ref: `#/components/schemas/${title}` }
  }
  const hoisted = new WeakSet<ParameterObject>()
  for (const item of Object.values(doc.paths)) {
    await pace()
    for (const [, op] of operations(item)) {
      // Operations share equal parameters (see generate.ts): each is hoisted once.
      for (const p of op.parameters ?? []) {
        if (hoisted.has(p)) continue
        hoisted.add(p)
        p.schema = hoist(p.schema)
      }
      for (const media of Object.values(op.requestBody?.content ?? {})) media.schema = hoist(media.schema)
      for (const response of Object.values(op.responses)) {
        for (const media of Object.values(response.content ?? {})) media.schema = hoist(media.schema)
      }
    }
  }
  return Object.fromEntries([...named].sort(([a], [b]) => a.localeCompare(b)).map(([name, { schema }]) => [name, schema]))
}

/**
 * A JSON answer or body whose schema has `examples` shows the first as its
 * media type's `example`: what Swagger UI puts into "Try it out" instead of a
 * body made up from the schema (random text for patterns, the maximum for numbers).
 */
async function addMediaExamples (doc: OpenApiDocument, pace: Pace): Promise<void> {
  const resolve = (schema: unknown): Record<string, unknown> | undefined => {
    if (typeof schema !== 'object' || schema === null) return undefined
    const ref = (schema as { $ref?: unknown }).$ref
    if (typeof ref !== 'string') return schema as Record<string, unknown>
    return doc.components.schemas[ref.replace('#/components/schemas/', '')] as Record<string, unknown> | undefined
  }
  const firstExample = (schema: Record<string, unknown> | undefined): unknown => Array.isArray(schema?.examples) ? schema.examples[0] : undefined
  // Its own example, else a list of its items' example, else its first alternative's.
  const exampleOf = (raw: unknown, depth: number): unknown => {
    const schema = resolve(raw)
    if (schema === undefined || depth === 0) return undefined
    const own = firstExample(schema)
    if (own !== undefined) return own
    if (schema.type === 'array') {
      const item = exampleOf(schema.items, depth - 1)
      return item === undefined ? undefined : [item]
    }
    const alternatives = schema.anyOf ?? schema.oneOf
    return Array.isArray(alternatives) ? exampleOf(alternatives[0], depth - 1) : undefined
  }
  const add = (content: Record<string, MediaTypeObject> | undefined): void => {
    for (const [type, media] of Object.entries(content ?? {})) {
      if (!/[/+]json$/.test(type) || media.example !== undefined || media.examples !== undefined) continue
      const example = exampleOf(media.schema, 3)
      if (example !== undefined) media.example = example
    }
  }
  for (const item of Object.values(doc.paths)) {
    await pace()
    for (const [, op] of operations(item)) {
      add(op.requestBody?.content)
      for (const response of Object.values(op.responses)) add(response.content)
    }
  }
}

function checkOperationIds (doc: OpenApiDocument): void {
  const seen = new Set<string>()
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of operations(item)) {
      if (op.operationId === undefined) throw new Error(`${method.toUpperCase()} ${path} has no operationId`)
      if (seen.has(op.operationId)) throw new Error(`operationId ${op.operationId} is used twice (${method.toUpperCase()} ${path})`)
      seen.add(op.operationId)
    }
  }
}
