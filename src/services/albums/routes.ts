import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fastifyStatic from '@fastify/static'
import { getOperationAST, GraphQLError, Kind, type DocumentNode, type ExecutionArgs, type SelectionSetNode } from 'graphql'
import { createHandler as createSseHandler } from 'graphql-sse/lib/use/fastify'
import type { ChangeStreams } from '../../graphql/changes.js'
import type { CollectionParts, GraphQLContext } from '../../graphql/schema.js'
import { createHandler, type Request as GraphQLHttpRequest, type Response as GraphQLHttpResponse } from 'graphql-http'
import type { AlbumsConfig } from './config.js'
import { ACCESS_REFUSALS, type ErrorCode, type Classified, errorPipeline, problems } from '../../http/errors/index.js'
import { routableMethods } from '../../http/rest/index.js'
import { declareRoutes } from '../../http/routes/index.js'
import { appendVary } from '../../lib/vary.js'
import { withoutDeadline } from '../../lib/deadline.js'
import { DEFAULT_ALBUMS, loadAlbumsFile } from './albums.js'
import { AnswerCache } from './answer-cache.js'
import { withCode, type QueryEngine } from './engine.js'
import { BUNDLE_MISSING_PAGE, graphiqlBundleExists, graphiqlPage } from './graphiql.js'
import { GRAPHQL_CODES } from './limits.js'
import { GRAPHQL_RESPONSE_JSON, JSON_UTF8, prefersHtml, responseMediaType } from './negotiation.js'
import { graphiqlSchema, graphqlGetSchema, graphqlPostSchema, sdlSchema, streamSchema } from './openapi.js'
import { concealInternalErrors, INTERNAL_MESSAGE, isClientMessage, parseParamsSafely, UNPROCESSABLE_MESSAGE } from './internal-errors.js'
import { LiveSchema } from './live-schema.js'
import { takeStreamSlot } from './stream-slots.js'

export interface AlbumsServiceOptions {
  config: AlbumsConfig
  /** Where the service is mounted ('' or e.g. '/albums'), for the links the GraphiQL page holds. */
  base: string
  /** Every collection's fields beside `albums` (none: the album schema alone). */
  collections?: CollectionParts
  /** The change log's streams, for the subscriptions at /graphql/stream. */
  streams?: ChangeStreams
  /** Whether tokens are checked: mutations then need the write scope. */
  auth?: boolean
  /** Hands the collections' new fields to a listener after a collection changed while the server runs (none: the schema never changes). */
  follow?: (listener: (parts: CollectionParts) => void) => void
}

/** The root fields whose answers depend on the request alone (the albums never change while the server runs). */
const CONSTANT_FIELDS = new Set(['albums', '__typename', '__schema', '__type'])

/** Per prepared document (the engine caches them) and operation name: whether it reads constants only. */
const constantOperations = new WeakMap<DocumentNode, Map<string, boolean>>()

/** Whether an operation reads only constant fields, so its answer may be kept (a record read may not). */
function readsConstantsOnly (document: DocumentNode, operationName: string | null | undefined): boolean {
  let known = constantOperations.get(document)
  if (known === undefined) constantOperations.set(document, known = new Map())
  const key = operationName ?? ''
  let constant = known.get(key)
  if (constant === undefined) known.set(key, constant = walkConstants(document, operationName))
  return constant
}

function walkConstants (document: DocumentNode, operationName: string | null | undefined): boolean {
  const operation = getOperationAST(document, operationName)
  if (operation == null || operation.operation !== 'query') return false
  const fragments = new Map(document.definitions.flatMap((d) => d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : []))
  const seen = new Set<string>()
  const constant = (set: SelectionSetNode): boolean => set.selections.every((s) => {
    if (s.kind === Kind.FIELD) return CONSTANT_FIELDS.has(s.name.value)
    if (s.kind === Kind.INLINE_FRAGMENT) return constant(s.selectionSet)
    if (seen.has(s.name.value)) return true
    seen.add(s.name.value)
    const fragment = fragments.get(s.name.value)
    return fragment === undefined || constant(fragment.selectionSet)
  })
  return constant(operation.selectionSet)
}


