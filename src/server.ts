import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify'
import type { Config } from './config.js'
import { BoundLog } from './http/bound-log.js'
import { compressionPlugin } from './http/compression.js'
import { connectPlugin } from './http/connect.js'
import { errorCatalogueRoutes } from './http/catalogue-routes.js'
import { healthPlugin } from './http/health.js'
import { MountTable, mountsPlugin } from './http/mounts.js'
import { openApiPlugin } from './http/openapi.js'
import { publicUrlPlugin } from './http/public-url.js'
import { requestIdPlugin } from './http/request-id.js'
import { fastifyOptions } from './http/server-options.js'
import { metrics, metricsOptions } from './http/metrics.js'
import { authEnabled, security, securityPluginOptions } from './http/security/index.js'
import { requestLimitsPlugin } from './http/timeouts.js'
import { validationPlugin } from './http/validation.js'
import { vendorType } from './http/versioning.js'
import { docsService } from './services/docs/index.js'
import { homeService } from './services/home/index.js'
import { enabledServices } from './services/index.js'
import { seedStores } from './data/seed.js'
import { openStores } from './stores/index.js'
import type { Stores } from './stores/types.js'
import { PACKAGE_VERSION } from './version.js'

export interface ServerDependencies {
  /** Stores to use instead of opening the configured ones (tests inject failing or shared stores). */
  stores?: Stores
  /** Sees every route as it is added (the contract test compares them with the OpenAPI document). */
  onRoute?: (route: RouteOptions) => void
  /** Where log lines go instead of stdout as JSON (the CLI's pretty format, a test's collector). */
  logStream?: { write: (line: string) => void }
}

/** Builds a ready (not yet listening) server for a Config. Safe to call many times in one process. */
export async function buildServer (config: Config, deps: ServerDependencies = {}): Promise<FastifyInstance> {
  const mounts = new MountTable()
  const bounds = new BoundLog()
  const app = Fastify(fastifyOptions(config, mounts, bounds, deps.logStream))
  // Before any route: routes take the error handler in force when they are added, and the ones added
  // before the services (health, /openapi.json) answer refusals such as a foreign Host as problems too.
  app.setErrorHandler(mounts.rootErrors)
  if (deps.onRoute !== undefined) app.addHook('onRoute', deps.onRoute)
  const stores = deps.stores ?? await openStores(config, app.log)
  // Stores this server opened are closed with it, also when a later start-up step fails.
  if (deps.stores === undefined) app.addHook('onClose', async () => { await stores.close() })
  try {
    if (config.seed.length > 0) app.log.info({ seeded: await seedStores(stores, config.seed) }, 'seed files loaded')
    const services = enabledServices(config)
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
    const newestType = vendorType(config.versioning.vendor, Math.max(1, ...versions))
    await app.register(openApiPlugin, { newestType, tags: services.flatMap((s) => s.tags), bearerAuth: authEnabled(config.security) })
    await app.register(healthPlugin, { stores })
    await app.register(mountsPlugin, { versioning: config.versioning, versions, table: mounts })
    await app.register(errorCatalogueRoutes)
    const links = services.flatMap((s) => s.links(config))
    for (const service of services) await service.register(app, { config, stores, links })
    await app.register(docsService)
    await app.register(homeService, { name: 'rqs', version: PACKAGE_VERSION, links, newestType })
    await app.ready()
    return app
  } catch (err) {
    await app.close().catch(() => {})
    throw err
  }
}
