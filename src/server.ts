import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify'
import { checkDeclaredNames, type Config } from './options.js'
import { BoundLog, bodyHeadersPlugin, compressionPlugin, connectPlugin, echoRequestId, fastifyOptions, installLazyRequestLoggers, lazyRequestLogger, requestLimitsPlugin, serverLogger, timeForAccessLog } from './http/transport/index.js'
import { serializersOnFirstUse } from './http/transport/serializers.js'
import { errorCatalogueRoutes } from './services/catalogue/index.js'
import { createMetrics, healthPlugin, metrics, metricsOptions } from './http/operations/index.js'
import { MountTable, mountsPlugin, publicUrlPlugin, validationPlugin, vendorType } from './http/rest/index.js'
import { openApiPlugin } from './http/openapi/index.js'
import { principalOf, security, securityPluginOptions } from './http/security/index.js'
import { streams } from './http/streams/index.js'
import { feedStreamCap } from './services/events/config.js'
import { authEnabled } from './config/security.js'
import { docsService } from './services/docs/index.js'
import { homeService } from './services/home/index.js'
import { collectionsOf, declarationsOf, enabledServices, errorCatalogue, SERVICES, tagsOf } from './services/index.js'
import { refuseOverlappingPaths } from './services/paths.js'
import type { ServiceDescriptor } from './services/types.js'
import { seedStores } from './data/seed.js'
import { observeFailures, openStores } from './stores/index.js'
import type { RecordStores } from './domain/index.js'
import { PACKAGE_VERSION } from './version.js'
import { RequestStart } from './http/routes/index.js'

export interface ServerDependencies {
  /** Stores to use instead of opening the configured ones (tests inject failing or shared stores). */
  stores?: RecordStores
  /** Sees every route as it is added (the contract test compares them with the OpenAPI document). */
  onRoute?: (route: RouteOptions) => void
  /** Where log lines go instead of stdout as JSON (the CLI's pretty format, a test's collector). */
  logStream?: { write: (line: string) => void }
  /** Services to run after the built-in ones (those their `enabled` accepts): an embedding's own, a test's fixture. Their options must be in `config` (resolveConfig's `extra`). */
  services?: readonly ServiceDescriptor[]
}

/** Builds a ready (not yet listening) server for a Config. Safe to call many times in one process. */
export async function buildServer (config: Config, deps: ServerDependencies = {}): Promise<FastifyInstance> {
  checkDeclaredNames(config, deps.services)
  const services = enabledServices(config, deps.services)
  refuseOverlappingPaths(config, services)
  const mounts = new MountTable()
  const bounds = new BoundLog()
  // Response serialisers compiled when first used: the start compiles none (see serializersOnFirstUse).
  const app = Fastify({ ...fastifyOptions(config, { frameworkErrors: mounts.frameworkErrors, bounds, principalOf }), schemaController: { compilersFactory: { buildSerializer: serializersOnFirstUse } } })
  // Fastify is given no logger, so that it times and listens to a response only where an onResponse hook
  // needs it (see serverLogger); everything logs through this one: app.log, and every request's child of it.
  app.log = serverLogger(config, deps.logStream)
  // Every request's child of it is made when it first logs; by the request itself where this Fastify allows, else by a factory.
  if (!installLazyRequestLoggers(app)) app.setChildLoggerFactory(lazyRequestLogger)
  if (config.accessLog) app.addHook('onResponse', timeForAccessLog)
  // Before any route: routes take the error handler in force when they are added, and the ones added
  // before the services (health, /openapi.json) answer refusals such as a foreign Host as problems too.
  app.setErrorHandler(mounts.rootErrors)
  if (deps.onRoute !== undefined) app.addHook('onRoute', deps.onRoute)
  // Every service this server knows hands its declarations to the stores, whether it runs or not (seed files and imports reach them).
  const known = [...SERVICES, ...deps.services ?? []]
  const opened = deps.stores ?? await openStores(config.store, app.log, declarationsOf(known, config), config.connections.readBudgetMs)
  // Stores this server opened are closed with it, also when a later start-up step fails.
  if (deps.stores === undefined) app.addHook('onClose', async () => { await opened.close() })
  // With --metrics, the services get stores that count their failures (a decorator implementing the whole contract).
  const metricsRegistry = await createMetrics(config.security.metrics)
  const stores = metricsRegistry === undefined ? opened : observeFailures(opened, (collection, operation, err) => { metricsRegistry.countStoreError(collection, operation, err) })
  try {
    // Seed files may hold any service's records, whether that service is switched on or not.
    // One line per file, in words; JSON logs keep the numbers in `seeded` ({ file, service, records }).
    for (const seeded of await seedStores(stores, config.seed, collectionsOf(known, config))) app.log.info({ seeded }, `seeded ${seeded.records} ${seeded.service} from ${seeded.file}`)
    // The codes this server answers with, its services' among them: every renderer, /errors and /openapi.json read them here.
    app.decorate('errorCatalogue', errorCatalogue(services))
    const versions = [...new Set(services.flatMap((s) => s.versions))].sort((a, b) => a - b)
    // One onRequest hook runs the synchronous steps of every request's start, in this order: the deadline's
    // watch and the request id's echo (the limits), the Host check and the protective headers (security).
    const start = new RequestStart()
    app.decorate('requestStart', start)
    await app.register(requestLimitsPlugin, { limits: config.connections, bounds, onRequest: echoRequestId, start })
    // Before every route (issue 11): authentication, audit and metrics hook into routes as they are added.
    await app.register(security, { ...securityPluginOptions(config, mounts), start })
    // One budget for every long-lived stream (the change feed's and GraphQL subscriptions: issue 36), set by the feed's options.
    const perClient = config.events.maxStreamsPerClient
    await app.register(streams, { maxStreams: feedStreamCap(config.events, config.connections), maxStreamsPerClient: perClient > 0 ? perClient : Infinity })
    await app.register(metrics, metricsOptions(metricsRegistry, stores))
    await app.register(publicUrlPlugin, { publicUrl: config.publicUrl })
    await app.register(connectPlugin)
    await app.register(bodyHeadersPlugin)
    await app.register(compressionPlugin)
    await app.register(validationPlugin, { vendor: config.versioning.vendor })
    // Before the routes: it collects them as they are added.
    const newestType = vendorType(config.versioning.vendor, Math.max(1, ...versions))
    await app.register(openApiPlugin, {
      newestType,
      tags: tagsOf(services, config),
      bearerAuth: authEnabled(config.security),
      // The refusals the document lists: only those of the features that are on.
      security: { auth: authEnabled(config.security), jwt: config.security.authJwksUrl !== undefined, rateLimit: config.security.rateLimit !== undefined, overload: config.security.overload }
    })
    await app.register(healthPlugin, { stores })
    await app.register(mountsPlugin, { versioning: config.versioning, versions, table: mounts })
    await app.register(errorCatalogueRoutes)
    const links = services.flatMap((s) => s.links(config))
    const collections = collectionsOf(services, config)
    for (const service of services) await service.register(app, { config, stores, links, collections })
    await app.register(docsService)
    await app.register(homeService, { name: 'rqs', version: PACKAGE_VERSION, links, newestType })
    await app.ready()
    return app
  } catch (err) {
    await app.close().catch(() => {})
    throw err
  }
}