type HandlerRequest = GraphQLHttpRequest<FastifyRequest, string>

/** The `{errors: [...]}` body every failure of this service has, with a code clients can branch on. */
function errorBody (message: string, code: string): string {
  return JSON.stringify({ errors: [{ message, extensions: { code } }] })
}

function unknownOperation (operationName: string | null | undefined): GraphQLError {
  const message = operationName == null
    ? 'The document has several operations: say which one to run with operationName.'
    : `The document has no operation named "${operationName}".`
  return new GraphQLError(message, { extensions: { code: GRAPHQL_CODES.badRequest } })
}

/** Catalogue codes raised around the handler that keep their own status and code here (issue 10: the request time limits; issue 19: a coded body). */
const OWN_CODES: ReadonlySet<ErrorCode> = new Set(['REQUEST_TIMEOUT', 'PROCESSING_TIMEOUT', 'NESTING_TOO_DEEP', 'UNSUPPORTED_CONTENT_ENCODING'])

/**
 * The GraphQL renderer of the error pipeline: what fails around the GraphQL
 * protocol itself (a body over the limit, a request the server cannot read)
 * as `{errors: [...]}`, with the framework's own message for a client error.
 */
function renderGraphQLError (error: Classified, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // Refused before the query runs (token, scope, rate limit, overload): the catalogue's code and status, with its headers.
  if (ACCESS_REFUSALS.has(error.code)) {
    if (error.headers !== undefined) reply.headers(error.headers)
    return reply.code(error.status).type(responseMediaType(request.headers.accept) ?? JSON_UTF8).send(errorBody(error.detail, error.code))
  }
  if (OWN_CODES.has(error.code)) return reply.code(error.status).headers(error.headers ?? {}).type(JSON_UTF8).send(errorBody(error.detail, error.code))
  if (error.status >= 500) return reply.code(500).type(JSON_UTF8).send(errorBody(INTERNAL_MESSAGE, GRAPHQL_CODES.internal))
  const code = error.code === 'BODY_TOO_LARGE' ? GRAPHQL_CODES.payloadTooLarge : error.code === 'UNSUPPORTED_MEDIA_TYPE' ? GRAPHQL_CODES.unsupportedMediaType : GRAPHQL_CODES.badRequest
  return reply.code(error.status).type(JSON_UTF8).send(errorBody(error.cause?.message ?? error.detail, code))
}

const graphqlErrors = errorPipeline(renderGraphQLError)

/** The body parser: the text as read, for graphql-http to parse (and the answer cache to key on). */
function keepBodyText (_request: FastifyRequest, body: string, done: (error: null, body: string) => void): void {
  done(null, body)
}

/**
 * The album query service's routes (spec: "Album query service (GraphQL)"):
 * GraphQL over HTTP at `/graphql` (graphql-http does the protocol), the schema
 * as SDL, and GraphiQL bundled into this package at `/graphiql`.
 */
