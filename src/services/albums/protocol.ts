import type { FastifyReply, FastifyRequest } from 'fastify'
import { getOperationAST, GraphQLError, OperationTypeNode, type ExecutionArgs, type ExecutionResult } from 'graphql'
import { createHandler as createSseHandler } from 'graphql-sse/lib/use/fastify'
import { createHandler, type Request as GraphQLHttpRequest, type RequestParams, type Response as GraphQLHttpResponse } from 'graphql-http'
import type { ServedCollection } from '../../data/collection.js'
import { callerKey, type RecordStores } from '../../domain/index.js'
import { callerOf } from '../../http/security/index.js'
import type { ChangeStreams } from '../../graphql/changes.js'
import { collectionPartsInSteps, type GraphQLContext } from '../../graphql/schema.js'
import { jsonNestingDepth, MAX_JSON_DEPTH } from '../../http/rest/index.js'
import { appendVary } from '../../lib/vary.js'
import type { Album } from './albums.js'
import { AnswerCache } from './answer-cache.js'
import { GRAPHQL_CODES } from './codes.js'
import type { AlbumsConfig } from './config.js'
import { withCode, type QueryEngine } from './engine.js'
import { concealInternalErrors, isClientMessage, parseParamsSafely, UNPROCESSABLE_MESSAGE } from './internal-errors.js'
import { KeptReadsOf, revisionSum, type KeptReads } from './kept-reads.js'
import { LiveSchema, type PartsInSteps } from './live-schema.js'
import { GRAPHQL_RESPONSE_JSON, JSON_UTF8, responseMediaType } from './negotiation.js'
import { errorBody } from './replies.js'
import { ALBUM_FIELDS, ALBUM_TYPES } from './schema.js'

/**
 * The GraphQL side of the album service: the schema, graphql-http and
 * graphql-sse, and the answers kept. Loaded by the first request that needs
 * it (./routes.ts declares the routes at start): a start loads no GraphQL.
 */
export interface GraphqlProtocol {
  /** Answers /graphql (every method): from the kept answers when it can, else through graphql-http. */
  graphqlHandler: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> | undefined
  /** Answers one subscription over graphql-sse on a hijacked reply. */
  streamHandler: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
  /** The schema as SDL. */
  sdl: () => string
  /** Builds the first schema, a step per turn of the event loop (the handlers above need it built). */
  ready: () => Promise<void>
  /** Builds the schema again from the collections as they are now (one changed while the server runs). */
  followCollections: () => void
}

export interface ProtocolOptions {
  albums: readonly Album[]
  config: AlbumsConfig
  base: string
  auth: boolean
  /** The collections whose fields stand beside `albums`, as they are now (none: the album schema alone). */
  collections?: () => readonly ServedCollection[]
  stores: RecordStores
  streams?: ChangeStreams
}

type HandlerRequest = GraphQLHttpRequest<FastifyRequest, string>

function unknownOperation (operationName: string | null | undefined): GraphQLError {
  const message = operationName == null
    ? 'The document has several operations: say which one to run with operationName.'
    : `The document has no operation named "${operationName}".`
  return new GraphQLError(message, { extensions: { code: GRAPHQL_CODES.badRequest } })
}

/** Every collection's fields beside `albums`, as the collections are now (a collection a step). */
function partsOf (opts: ProtocolOptions): PartsInSteps | undefined {
  const { collections, streams } = opts
  if (collections === undefined || streams === undefined) return undefined
  return () => collectionPartsInSteps({ collections: collections(), stores: opts.stores, streams, takenTypes: ALBUM_TYPES, takenFields: ALBUM_FIELDS })
}

/**
 * A POST body's parameters as graphql-http reads them, when graphql-http
 * would accept them: JSON (UTF-8) within the nesting limit, an object with
 * a query text, variables and extensions objects or null, an operation name
 * text or null. Undefined for anything else, which graphql-http then refuses
 * in its own words.
 */
