import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { RecordStores } from '../../domain/index.js'
import { problems } from '../errors/index.js'
import type { RqsMetrics } from './metrics-registry.js'

export interface MetricsPluginOptions {
  /** The registry (made by the composition root, which also counts the stores' failures into it); undefined when metrics are off. */
  metrics: RqsMetrics | undefined
  /** The database pool's use, when the store has a pool. */
  poolStats?: RecordStores['poolStats']
}

/** The options for `app.register(metrics, …)` from the configuration. */
export function metricsOptions (metrics: RqsMetrics | undefined, stores: RecordStores): MetricsPluginOptions {
  return { metrics, poolStats: stores.poolStats }
}

/** The metrics registry when `--metrics` is on: prom-client loads only then (it is a tenth of an idle server's memory, issue 12). */
export async function createMetrics (enabled: boolean): Promise<RqsMetrics | undefined> {
  if (!enabled) return undefined
  const { RqsMetrics } = await import('./metrics-registry.js')
  return new RqsMetrics()
}

export const METRICS_PATH = '/metrics'
const UNMATCHED = 'unmatched'
/** The label of a route that declares no service (none should: test/http/routes/declarations.slow.test.ts walks them). */
const UNDECLARED = 'other'

/**
 * Prometheus metrics with prom-client at `GET /metrics`: requests and their
 * latency by service, route pattern, method and status; refusals by code;
 * store errors; PostgreSQL pool use; the process and event-loop metrics.
 * Registered after the security plugins, so /metrics needs the `metrics`
 * scope when authentication is on. Off: nothing is registered.
 */
async function metricsPlugin (app: FastifyInstance, opts: MetricsPluginOptions): Promise<void> {
  const { metrics, poolStats } = opts
  if (metrics === undefined) return
  if (poolStats !== undefined) metrics.watchPool(poolStats)
  app.decorate('rqsMetrics', metrics)

  app.addHook('onResponse', function observeRequest (request, reply, done) {
    if (request.is404) metrics.requests.record(UNMATCHED, UNMATCHED, request.method, reply.statusCode, reply.elapsedTime / 1000)
    else {
      const { url, config } = request.routeOptions // the service as the route declares it
      metrics.requests.record(url ?? UNMATCHED, config.rqs?.service ?? UNDECLARED, request.method, reply.statusCode, reply.elapsedTime / 1000)
    }
    done()
  })

  // Hidden from /openapi.json: a Prometheus text document for scrapers, described in docs/operations.md.
  // Registered before the server's error handler is set: it names its own, so its refusals are problem details.
  // A scrape: the metrics scope, never rate-limited.
  const scrape = { rqs: { service: 'metrics', access: 'metrics', probe: true } as const }
  app.get(METRICS_PATH, { schema: { hide: true }, config: scrape, errorHandler: problems.handleError }, async (_request, reply) => {
    return await reply.type(metrics.registry.contentType).send(await metrics.render())
  })
}

export const metrics = fp(metricsPlugin, { name: 'rqs-metrics', fastify: '5.x', dependencies: ['rqs-security'] })
