import fp from 'fastify-plugin'
import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { appendVary } from '../../lib/vary.js'
import { declareRoute } from '../routes/index.js'

export interface CorsPluginOptions {
  /** The allowed origins, or `*` for any. */
  origins: string[] | '*'
}

export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS']
export const CORS_REQUEST_HEADERS = ['Authorization', 'Content-Type', 'Accept', 'Accept-Language', 'If-Match', 'If-None-Match', 'X-Request-Id']
/** What a browser script may read besides the CORS-safelisted headers. */
export const CORS_EXPOSED_HEADERS = [
  'ETag', 'Location', 'Link', 'X-Request-Id', 'Retry-After', 'WWW-Authenticate',
  'RateLimit', 'RateLimit-Policy', 'Deprecation', 'Sunset', 'Content-Language'
]
/** Browsers may reuse a preflight answer for 10 minutes. */
const PREFLIGHT_MAX_AGE_SECONDS = 600

/**
 * CORS with @fastify/cors. Preflights are answered in the onRequest hook,
 * before rate limits and authentication (a preflight carries no token), for
 * every path, /graphql included. A plain OPTIONS request, without Origin and
 * Access-Control-Request-Method, is not a preflight and keeps its usual
 * answer (204 with Allow). An origin not on the list gets no
 * Access-Control-Allow-Origin, so the browser keeps the answer from the page.
 * No credentials mode: tokens travel in Authorization, not in cookies.
 */
async function corsPlugin (app: FastifyInstance, opts: CorsPluginOptions): Promise<void> {
  const common: FastifyCorsOptions = {
    origin: opts.origins,
    methods: CORS_METHODS,
    allowedHeaders: CORS_REQUEST_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
    credentials: false,
    strictPreflight: false
  }
  const preflight = { ...common, preflight: true }
  const actual = { ...common, preflight: false }
  // Answers depend on Origin even where a service later sets `Vary: Accept` over the plugin's `Vary: Origin`.
  app.addHook('onSend', function varyByOrigin (_request, reply, payload, done) {
    appendVary(reply, 'Origin')
    done(null, payload)
  })
  // @fastify/cors adds one route, `OPTIONS *`, at the root where no scope declares it: it answers only what
  // the hook above has already answered (preflights) or 404, so it is public.
  app.addHook('onRoute', (route) => {
    if (route.url === '*' && route.method === 'OPTIONS') declareRoute(route, { service: 'cors', access: 'public' })
  })
  await app.register(fastifyCors, {
    hideOptionsRoute: true,
    delegator: (request: FastifyRequest, callback: (error: Error | null, options: FastifyCorsOptions) => void) => {
      callback(null, isPreflight(request) ? preflight : actual)
    }
  })
}

function isPreflight (request: FastifyRequest): boolean {
  return request.method === 'OPTIONS' && request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined
}

export const cors = fp(corsPlugin, { name: 'rqs-cors', fastify: '5.x' })