function jsonParams (contentType: string | undefined, body: unknown): RequestParams | undefined {
  if (typeof body !== 'string' || body === '' || !isJsonUtf8(contentType) || jsonNestingDepth(body, MAX_JSON_DEPTH) < 0) return undefined
  let data: unknown
  try {
    data = JSON.parse(body)
  } catch {
    return undefined
  }
  if (!isPlainObject(data)) return undefined
  const { query, variables, operationName, extensions } = data
  if (typeof query !== 'string') return undefined
  if (variables != null && !isPlainObject(variables)) return undefined
  if (operationName != null && typeof operationName !== 'string') return undefined
  if (extensions != null && !isPlainObject(extensions)) return undefined
  return { query, variables, operationName, extensions } as RequestParams
}

/** graphql-http's test of a POST's Content-Type: application/json, charset utf-8 if any (spaces and case ignored). */
function isJsonUtf8 (contentType: string | undefined): boolean {
  if (contentType === 'application/json') return true
  if (contentType === undefined) return false
  const [mediaType, charset = 'charset=utf-8'] = contentType.replace(/\s/g, '').toLowerCase().split(';')
  return mediaType === 'application/json' && charset === 'charset=utf-8'
}

function isPlainObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isPromise<T> (value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown }).then === 'function'
}

