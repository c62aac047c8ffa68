import type { FastifyContextConfig, FastifyInstance, onRequestHookHandler, RouteOptions } from 'fastify'

/**
 * Who may use a route: `public` (pages, documents, static files, health),
 * `read` or `write` (records: the token scope of that name), `metrics`
 * (the Prometheus scrape), or `admin` (the server's administration: webhooks;
 * without authentication, loopback callers only).
 */
export type Access = 'public' | 'read' | 'write' | 'metrics' | 'admin'

/**
 * What a route is, stated in its own Fastify config (`config.rqs`) or by the
 * scope that registers it. Authentication, the rate limit, the metrics and
 * the audit log read this and nothing else: no path is classified.
 */
export interface RouteDeclaration {
  /** The service the route belongs to: the metrics' `service` label, the audit record's service. */
  service: string
  access: Access
  /** The representation version a REST route serves (stamped by `app.mountRest()`). */
  version?: number
  /** A load balancer's probe or Prometheus' scrape (health, readiness, metrics): never rate-limited. */
  probe?: boolean
  /**
   * The route answers data only (JSON, NDJSON, CSV), never a document a browser renders: it gets no
   * Content-Security-Policy, which governs documents (REST representations, the GraphQL endpoint).
   */
  dataOnly?: boolean
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Partial while scopes fill it in; a route whose declaration lacks `service` or `access` is undeclared (see declared). */
    rqs?: Partial<RouteDeclaration>
  }
}

/** A route's complete declaration, or undefined when it has none (refused while authentication is on). */
export function declared (config: Pick<FastifyContextConfig, 'rqs'> | undefined): RouteDeclaration | undefined {
  const rqs = config?.rqs
  return rqs?.service === undefined || rqs.access === undefined ? undefined : rqs as RouteDeclaration
}

/**
 * Adds `fields` to a route's declaration. A field is stated once: a scope
 * and a route that both state it must agree, or the server does not start
 * (so no scope silently overrides what a route says of itself).
 */
export function declareRoute (route: RouteOptions, fields: Partial<RouteDeclaration>): void {
  const current: Partial<RouteDeclaration> = route.config?.rqs ?? {}
  for (const [key, value] of Object.entries(fields) as Array<[keyof RouteDeclaration, unknown]>) {
    if (current[key] !== undefined && current[key] !== value) {
      throw new Error(`${String(route.method)} ${route.url}: declared ${key} ${String(current[key])} and ${String(value)}; a route states each once`)
    }
  }
  route.config = { ...route.config, rqs: { ...current, ...fields } }
  if (fields.dataOnly === true) dropPageHooks(route)
}

/** Marks the onRequest hooks that only pages (documents) need: a route declared `dataOnly` sheds them. */
const PAGE_ONLY = Symbol('rqs.pageOnly')
type PageHook = onRequestHookHandler & { [PAGE_ONLY]?: true }

/** `hook`, marked as one that only pages need. */
export function pageOnlyHook (hook: onRequestHookHandler): onRequestHookHandler {
  return Object.assign(hook, { [PAGE_ONLY]: true as const })
}

/**
 * Puts a page-only hook first of the route's own onRequest hooks (before a
 * scope check added earlier, as a server-wide hook would run), once: a HEAD
 * route copied from its GET route arrives with the GET route's hooks. A
 * scope that later declares the route `dataOnly` takes it off again, so that
 * decision is made once, as the route is added, not per request.
 */
export function addPageHook (route: RouteOptions, hook: onRequestHookHandler): void {
  const own = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]
  if (own.includes(hook)) return
  route.onRequest = [hook, ...own]
}

function dropPageHooks (route: RouteOptions): void {
  const own = route.onRequest
  if (own === undefined) return
  if (!Array.isArray(own)) {
    if ((own as PageHook)[PAGE_ONLY] === true) route.onRequest = []
    return
  }
  if (own.some((h: PageHook) => h[PAGE_ONLY] === true)) route.onRequest = own.filter((h: PageHook) => h[PAGE_ONLY] !== true)
}

/** Declares `fields` of every route registered in `scope` (and the scopes under it) from now on. */
export function declareRoutes (scope: FastifyInstance, fields: Partial<RouteDeclaration>): void {
  scope.addHook('onRoute', (route) => { declareRoute(route, fields) })
}
