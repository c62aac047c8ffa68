import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { StoreUnavailableError, type RecordStores } from '../../domain/index.js'
import type { ErrorCode } from '../errors/index.js'
import { RequestMetrics } from './request-metrics.js'

/**
 * The metrics of one server, in a registry of its own (several servers may
 * run in one process, as the tests do), plus the request counts, which are
 * kept outside prom-client for speed (see ./request-metrics.ts).
 */
export class RqsMetrics {
  readonly registry = new Registry()
  readonly requests = new RequestMetrics()

  readonly #rejections = new Counter({
    name: 'rqs_rejected_requests_total',
    help: 'Requests refused before reaching a service: UNAUTHENTICATED (401), FORBIDDEN (403), RATE_LIMITED (429), OVERLOADED and AUTH_UNAVAILABLE (503), HOST_NOT_ALLOWED (421)',
    labelNames: ['code'] as const,
    registers: [this.registry]
  })

  readonly #overloads = new Counter({
    name: 'rqs_overload_refusals_total',
    help: 'Requests refused with OVERLOADED (503), by the limit that was passed: eventLoopDelay, heapUsedBytes, rssBytes',
    labelNames: ['reason'] as const,
    registers: [this.registry]
  })

  readonly #storeErrors = new Counter({
    name: 'rqs_store_errors_total',
    help: 'Failed store operations: kind "unavailable" (database unreachable, 503), "rejected" (data the store cannot hold, 4xx) or "failed" (anything else, 500)',
    labelNames: ['store', 'operation', 'kind'] as const,
    registers: [this.registry]
  })

  readonly #webhookAttempts = new Counter({
    name: 'rqs_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome: delivered (2xx), retry (failed, tried again later), failed (for good, the webhook disabled)',
    labelNames: ['outcome'] as const,
    registers: [this.registry]
  })

  readonly #webhookDuration = new Histogram({
    name: 'rqs_webhook_attempt_duration_seconds',
    help: 'Time from the start of a webhook delivery attempt to the receiver\'s answer (or the timeout)',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry]
  })

  constructor () {
    // Process CPU, memory, handles, GC and event-loop lag (nodejs_eventloop_lag_*).
    collectDefaultMetrics({ register: this.registry })
  }

  /** Everything, in the Prometheus text format. */
  async render (): Promise<string> {
    return `${await this.registry.metrics()}\n${this.requests.render()}`
  }

  countRejection (code: ErrorCode): void {
    this.#rejections.inc({ code })
  }

  countWebhookAttempt (outcome: 'delivered' | 'retry' | 'failed', seconds: number): void {
    this.#webhookAttempts.inc({ outcome })
    this.#webhookDuration.observe(seconds)
  }

  countOverload (reason: string): void {
    this.#overloads.inc({ reason })
  }

  countStoreError (store: string, operation: string, error: unknown): void {
    const kind = error instanceof StoreUnavailableError ? 'unavailable' : isClientError(error) ? 'rejected' : 'failed'
    this.#storeErrors.inc({ store, operation, kind })
  }

  /** Gauges read from the PostgreSQL pool at each scrape. */
  watchPool (poolStats: NonNullable<RecordStores['poolStats']>): void {
    const registry = this.registry
    new Gauge({ name: 'rqs_store_pool_max_connections', help: 'Most connections the database pool opens', registers: [registry], collect () { this.set(poolStats().max) } })
    new Gauge({ name: 'rqs_store_pool_open_connections', help: 'Database connections open now, busy or idle', registers: [registry], collect () { this.set(poolStats().open) } })
    new Gauge({ name: 'rqs_store_pool_idle_connections', help: 'Database connections open and idle', registers: [registry], collect () { this.set(poolStats().idle) } })
    new Gauge({ name: 'rqs_store_pool_waiting_requests', help: 'Queries waiting for a free database connection', registers: [registry], collect () { this.set(poolStats().waiting) } })
  }
}

function isClientError (error: unknown): boolean {
  const status = (error as { statusCode?: unknown } | null)?.statusCode
  return typeof status === 'number' && status >= 400 && status < 500
}

