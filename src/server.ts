import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import type { Config } from './config.js'
import type { Stores } from './stores/types.js'
import { openStores } from './stores/index.js'
import { installValidators } from './http/validation.js'
import { installDepthLimitedJson } from './http/json-depth.js'
import { registerPublicUrl } from './http/public-url.js'
import { answerConnectRequests } from './http/connect.js'
import { BoundLog } from './http/bound-log.js'
import { installRequestLimits, serverLimitOptions } from './http/timeouts.js'
import { requestId } from './http/request-id.js'
import { studentsService } from './services/students/index.js'
import { apiVersionConstraint, VersionNegotiator, vendorJsonPattern, vendorType } from './http/versioning.js'
import type { DeprecationPolicy } from './http/deprecation.js'
import type { MountHandlers, ServiceMount } from './http/versioned-mount.js'
import { addressesService } from './services/addresses/index.js'
import { problemErrorHandler, problemNotFound } from './http/errors/handler.js'
import { errorCatalogueRoutes } from './http/errors/route.js'
import { sendProblem } from './http/problem.js'
import { homeService, type DirectoryLink } from './services/home/index.js'
import { docsService } from './services/docs/index.js'
import { PACKAGE_VERSION } from './version.js'
import { API_DOCS_PATH, OPENAPI_PATH, registerOpenApi } from './http/openapi.js'
import { albumsService } from './services/albums/routes.js'

/**
 * Access logging: one line per finished request (Fastify's "request completed",
 * with method, url, status and time), not two. It costs about a tenth of a
 * simple read, so it is opt-in (--access-log).
 */
class AccessLogController extends LogController {
  override incomingRequest (): void {}

  override requestCompleted (error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return
    const line = { method: request.method, url: request.url, statusCode: reply.statusCode, responseTime: reply.elapsedTime }
    if (error == null) request.log.info(line, 'request completed')
    else request.log.error({ ...line, err: error }, 'request errored')
  }
}

export interface ServerDependencies {
  /** Stores to use instead of opening the configured ones (tests inject failing or shared stores). */
  stores?: Stores
}

/**
 * Builds a ready (not yet listening) server for a Config. Safe to call many
 * times in one process: nothing here is global.
 */
export async function buildServer (config: Config, deps: ServerDependencies = {}): Promise<FastifyInstance> {
  const opened: { stores?: Stores } = {}
  try {
    return await assembleServer(config, deps, opened)
  } catch (err) {
    // A start-up step after the stores opened failed: close them, or an open
    // database pool would keep the process from exiting.
    await opened.stores?.close().catch(() => {})
    throw err
  }
}

