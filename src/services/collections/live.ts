import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import type { RecordStores } from '../../domain/index.js'
import type { ErrorCatalogue } from '../../http/errors/index.js'
import { KeptLists, KeptPages, MountTable, mountsPlugin, publicUrlPlugin, RecordEtags, validationPlugin } from '../../http/rest/index.js'
import type { VersioningConfig } from '../../config/versioning.js'
import { collectionStore } from '../records/routes.js'
import type { CollectionSchema } from './declare.js'
import { openApiPlugin, type OpenApiDocument, type SecurityFeatures } from '../../http/openapi/index.js'
import type { CollectionEntry, CollectionRegistry } from './registry.js'
import { collectionRepresentations, type CollectionRoutesOptions } from './routes.js'
import { sharedCollectionValidator } from './validation.js'
import { expansionOf } from './expand.js'
import { relationsOf } from '../../records/index.js'

/**
 * The REST routes of collections whose declaration changed, or that were
 * created, while the server runs. Fastify takes no route once it listens,
 * so each such declaration gets a server of its own, never listening, with
 * the record routes every collection has (the same handlers, validators
 * compiled for that declaration); the listening server's routes (one
 * parametric set, and those a declared collection was mounted with at
 * start) hand a request to the server of the declaration in force when it
 * came. Authentication, limits and the audit log ran on the listening
 * server before; the answer goes back through its hooks (headers, compression).
 */
export interface LiveOptions {
  registry: CollectionRegistry
  stores: RecordStores
  versioning: VersioningConfig
  versions: readonly number[]
  bodyLimit: number
  publicUrl: string | undefined
  catalogue: ErrorCatalogue
  /** The listening server's logger: a failure inside is logged as any other. */
  log: FastifyBaseLogger
  /** How the listening server's API description is made, for the part each collection lends it. */
  openApi: { newestType: string, bearerAuth: boolean, security: SecurityFeatures }
}

/** How long a replaced declaration's server keeps answering the requests it took before it is closed. */
const DRAIN_MS = 60_000

export class LiveCollections {
  readonly #options: LiveOptions
  readonly #servers = new Map<CollectionSchema, Promise<FastifyInstance>>()
  readonly #closing = new Set<NodeJS.Timeout>()

  constructor (options: LiveOptions) {
    this.#options = options
    options.registry.onChange((change) => {
      // Built now rather than by the first request, which would wait for it (another instance's change included).
      if (change.after !== undefined) this.#serverOf(change.after.schema).catch(() => {})
      const before = change.before?.schema
      const server = before === undefined ? undefined : this.#servers.get(before)
      if (before === undefined || server === undefined) return
      this.#servers.delete(before)
      const timer = setTimeout(() => {
        this.#closing.delete(timer)
        void server.then(async (s) => { await s.close() }).catch(() => {})
      }, DRAIN_MS)
      timer.unref()
      this.#closing.add(timer)
    })
  }

  /** Answers the request with the server of the collection's current declaration (the registry's entry when it came). */
  async forward (request: FastifyRequest, reply: FastifyReply, entry: CollectionEntry): Promise<FastifyReply> {
    const server = await this.#serverOf(entry.schema)
    const payload = await bodyOf(request)
    const answer = await server.inject({ method: request.method as 'GET', url: request.url, headers: request.headers, ...(payload === undefined ? {} : { payload }) })
    void reply.code(answer.statusCode)
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name)) continue
      void reply.header(name, value)
    }
    return await reply.send(answer.rawPayload)
  }

  /** The API description of a declaration's routes, as the listening server's would list them. */
  async documentOf (schema: CollectionSchema): Promise<OpenApiDocument> {
    return await (await this.#serverOf(schema)).openApiDocument()
  }

  async close (): Promise<void> {
    for (const timer of this.#closing) clearTimeout(timer)
    this.#closing.clear()
    const servers = [...this.#servers.values()]
    this.#servers.clear()
    await Promise.all(servers.map(async (s) => { await (await s).close() }))
  }

  #serverOf (schema: CollectionSchema): Promise<FastifyInstance> {
    let server = this.#servers.get(schema)
    if (server === undefined) {
      server = this.#build(schema)
      this.#servers.set(schema, server)
    }
    return server
  }

  /** `?expand=` over the references between every collection the stores keep now (declared, built-in, created at run time). */
  #expansionOf (collection: CollectionSchema): ReturnType<typeof expansionOf> {
    const { stores, registry } = this.#options
    const relations = relationsOf([...stores.collections.values()].map((s) => s.declaration))
    return expansionOf(relations, collection.declaration.name, stores, registry.entries().map((e) => e.schema))
  }

  async #build (collection: CollectionSchema): Promise<FastifyInstance> {
    const { stores, versioning, versions, bodyLimit, publicUrl, catalogue, log } = this.#options
    const name = collection.declaration.name
    const mounts = new MountTable()
    const server = Fastify({ loggerInstance: log, logController: new LogController({ disableRequestLogging: true }), bodyLimit, routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 }, frameworkErrors: mounts.frameworkErrors })
    server.setErrorHandler(mounts.rootErrors)
    server.decorate('errorCatalogue', catalogue)
    await server.register(publicUrlPlugin, { publicUrl })
    const tag = { name, description: collection.description ?? `The collection ${name} (created or changed through the admin API): POST creates, PUT replaces, ETag and If-Match.` }
    await server.register(openApiPlugin, { ...this.#options.openApi, tags: [tag], ui: false })
    await server.register(validationPlugin, { vendor: versioning.vendor })
    await server.register(mountsPlugin, { versioning, versions, table: mounts })
    await server.mountRest<CollectionRoutesOptions>('/', {
      name,
      resources: `/${name}`,
      representations: collectionRepresentations(name, versions),
      options: { collection, records: collectionStore(stores, name), vendor: versioning.vendor, pages: new KeptPages(), lists: new KeptLists(), etags: new RecordEtags(), validator: sharedCollectionValidator(), expansion: this.#expansionOf(collection) }
    })
    await server.ready()
    return server
  }
}

/** Headers of the inner answer that belong to its own connection, not the client's. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date'])

/** The request's body as sent: parsed already (a Buffer from the catch-all parser), or still unread on the socket. */
async function bodyOf (request: FastifyRequest): Promise<Buffer | undefined> {
  if (Buffer.isBuffer(request.body)) return request.body
  if (request.method === 'GET' || request.method === 'HEAD' || request.raw.readableEnded) return undefined
  const chunks: Buffer[] = []
  for await (const chunk of request.raw) chunks.push(chunk as Buffer)
  return chunks.length === 0 ? undefined : Buffer.concat(chunks)
}
