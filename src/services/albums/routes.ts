import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify'
import fastifyStatic from '@fastify/static'
import { getOperationAST, GraphQLError, type ExecutionArgs } from 'graphql'
import { createHandler, type Request as GraphQLHttpRequest, type Response as GraphQLHttpResponse } from 'graphql-http'
import type { AlbumsConfig } from '../../config.js'
import { DEFAULT_ALBUMS, loadAlbumsFile } from './albums.js'
import { QueryEngine, withCode } from './engine.js'
import { BUNDLE_MISSING_PAGE, graphiqlBundleExists, graphiqlPage } from './graphiql.js'
import { ErrorCode } from './limits.js'
import { GRAPHQL_RESPONSE_JSON, JSON_UTF8, responseMediaType } from './negotiation.js'
import { buildAlbumSchema, SCHEMA_SDL } from './schema.js'
import { routesConnect } from '../../http/connect.js'
import { AppError } from '../../http/problem.js'
import { problemErrorHandler } from '../../http/errors/handler.js'
import { asTimeoutError } from '../../http/timeouts.js'
import { concealInternalErrors, isClientMessage, parseParamsSafely, UNPROCESSABLE_MESSAGE } from './internal-errors.js'

export interface AlbumsServiceOptions {
  config: AlbumsConfig
  /** Where the service is mounted ('' or e.g. '/albums'), for the links the GraphiQL page holds. */
  base: string
}

/** Every method reaches graphql-http, which answers 405 + Allow for all but GET and POST. */
const ALL_METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

type HandlerRequest = GraphQLHttpRequest<FastifyRequest, string>

/** The `{errors: [...]}` body every failure of this service has, with a code clients can branch on. */
function errorBody (message: string, code: string): string {
  return JSON.stringify({ errors: [{ message, extensions: { code } }] })
}

function unknownOperation (operationName: string | null | undefined): GraphQLError {
  const message = operationName == null
    ? 'The document has several operations: say which one to run with operationName.'
    : `The document has no operation named "${operationName}".`
  return new GraphQLError(message, { extensions: { code: ErrorCode.badRequest } })
}

/**
 * The album query service (spec: "Album query service (GraphQL)"): GraphQL over
 * HTTP at `/graphql` (graphql-http does the protocol), the schema as SDL, and
 * GraphiQL bundled into this package at `/graphiql`.
 */
