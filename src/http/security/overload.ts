import fp from 'fastify-plugin'
import fastifyUnderPressure from '@fastify/under-pressure'
import type { FastifyInstance } from 'fastify'
import { LIVENESS_PATH, METRICS_PATH, READINESS_PATH } from '../operations/index.js'
import type { Reject } from './reject.js'

export interface OverloadPluginOptions {
  maxEventLoopDelayMs: number
  /** 0 for no limit. */
  maxHeapUsedBytes: number
  /** 0 for no limit. */
  maxRssBytes: number
  sampleIntervalMs: number
  reject: Reject
}

const RETRY_AFTER_SECONDS = 5
const WARNING_INTERVAL_MS = 1000

/**
 * Load shedding with @fastify/under-pressure: while the event-loop delay or
 * memory is past its limit (sampled every `sampleIntervalMs`), new requests
 * get 503 + Retry-After in their service's shape at once instead of waiting
 * in a growing queue, and /readyz answers 503 so a load balancer sends
 * traffic elsewhere. The next sample under the limits ends it by itself.
 * Which limit was passed goes to the log (a line a second) and to /metrics
 * (rqs_overload_refusals_total by reason), never into the answer.
 */
async function overloadPlugin (app: FastifyInstance, opts: OverloadPluginOptions): Promise<void> {
  let lastWarning = 0
  /** Liveness and scrapes stay up: a busy process is not a dead one, and its metrics say why it is busy. */
  const alwaysAnswered = new Set([LIVENESS_PATH, METRICS_PATH])
  await app.register(fastifyUnderPressure, {
    maxEventLoopDelay: opts.maxEventLoopDelayMs,
    maxHeapUsedBytes: opts.maxHeapUsedBytes,
    maxRssBytes: opts.maxRssBytes,
    sampleInterval: opts.sampleIntervalMs,
    retryAfter: RETRY_AFTER_SECONDS,
    // Returning undefined continues the request; once this handler has sent the 503, Fastify runs nothing more for it.
    pressureHandler: (request, reply, type, value) => {
      const route = request.is404 ? undefined : request.routeOptions.url
      if (route !== undefined && alwaysAnswered.has(route)) return undefined
      const now = Date.now()
      if (now - lastWarning >= WARNING_INTERVAL_MS) { // one line a second, not one per refused request
        lastWarning = now
        request.log.warn({ type, value }, 'overloaded: refusing requests')
      }
      const retryAfter = String(RETRY_AFTER_SECONDS)
      // Why (which limit, how far past it) is for the operators, not for anonymous clients.
      request.server.rqsMetrics?.countOverload(type)
      if (route === READINESS_PATH) {
        request.server.rqsMetrics?.countRejection('OVERLOADED')
        void reply.code(503).header('retry-after', retryAfter).send({ status: 'unavailable' }) // the shape /readyz documents
      } else {
        opts.reject(request, reply, 'OVERLOADED', { detail: `The server is overloaded; retry in ${retryAfter} s`, headers: { 'retry-after': retryAfter } })
      }
      return undefined
    }
  })
}

export const overload = fp(overloadPlugin, { name: 'rqs-overload', fastify: '5.x' })