export function graphqlProtocol (opts: ProtocolOptions): GraphqlProtocol {
  const { config, base, auth } = opts
  // The schema as the collections are now: swapped whole when one changes (./live-schema.ts).
  const live = new LiveSchema(opts.albums, config, `${base}/graphql/stream`, partsOf(opts))
  /** What each operation reads, when its answer may be kept (./kept-reads.ts). */
  const keptReads = new KeptReadsOf()
  /** Requests whose answer may be kept: the stores it reads and their revisions' sum before it ran (see AnswerCache). */
  const keepable = new WeakMap<FastifyRequest, { reads: KeptReads, at: number, schema: ExecutionArgs['schema'] }>()

  /**
   * What a request runs, or the errors that refuse it before it runs: the
   * document from the engine's cache (parsed and validated once per text),
   * the operation, its cost for these variables, and the context of this
   * caller (made per request: the rules narrow what each caller reads).
   */
  function operationArgs (request: FastifyRequest, params: RequestParams): { args: ExecutionArgs & { contextValue: GraphQLContext }, operation: OperationTypeNode } | { errors: readonly GraphQLError[] } {
    // The schema of this moment: the request finishes on it even if a change swaps it meanwhile.
    const { engine, costs } = live.state
    const prepared = engine.prepare(params.query)
    if (prepared.errors !== undefined) return prepared
    // Say which operation is missing rather than graphql-http's "Unable to detect operation AST".
    const operation = getOperationAST(prepared.document, params.operationName)
    if (operation == null) return { errors: [unknownOperation(params.operationName)] }
    // graphql-http would refuse it with its own words; say where subscriptions run instead.
    if (operation.operation === 'subscription' && engine.schema.getSubscriptionType() != null) {
      return { errors: [new GraphQLError(`Subscriptions run over Server-Sent Events (the graphql-sse protocol) at ${engine.streamPath}.`, { nodes: operation, extensions: { code: GRAPHQL_CODES.operationNotSupported } })] }
    }
    // Weighed before it runs (issue 36): a document within the shape limits can still ask for a scan per alias.
    const tooCostly = costs.check(prepared.document, params.operationName, params.variables)
    if (tooCostly !== undefined) return { errors: [tooCostly] }
    const reads = keptReads.of(engine.schema, prepared.document, params.operationName)
    // The revisions before the stores are read: a write meanwhile moves them, and the answer is then not kept.
    if (reads !== undefined) keepable.set(request, { reads, at: revisionSum(reads.revisions), schema: engine.schema })
    const contextValue: GraphQLContext = { request, auth }
    return { args: { schema: engine.schema, document: prepared.document, operationName: params.operationName, variableValues: params.variables, contextValue }, operation: operation.operation }
  }

  const handle = createHandler<FastifyRequest, string, GraphQLContext>({
    schema: () => live.state.schema,
    parseRequestParams: parseParamsSafely,
    // Parsing and validation come from the engine's cache instead of graphql-http's own per-request parse + validate.
    onSubscribe: (req, params) => {
      const prepared = operationArgs(req.raw, params)
      return 'errors' in prepared ? prepared.errors : prepared.args
    },
    execute: (args) => live.engineOf(args.schema).execute(args),
    onOperation: (req, args, result) => executionResponse(req.raw, req.context, args as ExecutionArgs, concealInternalErrors(result, req.raw.log)),
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
  function executionResponse (request: FastifyRequest, mediaType: string, args: ExecutionArgs, result: Awaited<ReturnType<QueryEngine['execute']>>): GraphQLHttpResponse {
    // An answer with errors is never kept (a failure may pass; the application/json one rides on 200).
    if (result.errors !== undefined && result.errors.length > 0) keepable.delete(request)
    const failed = result.data === undefined && mediaType === GRAPHQL_RESPONSE_JSON
    return [live.engineOf(args.schema).stringify(args, result), { status: failed ? 400 : 200, statusText: failed ? 'Bad Request' : 'OK', headers: { 'content-type': mediaType } }]
  }
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
    const kept = key === undefined ? undefined : answers.get(key, () => callerKey(callerOf(request)))
    if (kept === undefined || (kept.revisions.length > 0 && revisionSum(kept.revisions) !== kept.at)) return answerWithGraphqlHttp(request, reply, key)
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
    const [body, init] = await (executeDirectly(request, mediaType) ?? handleWithGraphqlHttp(request, mediaType))
    const keep = keepable.get(request)
    // Kept only as read: no write to a store it read since it started, on the schema still served (an old one's stores may be gone).
    if (key !== undefined && init.status === 200 && typeof body === 'string' && keep !== undefined && keep.schema === live.state.schema && revisionSum(keep.reads.revisions) === keep.at) {
      answers.keep(key, { body, headers: { ...(init.headers as Record<string, string> | undefined) }, revisions: keep.reads.revisions, at: keep.at }, keep.reads.perCaller ? callerKey(callerOf(request)) : undefined)
    }
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

  /** The request through graphql-http: it reads the parameters, words what it refuses, and runs the rest through the hooks above. */
  async function handleWithGraphqlHttp (request: FastifyRequest, mediaType: string): Promise<GraphQLHttpResponse> {
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
    return await handle(req)
  }

  /**
   * The common request run without graphql-http: a POST of JSON whose
   * document the engine prepares without errors, within budget, a query or
   * a mutation. It gets what graphql-http would give it (the same hooks, the
   * same answer); anything else (undefined here) goes through graphql-http,
   * which words every refusal.
   */
  function executeDirectly (request: FastifyRequest, mediaType: string): Promise<GraphQLHttpResponse> | undefined {
    const params = request.method === 'POST' ? jsonParams(request.headers['content-type'], request.body) : undefined
    if (params === undefined) return undefined
    const prepared = operationArgs(request, params)
    if ('errors' in prepared || prepared.operation === OperationTypeNode.SUBSCRIPTION) return undefined
    const { args } = prepared
    const respond = (result: ExecutionResult): GraphQLHttpResponse => executionResponse(request, mediaType, args, concealInternalErrors(result, request.log))
    const result = live.engineOf(args.schema).execute(args)
    return isPromise(result) ? result.then(respond) : Promise.resolve(respond(result))
  }

  /**
   * Subscriptions over Server-Sent Events with the graphql-sse protocol: only
   * subscriptions run here; their documents pass the engine's limits as
   * queries do.
   */
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

  return {
    graphqlHandler,
    streamHandler: async (request, reply) => { await handler(request, reply) },
    sdl: () => live.state.sdl,
    ready: async () => { await live.ready() },
    followCollections: () => { live.changed() }
  }
}
