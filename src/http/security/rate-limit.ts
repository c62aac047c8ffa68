import fp from 'fastify-plugin'
import type { Redis } from 'ioredis'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Authenticator } from './auth.js'
import type { RateLimit } from '../../config/security.js'
import type { Reject } from './reject.js'

export interface RateLimitPluginOptions {
  limit: RateLimit
  /** Shared counters for several instances; in-process counters without it. */
  redisUrl?: string
  /** Set when authentication is on: authenticated clients are counted by principal. */
  authenticator?: Authenticator
  reject: Reject
}

/** The name of the one policy in RateLimit-Policy / RateLimit (draft-ietf-httpapi-ratelimit-headers). */
const POLICY = '"default"'
const REDIS_TIMEOUT_MS = 500

/**
 * Rate limiting with @fastify/rate-limit: a fixed window of `limit.max`
 * requests per client, the client being the authenticated principal, else
 * the address (`request.ip`, which follows X-Forwarded-For only as
 * --trust-proxy allows). Every limited response carries the IETF
 * `RateLimit-Policy` and `RateLimit` headers; over the limit the answer is
 * 429 with `Retry-After` in the service's error shape. With Redis the
 * counters are shared by every instance; when Redis fails, requests pass
 * (a limiter must not turn a Redis outage into an rqs outage) without
 * RateLimit headers (nobody counts them), and a warning is logged.
 */
async function rateLimitPlugin (app: FastifyInstance, opts: RateLimitPluginOptions): Promise<void> {
  const { limit, authenticator, reject } = opts
  const redis = opts.redisUrl === undefined ? undefined : await connectRedis(app, opts.redisUrl)
  // Loaded only when rate limits are on, like ioredis only with --redis: they are off by default (issue 12: idle memory).
  const { default: fastifyRateLimit } = await import('@fastify/rate-limit')

  // global: false — no hook of the plugin's own; the hook below asks it for each request.
  await app.register(fastifyRateLimit, {
    global: false,
    max: limit.max,
    timeWindow: limit.windowMs,
    // Store errors reach the hook below, which lets the request pass without claiming a budget.
    skipOnError: false,
    keyGenerator: async (request: FastifyRequest) => await clientKey(request, authenticator),
    ...(redis === undefined ? {} : { redis, nameSpace: 'rqs-rate-limit:' })
  })
  // Without options: the plugin's own store and settings (options would make a per-route child store).
  const check = app.createRateLimit()
  const windowSeconds = Math.ceil(limit.windowMs / 1000)
  const policy = `${POLICY};q=${limit.max};w=${windowSeconds}`

  app.addHook('onRequest', async function limitRate (request, reply) {
    // Probes and scrapes (routes that declare `probe`) are never limited: a load balancer or Prometheus must always get through.
    if (!request.is404 && request.routeOptions.config.rqs?.probe === true) return
    let result
    try {
      result = await check(request)
    } catch (err) {
      // Only Redis fails here (the in-process counters cannot): the request passes, and no RateLimit header claims a budget nobody counted.
      if (redis === undefined) throw err
      return
    }
    if (result.isAllowed) return
    const reset = Math.max(0, result.ttlInSeconds)
    reply.header('ratelimit-policy', policy).header('ratelimit', `${POLICY};r=${result.remaining};t=${reset}`)
    if (!result.isExceeded) return
    return reject(request, reply, 'RATE_LIMITED', {
      detail: `Too many requests: the limit is ${limit.max} per ${windowSeconds} s; retry in ${reset} s`,
      headers: { 'retry-after': String(Math.max(1, reset)) }
    })
  })
}

/** `p:<principal>` for an authenticated client, `a:<address>` otherwise (a refused token counts by address). */
async function clientKey (request: FastifyRequest, authenticator: Authenticator | undefined): Promise<string> {
  if (authenticator !== undefined) {
    const identification = await authenticator.identify(request)
    if (identification.kind === 'principal') return `p:${identification.principal.kind}:${identification.principal.name}`
  }
  return `a:${request.ip}`
}

/**
 * Connects to Redis before the server listens: a wrong --redis stops
 * start-up with one clear line instead of running without shared limits.
 * At run time commands give up quickly and the limiter lets requests pass.
 */
async function connectRedis (app: FastifyInstance, url: string): Promise<Redis> {
  const { Redis } = await import('ioredis')
  let started = false
  const redis = new Redis(url, {
    connectTimeout: REDIS_TIMEOUT_MS,
    commandTimeout: REDIS_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    lazyConnect: true,
    // At start-up one attempt: the error below says what to do. Later, reconnect until it is back.
    retryStrategy: (attempt) => started ? Math.min(attempt * 200, 2000) : null
  })
  // What went wrong while connecting: ioredis itself only reports "Connection is closed."
  let cause: Error | undefined
  let warned = false
  redis.on('error', (err: Error) => {
    if (!started) { cause ??= err; return }
    if (!warned) app.log.warn({ err }, 'Redis for the rate limits is unavailable: requests are not limited until it is back')
    warned = true
  })
  redis.on('ready', () => { warned = false })
  try {
    await redis.connect()
  } catch (err) {
    redis.disconnect()
    const reason = (cause ?? err as Error).message
    throw new Error(`cannot reach Redis at ${withoutCredentials(url)} for --redis (${reason}): start Redis there, or give the right URL with --redis / RQS_REDIS_URL`, { cause: err })
  }
  started = true
  app.addHook('onClose', async () => { await redis.quit().catch(() => { redis.disconnect() }) })
  return redis
}

/** The URL without user name and password, for messages. */
function withoutCredentials (url: string): string {
  const { protocol, host, pathname } = new URL(url)
  return `${protocol}//${host}${pathname === '/' ? '' : pathname}`
}

export const rateLimit = fp(rateLimitPlugin, { name: 'rqs-rate-limit', fastify: '5.x' })