async function assembleServer (config: Config, deps: ServerDependencies, opened: { stores?: Stores }): Promise<FastifyInstance> {
  const { versioning } = config
  const versions = [1, 2]
  // The header approach: one negotiator for every REST service at its plain base path.
  const negotiator = new VersionNegotiator(versioning.vendor, versions, 1, versioning.mediaType)
  const deprecations = deprecationPolicies(config)
  const problems = problemErrorHandler()
  // Unknown paths and pre-routing errors: the service whose resources the path is under answers
  // (in its shape and version); anything else gets a problem. Dispatched by path prefix.
  const mounts: Array<[string, MountHandlers]> = []
  const errorByMount = function (this: FastifyInstance, error: FastifyError, request: FastifyRequest, reply: FastifyReply): unknown {
    const mount = mountFor(mounts, request.url)
    return mount === undefined ? problems(error, request, reply) : mount.error.call(this, error, request, reply)
  }

  const bounds = new BoundLog()
  const app = Fastify({
    // Bounded time for every phase of a request, answered or closed and counted in the log (issue 10).
    ...serverLimitOptions(config.connections, bounds),
    logger: { level: config.logLevel },
    logController: new AccessLogController({ disableRequestLogging: !config.accessLog }),
    genReqId: requestId,
    requestIdHeader: false,
    bodyLimit: config.bodyLimit,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 },
    return503OnClosing: true,
    // Keep-alive sockets that are idle are closed at once on shutdown; busy ones finish their request.
    forceCloseConnections: 'idle',
    // Malformed URLs and over-long path parameters are rejected before routing; the service the
    // path belongs to answers them in its own shape (a problem elsewhere).
    frameworkErrors: function (this: FastifyInstance, error, request, reply) {
      reply.header('x-request-id', request.id) // the onRequest hook that sets it has not run
      return errorByMount.call(this, error, request, reply)
    }
  })
  installRequestLimits(app, config.connections, bounds)
  installValidators(app)
  answerConnectRequests(app)
  registerPublicUrl(app, config.publicUrl)
  app.addConstraintStrategy(apiVersionConstraint(negotiator))
  // Bodies sent as a versioned type (application/vnd.rqs.v2+json) are JSON like application/json;
  // both refuse bodies nested deeper than the parsers can walk (issue 10).
  installDepthLimitedJson(app, vendorJsonPattern(versioning.vendor))

  const stores = deps.stores ?? await openStores(config, app.log)
  if (deps.stores === undefined) {
    opened.stores = stores
    app.addHook('onClose', async () => { await stores.close() })
  }

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    done()
  })

  app.get('/healthz', { schema: { response: { 200: { type: 'object', properties: { status: { type: 'string' } } } } } }, async () => ({ status: 'ok' }))

  // Readiness, unlike liveness, follows the database: a load balancer stops
  // sending traffic while the store is unreachable, and resumes by itself.
  const statusSchema = { type: 'object', properties: { status: { type: 'string' } } }
  app.get('/readyz', { schema: { response: { 200: statusSchema, 503: statusSchema } } }, async (request, reply) => {
    try {
      await stores.ping()
      return { status: 'ready' }
    } catch (err) {
      request.log.warn({ err }, 'not ready: store unavailable')
      return reply.code(503).header('retry-after', '5').send({ status: 'unavailable' })
    }
  })

  app.decorateRequest('apiVersion', 0)
  await registerOpenApi(app) // before the routes: it collects them as they are added

  // Outside the services, errors are RFC 9457 problems too; errors of unknown paths under a
  // service (a bad body on the way to a 404) are answered by that service.
  app.setErrorHandler(errorByMount)
  await app.register(errorCatalogueRoutes)

  // Which prefixes already have a not-found handler (Fastify allows one per prefix).
  const notAcceptable = (_request: FastifyRequest, reply: FastifyReply, available: readonly string[]): unknown =>
    sendProblem(reply, 'NOT_ACCEPTABLE', { detail: `This resource is available as: ${available.join(', ')}` })

  /**
   * Mounts a REST service at its base (versions negotiated by Accept) and,
   * with URI versioning, under /v1/…, /v2/… (the URI fixes the version).
   * Both routes lead to the same handlers and records.
   */
  const mountEverywhere = async (base: string, resources: string, service: (mount: ServiceMount) => (app: FastifyInstance) => Promise<void>): Promise<void> => {
    const prefix = prefixOf(base)
    await app.register(service({
      negotiator,
      successor: (url, version) => ({ url, type: vendorType(versioning.vendor, version + 1) }),
      deprecations,
      expose: (handlers) => addMount(mounts, prefix + resources, handlers),
      notAcceptable
    }), { prefix })
    if (!versioning.uri) return
    for (const version of versions) {
      const uriPrefix = `/v${version}${prefix}`
      await app.register(service({
        negotiator: new VersionNegotiator(versioning.vendor, [version], version, versioning.mediaType),
        fixedVersion: version,
        successor: (url) => ({ url: url.replace(`/v${version}/`, `/v${version + 1}/`) }),
        deprecations,
        expose: (handlers) => addMount(mounts, uriPrefix + resources, handlers),
        notAcceptable
      }), { prefix: uriPrefix })
    }
  }

  // The entry point's directory (spec, Versioning rule 4): each mounted service adds its links.
  const directory: DirectoryLink[] = [{ rel: 'self', href: '/', title: 'This directory', type: 'application/json' }]

  if (config.students.enabled) {
    directory.push({ rel: 'students', href: config.students.base, title: 'Student records service (REST)', type: 'application/json' })
    await mountEverywhere(config.students.base, '', (mount) => studentsService(mount, { store: stores.students, assetsDir: config.students.assetsDir }))
  }
  if (config.addresses.enabled) {
    const collection = `${prefixOf(config.addresses.base)}/addresses`
    directory.push({ rel: 'addresses', href: collection, title: 'Address book service (REST)', type: 'application/json' })
    await mountEverywhere(config.addresses.base, '/addresses', (mount) => addressesService(mount, { store: stores.addresses, vendor: versioning.vendor }))
  }
  if (config.albums.enabled) {
    const base = prefixOf(config.albums.base)
    await app.register(albumsService, { prefix: base, config: config.albums, base: config.albums.base })
    directory.push({ rel: 'albums', href: `${base}/graphql`, title: 'Album query service (GraphQL)', type: 'application/graphql-response+json' })
    directory.push({ rel: 'albums-editor', href: `${base}/graphiql`, title: 'GraphiQL editor for the album query service', type: 'text/html' })
  }
  directory.push({ rel: 'errors', href: '/errors', title: 'Error catalogue', type: 'text/html' })

  directory.push({ rel: 'service-desc', href: OPENAPI_PATH, title: 'OpenAPI document', type: 'application/openapi+json' })
  directory.push({ rel: 'service-doc', href: API_DOCS_PATH, title: 'API reference (Swagger UI)', type: 'text/html' })
  await app.register(docsService)
  directory.push({ rel: 'help', href: '/docs/', title: 'Documentation: decisions, errors, versioning', type: 'text/html' })
  directory.push({ rel: 'status', href: '/healthz', title: 'Health check', type: 'application/json' })
  await app.register(homeService, { name: 'rqs', version: PACKAGE_VERSION, links: directory })
  app.setNotFoundHandler((request, reply) => {
    const mount = mountFor(mounts, request.url)
    return mount === undefined ? problemNotFound(request, reply) : mount.notFound(request, reply)
  })

  await app.ready()
  return app
}

/** `/` mounts at the root (Fastify's empty prefix); anything else as given. */
function prefixOf (base: string): string {
  return base === '/' ? '' : base
}

function deprecationPolicies (config: Config): Map<number, DeprecationPolicy> {
  const since = config.versioning.deprecatedSince ?? new Date()
  const policy: DeprecationPolicy = { since, sunset: config.versioning.sunset, docsUrl: '/docs/versioning.md' }
  return new Map(config.versioning.deprecated.map((v) => [v, policy]))
}

/** Keeps mounts longest resource path first, so /v2/students wins over a mount at the root. */
function addMount (mounts: Array<[string, MountHandlers]>, root: string, handlers: MountHandlers): void {
  mounts.push([root, handlers])
  mounts.sort((a, b) => b[0].length - a[0].length)
}

/** The mount whose resource path the URL is under. */
function mountFor (mounts: ReadonlyArray<[string, MountHandlers]>, url: string): MountHandlers | undefined {
  for (const [root, handlers] of mounts) {
    if (root === '' || (url.startsWith(root) && (url.length === root.length || url[root.length] === '/' || url[root.length] === '?'))) return handlers
  }
  return undefined
}
