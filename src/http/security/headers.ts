import fp from 'fastify-plugin'
import helmet, { type HelmetOptions } from 'helmet'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { addPageHook, pageOnlyHook } from '../routes/declaration.js'
import { addStartStep, type RequestStart } from '../routes/index.js'
import type { IncomingMessage, ServerResponse } from 'node:http'

/**
 * The Content-Security-Policy of every response. Scripts only from this
 * server and never inline (the landing page has none; GraphiQL, its Monaco
 * workers and Swagger UI are files served from here), so an injected
 * `<script>` or `onclick=` does not run. Inline styles stay allowed: Monaco
 * and Swagger UI set `style` attributes, and styles cannot run code.
 */
export const CONTENT_SECURITY_POLICY = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'worker-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"]
}

/**
 * helmet's choices: nosniff, `Referrer-Policy: no-referrer`, framing refused
 * (`X-Frame-Options: DENY` and `frame-ancestors 'none'`), the policy above
 * and its other defaults. No Strict-Transport-Security: this server speaks
 * plain HTTP, and HSTS belongs to the TLS-terminating proxy in front of it.
 */
export const HELMET_OPTIONS: HelmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: CONTENT_SECURITY_POLICY },
  strictTransportSecurity: false,
  xFrameOptions: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' }
}

/**
 * The headers helmet sets, worked out once. helmet's middleware builds them
 * from its options every time it runs, and @fastify/helmet runs it for every
 * request (measured here: 40 µs a request, about doubling the cost of a
 * `GET /students/{id}`); the same headers as a constant cost about 1 µs.
 */
export function helmetHeaders (options: HelmetOptions = HELMET_OPTIONS): Record<string, string> {
  const headers: Record<string, string> = {}
  const response = {
    setHeader: (name: string, value: string | number | readonly string[]) => { headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value) },
    removeHeader: (name: string) => { delete headers[name.toLowerCase()] }
  }
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, () => {})
  return headers
}

export interface HeadersPluginOptions {
  /** The server's one hook of synchronous start steps; without it, a hook of its own. */
  start?: RequestStart
}

/** Security headers from helmet on every response, pages, API answers and errors alike. */
async function headersPlugin (app: FastifyInstance, { start }: HeadersPluginOptions): Promise<void> {
  const headers = helmetHeaders()
  addStartStep(app, start, function addSecurityHeaders (_request, reply) {
    reply.headers(headers)
    return true
  })
}

export const securityHeaders = fp(headersPlugin, { name: 'rqs-security-headers', fastify: '5.x' })

/** The Content-Security-Policy header value of CONTENT_SECURITY_POLICY (helmet's serialisation). */
export function contentSecurityPolicy (): string {
  return helmetHeaders({ ...ONLY_CSP, contentSecurityPolicy: { useDefaults: false, directives: CONTENT_SECURITY_POLICY } })['content-security-policy'] ?? ''
}

/** helmet with every header but the CSP switched off. */
const ONLY_CSP: HelmetOptions = {
  crossOriginEmbedderPolicy: false,
  crossOriginOpenerPolicy: false,
  crossOriginResourcePolicy: false,
  originAgentCluster: false,
  referrerPolicy: false,
  strictTransportSecurity: false,
  xContentTypeOptions: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xFrameOptions: false,
  xPermittedCrossDomainPolicies: false,
  xPoweredBy: false,
  xXssProtection: false
}

/**
 * The headers on by default (--no-security-headers turns them off): nosniff
 * and framing refused on every answer (no MIME sniffing, no clickjacking), and the
 * Content-Security-Policy, worked out once, on everything but the routes
 * that declare they answer data only (`dataOnly`: the REST representations,
 * the GraphQL endpoint): the policy governs documents, and on a small JSON
 * answer its 300 bytes and their header check cost more than the answer's
 * own headers.
 *
 * Which routes get the policy is decided per route, as each is added: the
 * policy is a hook of the route's own (a page-only hook, dropped when a scope
 * later declares the route data only), and the server-wide hook sets the
 * two constant headers, and the policy only where no route matched (the
 * not-found pages). No request asks its route's options (a fresh object each
 * time) what it is.
 */
async function protectiveHeadersPlugin (app: FastifyInstance, { start }: HeadersPluginOptions): Promise<void> {
  const csp = contentSecurityPolicy()
  addStartStep(app, start, function addProtectiveHeaders (request, reply, headers) {
    // Two stores into the reply's header object when the start gives it, else two header() calls
    // (reply.headers(object) costs a fifth more: Object.keys per call).
    if (headers !== undefined) {
      headers['x-content-type-options'] = 'nosniff'
      headers['x-frame-options'] = 'DENY'
    } else {
      reply.header('x-content-type-options', 'nosniff').header('x-frame-options', 'DENY')
    }
    if (request.is404) reply.header('content-security-policy', csp)
    return true
  })
  const addPagePolicy = pageOnlyHook(function addPagePolicy (_request, reply, done) {
    reply.header('content-security-policy', csp)
    done()
  })
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.config?.rqs?.dataOnly !== true) addPageHook(route, addPagePolicy)
  })
}
export const protectiveHeaders = fp(protectiveHeadersPlugin, { name: 'rqs-protective-headers', fastify: '5.x' })
