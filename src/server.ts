import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import type { Config } from './config.js'
import type { Stores } from './stores/types.js'
import { openStores } from './stores/index.js'
import { installValidators } from './http/validation.js'
import { requestId } from './http/request-id.js'
import { studentsService } from './services/students/index.js'
import { apiVersionConstraint, VersionNegotiator, vendorJsonPattern, vendorType } from './http/versioning.js'
import type { DeprecationPolicy } from './http/deprecation.js'
import { homeService, type DirectoryLink } from './services/home/index.js'
import { docsService } from './services/docs/index.js'
import { PACKAGE_VERSION } from './version.js'
import { API_DOCS_PATH, OPENAPI_PATH, registerOpenApi } from './http/openapi.js'

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
  const { versioning } = config
  const versions = [1, 2]
  // The header approach: one negotiator for every REST service at its plain base path.
  const negotiator = new VersionNegotiator(versioning.vendor, versions, 1, versioning.mediaType)
  const deprecations = deprecationPolicies(config)

  const app = Fastify({
    logger: { level: config.logLevel },
    logController: new AccessLogController({ disableRequestLogging: !config.accessLog }),
    genReqId: requestId,
    requestIdHeader: false,
    bodyLimit: config.bodyLimit,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 },
    return503OnClosing: true,
    // Keep-alive sockets that are idle are closed at once on shutdown; busy ones finish their request.
    forceCloseConnections: 'idle'
  })
  installValidators(app)
  app.addConstraintStrategy(apiVersionConstraint(negotiator))
  // Bodies sent as a versioned type (application/vnd.rqs.v2+json) are JSON like application/json.
  app.addContentTypeParser(vendorJsonPattern(versioning.vendor), { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'))

  const stores = deps.stores ?? await openStores(config)
  if (deps.stores === undefined) app.addHook('onClose', async () => { await stores.close() })

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    done()
  })

  app.get('/healthz', { schema: { response: { 200: { type: 'object', properties: { status: { type: 'string' } } } } } }, async () => ({ status: 'ok' }))

  app.decorateRequest('apiVersion', 0)
  await registerOpenApi(app) // before the routes: it collects them as they are added
  const notAcceptable = (request: FastifyRequest, reply: FastifyReply, available: readonly string[]): unknown =>
    reply.code(406).header('content-type', 'application/problem+json').send(JSON.stringify({
      type: 'about:blank', title: 'Not Acceptable', status: 406, detail: `Acceptable media types: ${available.join(', ')}`, instance: request.url, available
    }))

  // The entry point's directory (spec, Versioning rule 4): each mounted service adds its links.
  const directory: DirectoryLink[] = [{ rel: 'self', href: '/', title: 'This directory', type: 'application/json' }]

  if (config.students.enabled) {
    const base = prefixOf(config.students.base)
    directory.push({ rel: 'students', href: config.students.base, title: 'Student records service (REST)', type: 'application/json' })
    const serviceConfig = { store: stores.students, assetsDir: config.students.assetsDir, deprecations, notAcceptable }
    await app.register(studentsService({
      prefix: base,
      negotiator,
      successor: (url, version) => ({ url, type: vendorType(versioning.vendor, version + 1) })
    }, serviceConfig), { prefix: base })
    if (versioning.uri) {
      for (const version of versions) {
        const prefix = `/v${version}${base}`
        await app.register(studentsService({
          prefix,
          negotiator: new VersionNegotiator(versioning.vendor, [version], version, versioning.mediaType),
          fixedVersion: version,
          successor: (url) => ({ url: url.replace(`/v${version}/`, `/v${version + 1}/`) })
        }, serviceConfig), { prefix })
      }
    }
  }

  directory.push({ rel: 'service-desc', href: OPENAPI_PATH, title: 'OpenAPI document', type: 'application/openapi+json' })
  directory.push({ rel: 'service-doc', href: API_DOCS_PATH, title: 'API reference (Swagger UI)', type: 'text/html' })
  await app.register(docsService)
  directory.push({ rel: 'help', href: '/docs/', title: 'Documentation: decisions, errors, versioning', type: 'text/html' })
  directory.push({ rel: 'status', href: '/healthz', title: 'Health check', type: 'application/json' })
  await app.register(homeService, { name: 'rqs', version: PACKAGE_VERSION, links: directory })

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