export async function albumsService (app: FastifyInstance, opts: AlbumsServiceOptions): Promise<void> {
  const { config, base } = opts
  const albums = config.albumsFile === undefined ? DEFAULT_ALBUMS : await loadAlbumsFile(config.albumsFile)
  const engine = new QueryEngine(buildAlbumSchema(albums), config)

  const handle = createHandler<FastifyRequest, string>({
    schema: engine.schema,
    parseRequestParams: parseParamsSafely,
    // Parsing and validation come from the engine's cache instead of graphql-http's own per-request parse + validate.
    onSubscribe: (_req, params) => {
      const prepared = engine.prepare(params.query)
      if (prepared.errors !== undefined) return prepared.errors
      // Say which operation is missing rather than graphql-http's "Unable to detect operation AST".
      if (getOperationAST(prepared.document, params.operationName) == null) return [unknownOperation(params.operationName)]
      return { schema: engine.schema, document: prepared.document, operationName: params.operationName, variableValues: params.variables }
    },
    execute: (args) => engine.execute(args),
    onOperation: (req, args, result) => executionResponse(req.context, args as ExecutionArgs, concealInternalErrors(result, req.raw.log)),
    // What graphql-http itself rejects (malformed JSON, a missing query...) is the client's fault; nothing else is worded.
    formatError: (error) => error instanceof GraphQLError
      ? withCode(error, ErrorCode.badRequest)
      : new GraphQLError(isClientMessage(error) ? error.message : UNPROCESSABLE_MESSAGE, { extensions: { code: ErrorCode.badRequest } })
  })

  /**
   * Serialises the result itself: graphql-jit's serialiser is faster, and a
   * result without `data` (variables that do not coerce) is a request error,
   * which GraphQL over HTTP answers with 400 under application/graphql-response+json.
   */
  function executionResponse (mediaType: string, args: ExecutionArgs, result: Awaited<ReturnType<QueryEngine['execute']>>): GraphQLHttpResponse {
    const failed = result.data === undefined && mediaType === GRAPHQL_RESPONSE_JSON
    return [engine.stringify(args, result), { status: failed ? 400 : 200, statusText: failed ? 'Bad Request' : 'OK', headers: { 'content-type': mediaType } }]
  }

  // graphql-http reads the raw body itself so that it, not Fastify, decides
  // what a wrong content type or malformed JSON gets (415, 400 per the spec).
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => { done(null, body) })
  app.setErrorHandler((error: FastifyError, request, reply) => {
    // Catalogue errors raised around the handler (the request time limits) keep their status and code.
    const coded = error instanceof AppError ? error : asTimeoutError(error, request)
    if (coded !== undefined) {
      return reply.code(coded.statusCode).headers(coded.options.headers ?? {}).type(JSON_UTF8).send(errorBody(coded.message, coded.code))
    }
    const status = error.statusCode ?? 500
    if (status >= 500) {
      request.log.error({ err: error }, 'album query service failed')
      return reply.code(500).type(JSON_UTF8).send(errorBody('Internal server error.', ErrorCode.internal))
    }
    const code = status === 413 ? ErrorCode.payloadTooLarge : status === 415 ? ErrorCode.unsupportedMediaType : ErrorCode.badRequest
    return reply.code(status).type(JSON_UTF8).send(errorBody(error.message, code))
  })

  async function graphqlHandler (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    void reply.header('vary', 'Accept')
    const mediaType = responseMediaType(request.headers.accept)
    if (mediaType === undefined) {
      return reply.code(406).header('accept', `${GRAPHQL_RESPONSE_JSON}, ${JSON_UTF8}`).type(JSON_UTF8)
        .send(errorBody('The Accept header allows neither application/graphql-response+json nor application/json.', ErrorCode.notAcceptable))
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
    void reply.code(init.status)
    if (init.status === 405) {
      const message = request.method === 'GET'
        ? 'Mutations cannot be sent with GET; use POST.'
        : `Method ${request.method} is not allowed; use GET or POST.`
      return reply.header('allow', init.headers?.allow ?? 'GET, POST').type(mediaType).send(errorBody(message, ErrorCode.methodNotAllowed))
    }
    if (init.status === 415) {
      return reply.type(mediaType).send(errorBody('A POST body must be JSON: Content-Type application/json (charset utf-8, if given).', ErrorCode.unsupportedMediaType))
    }
    return reply.headers(init.headers ?? {}).send(body)
  }

  app.route({ method: routesConnect(app) ? [...ALL_METHODS, 'CONNECT'] : ALL_METHODS, url: '/graphql', exposeHeadRoute: false, handler: graphqlHandler })

  app.get('/graphql/schema.graphql', (_request, reply) => {
    void reply.type('text/plain; charset=utf-8').send(SCHEMA_SDL)
  })

  // GraphiQL: a page rendered once (it names the endpoint), and the bundle's files beside it.
  if (graphiqlBundleExists(config.graphiqlDir)) {
    const page = graphiqlPage(`${base}/graphql`, `${base}/graphiql/`)
    app.get('/graphiql', (_request, reply) => { void reply.type('text/html; charset=utf-8').send(page) })
    // The bundle's files are not GraphQL: their errors (a refused dotfile, a failed If-Match) are problems, as elsewhere.
    await app.register(async (files) => {
      files.setErrorHandler(problemErrorHandler())
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
    app.get('/graphiql', (_request, reply) => { void reply.code(503).type('text/html; charset=utf-8').send(BUNDLE_MISSING_PAGE) })
  }
}