export async function albumRoutes (app: FastifyInstance, opts: AlbumsServiceOptions): Promise<void> {
  const { config, base } = opts
  declareRoutes(app, { service: 'albums' })
  const albums = config.albumsFile === undefined ? DEFAULT_ALBUMS : await loadAlbumsFile(config.albumsFile)
  // The schema as the collections are now: swapped whole when one changes (./live-schema.ts).
  const live = new LiveSchema(albums, config, `${base}/graphql/stream`, opts.collections)
  opts.follow?.((parts) => { live.replace(parts) })
  const auth = opts.auth === true
  /** Requests whose answer reads constants only: those answers are kept (see AnswerCache). */
  const constantAnswers = new WeakSet<FastifyRequest>()

  const handle = createHandler<FastifyRequest, string, GraphQLContext>({
    schema: () => live.state.schema,
    parseRequestParams: parseParamsSafely,
    // Parsing and validation come from the engine's cache instead of graphql-http's own per-request parse + validate.
    onSubscribe: (req, params) => {
      // The schema of this moment: the request finishes on it even if a change swaps it meanwhile.
      const { engine, costs } = live.state
      const prepared = engine.prepare(params.query)
      if (prepared.errors !== undefined) return prepared.errors
      // Say which operation is missing rather than graphql-http's "Unable to detect operation AST".
      const operation = getOperationAST(prepared.document, params.operationName)
      if (operation == null) return [unknownOperation(params.operationName)]
      // graphql-http would refuse it with its own words; say where subscriptions run instead.
      if (operation.operation === 'subscription' && engine.schema.getSubscriptionType() != null) {
        return [new GraphQLError(`Subscriptions run over Server-Sent Events (the graphql-sse protocol) at ${engine.streamPath}.`, { nodes: operation, extensions: { code: GRAPHQL_CODES.operationNotSupported } })]
      }
      // Weighed before it runs (issue 36): a document within the shape limits can still ask for a scan per alias.
      const tooCostly = costs.check(prepared.document, params.operationName, params.variables)
      if (tooCostly !== undefined) return [tooCostly]
      if (readsConstantsOnly(prepared.document, params.operationName)) constantAnswers.add(req.raw)
      const contextValue: GraphQLContext = { request: req.raw, auth }
      return { schema: engine.schema, document: prepared.document, operationName: params.operationName, variableValues: params.variables, contextValue }
    },
    execute: (args) => live.engineOf(args.schema).execute(args),
    onOperation: (req, args, result) => executionResponse(req.context, args as ExecutionArgs, concealInternalErrors(result, req.raw.log)),
    // What graphql-http itself rejects (malformed JSON, a missing query...) is the client's fault; nothing else is worded.
    formatError: (error) => error instanceof GraphQLError
      ? withCode(error, GRAPHQL_CODES.badRequest)
      : new GraphQLError(isClientMessage(error) ? error.message : UNPROCESSABLE_MESSAGE, { extensions: { code: GRAPHQL_CODES.badRequest } })
  })

  /**
   * Serialises the result itself: graphql-jit's serialiser is faster, and a
   * result without `data` (variables that do not coerce) is a request error,
   * which GraphQL over HTTP answers with 400 under application/graphql-response+json.
   */
  function executionResponse (mediaType: string, args: ExecutionArgs, result: Awaited<ReturnType<QueryEngine['execute']>>): GraphQLHttpResponse {
    const failed = result.data === undefined && mediaType === GRAPHQL_RESPONSE_JSON
    return [live.engineOf(args.schema).stringify(args, result), { status: failed ? 400 : 200, statusText: failed ? 'Bad Request' : 'OK', headers: { 'content-type': mediaType } }]
  }

  // graphql-http reads the raw body itself so that it, not Fastify, decides
  // what a wrong content type or malformed JSON gets (415, 400 per the spec).
  // The same parser is also registered for application/json by name: Fastify
  // remembers which parser a named type gets, while it works the catch-all out
  // again (parsing the Content-Type) for every request it serves.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, keepBodyText)
  app.addContentTypeParser('*', { parseAs: 'string' }, keepBodyText)
  app.setErrorHandler(graphqlErrors.handleError)

  const answers = new AnswerCache(config.documentCacheSize)
  // Kept answers read the schema too (__schema, __type): a new schema starts with none.
  live.onReplace(() => { answers.clear() })

  /**
   * A request answered before is answered again from the cache, without
   * waiting on a promise (the common case: a client repeating its queries);
   * anything else goes through graphql-http.
   */
  function graphqlHandler (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> | undefined {
    appendVary(reply, 'Accept')
    const key = answers.keyOf(request)
    const kept = key === undefined ? undefined : answers.get(key)
    if (kept === undefined) return answerWithGraphqlHttp(request, reply, key)
    void reply.code(200).headers(kept.headers).send(kept.body)
    return undefined
  }

  /** Everything else: negotiation (406 when nothing offered is acceptable), then graphql-http; a success is kept under `key`. */
  async function answerWithGraphqlHttp (request: FastifyRequest, reply: FastifyReply, key: string | undefined): Promise<FastifyReply> {
    const mediaType = responseMediaType(request.headers.accept)
    if (mediaType === undefined) {
      return reply.code(406).header('accept', `${GRAPHQL_RESPONSE_JSON}, ${JSON_UTF8}`).type(JSON_UTF8)
        .send(errorBody('The Accept header allows neither application/graphql-response+json nor application/json.', GRAPHQL_CODES.notAcceptable))
    }
    const headers = request.headers
    const req: HandlerRequest = {
      method: request.method,
      url: request.url,
      // graphql-http does not weigh q-values: it is handed the media type negotiated above.
      headers: { get: (name: string) => name === 'accept' ? mediaType : (headers[name] as string | undefined) ?? null },
      body: (request.body as string | undefined) ?? null,
      raw: request,
      context: mediaType
    }
    const [body, init] = await handle(req)
    if (key !== undefined && init.status === 200 && typeof body === 'string' && constantAnswers.has(request)) answers.keep(key, { body, headers: { ...(init.headers as Record<string, string> | undefined) } })
    void reply.code(init.status)
    if (init.status === 405) {
      const message = request.method === 'GET'
        ? 'Mutations cannot be sent with GET; use POST.'
        : `Method ${request.method} is not allowed; use GET or POST.`
      return reply.header('allow', init.headers?.allow ?? 'GET, POST').type(mediaType).send(errorBody(message, GRAPHQL_CODES.methodNotAllowed))
    }
    if (init.status === 415) {
      return reply.type(mediaType).send(errorBody('A POST body must be JSON: Content-Type application/json (charset utf-8, if given).', GRAPHQL_CODES.unsupportedMediaType))
    }
    return reply.headers(init.headers ?? {}).send(body)
  }

  const editor = `${base}/graphiql`
  // A browser opening the endpoint (Accept preferring text/html) gets the editor instead of a raw 400.
  // Every operation is a read: the album schema has no mutations (every method of /graphql, the 405s included).
  // Data only: the endpoint never renders a page (a browser is sent to the editor), so no page policy.
  const operation = { rqs: { access: 'read' as const, dataOnly: true } }
  const forPeople = { rqs: { access: 'public' as const } }
  app.get('/graphql', { schema: graphqlGetSchema, config: operation, exposeHeadRoute: false }, (request, reply) => {
    if (prefersHtml(request.headers.accept)) {
      appendVary(reply, 'Accept')
      const q = request.url.indexOf('?')
      void reply.redirect(q === -1 ? editor : editor + request.url.slice(q), 303)
      return undefined
    }
    return graphqlHandler(request, reply)
  })
  app.post('/graphql', { schema: graphqlPostSchema, config: operation }, graphqlHandler)
  // Every other method (CONNECT too: src/http/connect.ts) reaches graphql-http, which answers 405 + Allow.
  app.route({ method: routableMethods(app).filter((m) => m !== 'GET' && m !== 'POST'), url: '/graphql', config: operation, exposeHeadRoute: false, handler: graphqlHandler })

  // The SDL tells what introspection would: with introspection off there is none (404).
  if (config.introspection) {
    app.get('/graphql/schema.graphql', { schema: sdlSchema, config: forPeople, errorHandler: problems.handleError }, (_request, reply) => {
      void reply.type('text/plain; charset=utf-8').send(live.state.sdl)
    })
  }

  // A server whose collections may change serves the stream even before it has a subscription.
  if (opts.streams !== undefined && (live.hasSubscriptions || opts.follow !== undefined)) registerStream(app, live, auth)

  // GraphiQL: a page rendered once (it names the endpoint), and the bundle's files beside it.
  if (graphiqlBundleExists(config.graphiqlDir)) {
    const page = graphiqlPage(`${base}/graphql`, `${base}/graphiql/`)
    // A page, not GraphQL: its refusals (a foreign Host) are problems, like its files'.
    app.get('/graphiql', { schema: graphiqlSchema, config: forPeople, errorHandler: problems.handleError }, (_request, reply) => { void reply.type('text/html; charset=utf-8').send(page) })
    // The bundle's files are not GraphQL: their errors (a refused dotfile, a failed If-Match) are problems, as elsewhere.
    await app.register(async (files) => {
      declareRoutes(files, { access: 'public' })
      files.setErrorHandler(problems.handleError)
      await files.register(fastifyStatic, {
        root: config.graphiqlDir,
        prefix: '/graphiql/',
        decorateReply: false,
        index: false,
        preCompressed: true, // the build writes .br and .gz beside each script and style
        dotfiles: 'deny',
        wildcard: true
      })
    })
  } else {
    app.log.warn({ dir: config.graphiqlDir }, 'GraphiQL bundle not found: /graphiql answers 503 until `npm run build` has run')
    app.get('/graphiql', { schema: graphiqlSchema, config: forPeople, errorHandler: problems.handleError }, (_request, reply) => { void reply.code(503).type('text/html; charset=utf-8').send(BUNDLE_MISSING_PAGE) })
  }
}

/**
 * Subscriptions over Server-Sent Events with the graphql-sse protocol at
 * `/graphql/stream`, a distinct connection per subscription (GET or POST
 * with Accept: text/event-stream). Only subscriptions run here; their
 * documents pass the engine's limits as queries do. The route needs the read
 * scope; each stream follows the change log (ChangeStreams), so changes made
 * by any instance sharing the store arrive.
 */
function registerStream (app: FastifyInstance, live: LiveSchema, auth: boolean): void {
  const handler = createSseHandler<GraphQLContext>({
    schema: () => live.state.schema,
    context: (req) => ({ request: req.raw, auth }),
    onSubscribe: (req, params) => {
      // A subscription runs on the schema it started with until it ends, whatever changes meanwhile.
      const { engine, costs } = live.state
      const prepared = engine.prepare(params.query as string)
      // graphql-sse takes a result only with a `data` member.
      if (prepared.errors !== undefined) return { data: null, errors: [...prepared.errors] }
      const operation = getOperationAST(prepared.document, params.operationName)
      if (operation == null) return { data: null, errors: [unknownOperation(params.operationName)] }
      if (operation.operation !== 'subscription') {
        return { data: null, errors: [new GraphQLError('Only subscriptions run over the stream; send queries and mutations to /graphql.', { extensions: { code: GRAPHQL_CODES.operationNotSupported } })] }
      }
      const tooCostly = costs.check(prepared.document, params.operationName, params.variables)
      if (tooCostly !== undefined) return { data: null, errors: [tooCostly] }
      const contextValue: GraphQLContext = { request: req.raw, auth }
      return { schema: engine.schema, document: prepared.document, operationName: params.operationName, variableValues: params.variables, contextValue }
    }
  })
  const stream = { rqs: { access: 'read' as const } }
  for (const method of ['GET', 'POST'] as const) {
    app.route({
      method,
      url: '/graphql/stream',
      config: stream,
      exposeHeadRoute: false,
      schema: streamSchema(method),
      handler: async (request, reply) => {
        // A slot of the server's stream budget first: a refusal is a 429 or 503, before any byte of a stream.
        if (takeStreamSlot(app.streams, request, reply) === undefined) return reply
        reply.hijack() // graphql-sse writes the response itself, event by event
        // A subscription lives as long as its client listens: the request's read budget (--read-budget), spent long before, must not refuse its later reads.
        await withoutDeadline(async () => { await handler(request, reply) })
      }
    })
  }
}
