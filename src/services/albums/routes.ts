import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fastifyStatic from '@fastify/static'
import type { ServedCollection } from '../../data/collection.js'
import type { RecordStores } from '../../domain/index.js'
import type { ChangeStreams } from '../../graphql/changes.js'
import type { AlbumsConfig } from './config.js'
import { ACCESS_REFUSALS, type ErrorCode, type Classified, errorPipeline, problems } from '../../http/errors/index.js'
import { routableMethods } from '../../http/rest/index.js'
import { declareRoutes } from '../../http/routes/index.js'
import { appendVary } from '../../lib/vary.js'
import { DEFAULT_ALBUMS, loadAlbumsFile } from './albums.js'
import { GRAPHQL_CODES } from './codes.js'
import { BUNDLE_MISSING_PAGE, graphiqlBundleExists, graphiqlPage } from './graphiql.js'
import { JSON_UTF8, prefersHtml, responseMediaType } from './negotiation.js'
import { loadGraphqlPackages } from './packages.js'
import { graphiqlSchema, graphqlGetSchema, graphqlPostSchema, sdlSchema, streamSchema } from './openapi.js'
import type { GraphqlProtocol, ProtocolOptions } from './protocol.js'
import { errorBody, INTERNAL_MESSAGE } from './replies.js'
import { takeStreamSlot } from './stream-slots.js'

export interface AlbumsServiceOptions {
  config: AlbumsConfig
  /** Where the service is mounted ('' or e.g. '/albums'), for the links the GraphiQL page holds. */
  base: string
  /** The collections whose fields stand beside `albums`, as they are now (none: the album schema alone). */
  collections?: () => readonly ServedCollection[]
  /** The stores of those collections. */
  stores?: RecordStores
  /** The change log's streams, for the subscriptions at /graphql/stream. */
  streams?: ChangeStreams
  /** Whether tokens are checked: mutations then need the write scope. */
  auth?: boolean
  /** Tells a listener when the collections changed while the server runs (none: the schema never changes). */
  follow?: (listener: () => void) => void
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
 * The GraphQL side, loaded by the first request that needs it: a start
 * loads neither graphql-js nor graphql-http, graphql-sse and graphql-jit,
 * nor builds the schema. It is loaded and built a part per turn of the event
 * loop (./packages.ts, src/graphql/turns.ts), so that other requests are
 * answered meanwhile; those that need it wait for the same load. Once
 * loaded, requests reach it without waiting.
 */
class LazyProtocol {
  #loading: Promise<GraphqlProtocol> | undefined
  /** Made, its schema maybe not built yet: a change of the collections reaches its build. */
  #made: GraphqlProtocol | undefined
  loaded: GraphqlProtocol | undefined

  constructor (private readonly options: ProtocolOptions) {}

  async load (): Promise<GraphqlProtocol> {
    // A load that failed (a schema that cannot be built) is tried again by the next request, as a build was before.
    this.#loading ??= this.#load().catch((err: unknown) => { this.#loading = undefined; throw err })
    return await this.#loading
  }

  /** The collections changed: a schema built (or being built) is built again from them. */
  followCollections (): void {
    this.#made?.followCollections()
  }

  async #load (): Promise<GraphqlProtocol> {
    await loadGraphqlPackages()
    const { graphqlProtocol } = await import('./protocol.js')
    const made = this.#made ??= graphqlProtocol(this.options)
    await made.ready()
    return (this.loaded = made)
  }
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
  const auth = opts.auth === true
  const stores = opts.stores ?? { collections: new Map() } as unknown as RecordStores
  const protocol = new LazyProtocol({ albums, config, base, auth, collections: opts.collections, stores, streams: opts.streams })
  // A change of the collections rebuilds a schema already built; one not yet built is built from the collections as they are then.
  opts.follow?.(() => { protocol.followCollections() })

  // graphql-http reads the raw body itself so that it, not Fastify, decides
  // what a wrong content type or malformed JSON gets (415, 400 per the spec).
  // The same parser is also registered for application/json by name: Fastify
  // remembers which parser a named type gets, while it works the catch-all out
  // again (parsing the Content-Type) for every request it serves.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, keepBodyText)
  app.addContentTypeParser('*', { parseAs: 'string' }, keepBodyText)
  app.setErrorHandler(graphqlErrors.handleError)

  function graphqlHandler (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> | undefined {
    const loaded = protocol.loaded
    if (loaded !== undefined) return loaded.graphqlHandler(request, reply)
    return protocol.load().then(async (p) => await (p.graphqlHandler(request, reply) ?? reply))
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
      return protocol.load().then((p) => reply.type('text/plain; charset=utf-8').send(p.sdl()))
    })
  }

  // A server whose collections may change serves the stream even before it has a subscription.
  // It has a subscription beside collections that have a store (what gives the schema its Subscription type).
  const hasSubscriptions = opts.collections?.().some((c) => stores.collections.has(c.name)) === true
  if (opts.streams !== undefined && (hasSubscriptions || opts.follow !== undefined)) registerStream(app, protocol)

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
function registerStream (app: FastifyInstance, protocol: LazyProtocol): void {
  const stream = { rqs: { access: 'read' as const } }
  for (const method of ['GET', 'POST'] as const) {
    app.route({
      method,
      url: '/graphql/stream',
      config: stream,
      exposeHeadRoute: false,
      schema: streamSchema(method),
      handler: async (request, reply) => {
        const { streamHandler } = protocol.loaded ?? await protocol.load()
        // A slot of the server's stream budget first: a refusal is a 429 or 503, before any byte of a stream.
        if (takeStreamSlot(app.streams, request, reply) === undefined) return reply
        reply.hijack() // graphql-sse writes the response itself, event by event
        await streamHandler(request, reply)
      }
    })
  }
}
