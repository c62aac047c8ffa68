import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify'
import type { Config } from './config.js'
import { AccessLogController } from './http/access-log.js'
import { BoundLog } from './http/bound-log.js'
import { compressionPlugin } from './http/compression.js'
import { connectPlugin } from './http/connect.js'
import { errorCatalogueRoutes } from './http/catalogue-routes.js'
import { healthPlugin } from './http/health.js'
import { MountTable, mountsPlugin } from './http/mounts.js'
import { openApiPlugin } from './http/openapi.js'
import { publicUrlPlugin } from './http/public-url.js'
import { requestId, requestIdPlugin } from './http/request-id.js'
import { metrics, metricsOptions } from './http/metrics.js'
import { authEnabled, security, securityPluginOptions } from './http/security/index.js'
import { requestLimitsPlugin, serverLimitOptions } from './http/timeouts.js'
import { validationPlugin } from './http/validation.js'
import { vendorType } from './http/versioning.js'
import { addressesService } from './services/addresses/index.js'
import { albumsService } from './services/albums/index.js'
import { appService } from './services/app/index.js'
import { docsService } from './services/docs/index.js'
import { eventsService } from './services/events/index.js'
import { directory, homeService } from './services/home/index.js'
import { studentsService } from './services/students/index.js'
import type { DirectoryLink, ServiceDescriptor } from './services/types.js'
import { seedStores } from './data/seed.js'
import { openStores } from './stores/index.js'
import type { Stores } from './stores/types.js'
import { PACKAGE_VERSION } from './version.js'

/** Every service this server can run, in the order of the entry point's directory. */
export const SERVICES: readonly ServiceDescriptor[] = [studentsService, addressesService, albumsService, eventsService, appService]

export interface ServerDependencies {
  /** Stores to use instead of opening the configured ones (tests inject failing or shared stores). */
  stores?: Stores
  /** Sees every route as it is added (the contract test compares them with the OpenAPI document). */
  onRoute?: (route: RouteOptions) => void
  /** Where log lines go instead of stdout as JSON (the CLI's pretty format, a test's collector). */
  logStream?: { write: (line: string) => void }
}

/** The entry point's directory for a Config: every link `GET /` lists (the CLI's start-up summary prints them). */
export function directoryLinks (config: Config): DirectoryLink[] {
  return directory(SERVICES.filter((s) => s.enabled(config)).flatMap((s) => s.links(config)))
}

/** Builds a ready (not yet listening) server for a Config. Safe to call many times in one process. */
export async function buildServer (config: Config, deps: ServerDependencies = {}): Promise<FastifyInstance> {
  const mounts = new MountTable()
  const bounds = new BoundLog()
  const app = Fastify({
    // Bounded time for every phase of a request, answered or closed and counted in the log (issue 10).
    ...serverLimitOptions(config.connections, bounds),
    logger: { level: config.logLevel, ...(deps.logStream === undefined ? {} : { stream: deps.logStream }) },
    logController: new AccessLogController({ disableRequestLogging: !config.accessLog }),
    genReqId: requestId,
    requestIdHeader: false,
    bodyLimit: config.bodyLimit,
    trustProxy: config.security.trustProxy,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 },
    return503OnClosing: true,
    // Keep-alive sockets that are idle are closed at once on shutdown; busy ones finish their request.
    forceCloseConnections: 'idle',
    // Malformed URLs and over-long path parameters: the service the path belongs to answers.
    frameworkErrors: mounts.frameworkErrors
  })
  if (deps.onRoute !== undefined) app.addHook('onRoute', deps.onRoute)
  const stores = deps.stores ?? await openStores(config, app.log)
  // Stores this server opened are closed with it, also when a later start-up step fails.
  if (deps.stores === undefined) app.addHook('onClose', async () => { await stores.close() })
  try {
    if (config.seed.length > 0) app.log.info({ seeded: await seedStores(stores, config.seed) }, 'seed files loaded')
    const services = SERVICES.filter((s) => s.enabled(config))
    const versions = [...new Set(services.flatMap((s) => s.versions))].sort((a, b) => a - b)
    await app.register(requestLimitsPlugin, { limits: config.connections, bounds })
    await app.register(requestIdPlugin)
    // Before every route (issue 11): authentication, audit and metrics hook into routes as they are added,
    // and the metrics count the stores' errors by wrapping them before the services take them.
    await app.register(security, securityPluginOptions(config, mounts))
    await app.register(metrics, metricsOptions(config, stores))
    await app.register(publicUrlPlugin, { publicUrl: config.publicUrl })
    await app.register(connectPlugin)
    await app.register(compressionPlugin)
    await app.register(validationPlugin, { vendor: config.versioning.vendor })
    // Before the routes: it collects them as they are added.
    await app.register(openApiPlugin, { newestType: vendorType(config.versioning.vendor, Math.max(1, ...versions)), tags: services.flatMap((s) => s.tags), bearerAuth: authEnabled(config.security) })
    await app.register(healthPlugin, { stores })
    await app.register(mountsPlugin, { versioning: config.versioning, versions, table: mounts })
    await app.register(errorCatalogueRoutes)
    const links = services.flatMap((s) => s.links(config))
    for (const service of services) await service.register(app, { config, stores, links })
    await app.register(docsService)
    await app.register(homeService, { name: 'rqs', version: PACKAGE_VERSION, links, newestType: vendorType(config.versioning.vendor, Math.max(1, ...versions)) })
    await app.ready()
    return app
  } catch (err) {
    await app.close().catch(() => {})
    throw err
  }
}
