import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../options.js'
import type { Stores } from '../../domain/index.js'
import { problems } from '../errors/index.js'
import type { RqsMetrics } from './metrics-registry.js'
import { METRICS_PATH, ServiceLayout } from '../service-layout.js'

export interface MetricsPluginOptions {
  enabled: boolean
  layout: ServiceLayout
  /** The stores the services are about to use: counted in place (see instrumentStores). */
  stores: Stores
}

/** The options for `app.register(metrics, …)` from the configuration. */
export function metricsOptions (config: Config, stores: Stores): MetricsPluginOptions {
  return { enabled: config.security.metrics, layout: new ServiceLayout(config), stores }
}

const UNMATCHED = 'unmatched'
/** The stores' promise-returning operations (batches is an async iterable, importAll only runs in rqs import). */
const STORE_METHODS = ['list', 'get', 'create', 'replace', 'put', 'delete', 'query', 'count', 'keptWrite'] as const

/**
 * Replaces the student and address stores, in place, by twins that count
 * failed operations. It must run before the services are registered, which
 * take the stores from this object.
 */
export function instrumentStores (stores: Stores, metrics: RqsMetrics): void {
  stores.students = counted(stores.students, 'students', metrics)
  stores.addresses = counted(stores.addresses, 'addresses', metrics)
}

function counted<T extends object> (store: T, name: string, metrics: RqsMetrics): T {
  const twin = Object.create(store) as Record<string, unknown>
  const methods = store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>
  for (const operation of STORE_METHODS) {
    if (typeof methods[operation] !== 'function') continue
    twin[operation] = (...args: unknown[]) => (methods[operation] as (...args: unknown[]) => Promise<unknown>).apply(store, args).catch((err: unknown) => {
      metrics.countStoreError(name, operation, err)
      throw err
    })
  }
  return twin as T
}

/**
 * Prometheus metrics with prom-client at `GET /metrics`: requests and their
 * latency by service, route pattern, method and status; refusals by code;
 * store errors; PostgreSQL pool use; the process and event-loop metrics.
 * Registered after the security plugins, so /metrics needs the `metrics`
 * scope when authentication is on. Off: nothing is registered.
 */
async function metricsPlugin (app: FastifyInstance, opts: MetricsPluginOptions): Promise<void> {
  if (!opts.enabled) return
  // prom-client loads only when metrics are on: it is a tenth of an idle server's memory (issue 12).
  const { RqsMetrics } = await import('./metrics-registry.js')
  const metrics = new RqsMetrics()
  const { layout, stores } = opts
  instrumentStores(stores, metrics)
  if (stores.poolStats !== undefined) metrics.watchPool(stores.poolStats)
  app.decorate('rqsMetrics', metrics)

  const serviceOf = (route: string): string => route === UNMATCHED ? UNMATCHED : layout.classifyRoute(route).service ?? 'other'
  app.addHook('onResponse', function observeRequest (request, reply, done) {
    const route = request.is404 ? UNMATCHED : request.routeOptions.url ?? UNMATCHED
    metrics.requests.record(route, serviceOf, request.method, reply.statusCode, reply.elapsedTime / 1000)
    done()
  })

  // Hidden from /openapi.json: a Prometheus text document for scrapers, described in docs/operations.md.
  // Registered before the server's error handler is set: it names its own, so its refusals are problem details.
  app.get(METRICS_PATH, { schema: { hide: true }, errorHandler: problems.handleError }, async (_request, reply) => {
    return await reply.type(metrics.registry.contentType).send(await metrics.render())
  })
}

export const metrics = fp(metricsPlugin, { name: 'rqs-metrics', fastify: '5.x', dependencies: ['rqs-security'] })
