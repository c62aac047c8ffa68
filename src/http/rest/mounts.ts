import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyPluginOptions, FastifyReply, FastifyRequest, HTTPMethods, onRequestHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { appendVary } from '../../lib/vary.js'
import type { VersioningConfig } from '../../config.js'
import { applyDeprecation, type DeprecationPolicy, type Successor } from './deprecation.js'
import { notAcceptable, problems, type ErrorPipeline } from '../errors/index.js'
import { routeOtherMethods } from './method-not-allowed.js'
import { declareRoute, declareRoutes } from '../routes/index.js'
import { echoRequestId } from '../transport/index.js'
import { apiVersionConstraint, applyChoice, STREAM_TYPES, VERSION_LIST, VersionNegotiator, vendorType, type StreamFormat } from './versioning.js'

/** One representation (version) of a REST service: its routes, and how it words errors. */
export interface Representation<Options extends FastifyPluginOptions> {
  version: number
  /** Registers the routes of this representation; gets the service options. */
  plugin: FastifyPluginAsync<Options>
  /** Renders every error of this representation, and what its clients get around its routes. */
  errors: ErrorPipeline
  /**
   * Record paths and the methods each serves in this version; other methods
   * answer 405 with Allow, behind the records' scopes (GET/HEAD read, the rest write).
   * Each of the plugin's own routes declares its access (`config.rqs.access`).
   */
  methods: ReadonlyArray<[string, HTTPMethods[]]>
}

/** What the mounting needs to know of a REST service. */
export interface RestService<Options extends FastifyPluginOptions> {
  /** The service's name, declared on every route of every mount (what metrics and the audit log call it). */
  name: string
  /** The resources' path below the base: '' for the student records, '/addresses' for the address book. */
  resources: string
  representations: ReadonlyArray<Representation<Options>>
  options: Options
  /** Version-independent paths (static files) and their methods; other methods answer 405 with the extras' access. */
  methods?: ReadonlyArray<[string, HTTPMethods[]]>
  /**
   * Registers what every mount of the service has beside its representations
   * (static files), in a scope of its own whose access it declares
   * (declareRoutes) before anything else; `methods`' 405 routes follow in it.
   */
  extras?: (scope: FastifyInstance) => Promise<void>
}

interface MountHandlers {
  notFound: (request: FastifyRequest, reply: FastifyReply) => unknown
  error: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => unknown
}

/**
 * Which mount answers a path that no route serves, or an error raised before
 * routing (a malformed URL): the service whose resources the path is under,
 * in its shape and version; a problem elsewhere. Fastify allows one
 * not-found handler per prefix, and services mounted at `/` share one.
 */
export class MountTable {
  readonly #mounts: Array<[string, MountHandlers]> = []

  /** Keeps mounts longest resource path first, so /v2/students wins over a mount at the root. */
  add (root: string, handlers: MountHandlers): void {
    this.#mounts.push([root, handlers])
    this.#mounts.sort((a, b) => b[0].length - a[0].length)
  }

  find (url: string): MountHandlers | undefined {
    for (const [root, handlers] of this.#mounts) {
      if (root === '' || (url.startsWith(root) && (url.length === root.length || url[root.length] === '/' || url[root.length] === '?'))) return handlers
    }
    return undefined
  }

  /** For Fastify's `frameworkErrors` option. Such errors skip the onRequest hooks, so the request id is echoed here. */
  readonly frameworkErrors = (error: FastifyError, request: FastifyRequest, reply: FastifyReply): unknown => {
    echoRequestId(request, reply)
    return (this.find(request.url)?.error ?? problems.handleError)(error, request, reply)
  }

  /**
   * The root error handler. A request no route serves that fails before the
   * not-found handler runs (a bad body on the way to a 404) is answered by
   * the mount its path is under, like the 404 itself; the routes at the root
   * (health, catalogue, docs) answer problems.
   */
  readonly rootErrors = (error: FastifyError, request: FastifyRequest, reply: FastifyReply): unknown => {
    const mount = request.is404 ? this.find(request.url) : undefined
    return (mount?.error ?? problems.handleError)(error, request, reply)
  }

  readonly notFound = (request: FastifyRequest, reply: FastifyReply): unknown => {
    return (this.find(request.url)?.notFound ?? problems.notFound)(request, reply)
  }
}

export interface MountsOptions {
  versioning: VersioningConfig
  /** Every version some REST service serves. */
  versions: readonly number[]
  table: MountTable
}

/** A representation's route as the API description sees it (route.config.representation). */
export interface RepresentationRoute {
  version: number
  /** True under /vN/ (the URI fixes the version); false at the base path (Accept chooses). */
  uriVersioned: boolean
  /** Media types of its successful answers on this mount, e.g. application/json and application/vnd.rqs.v1+json. */
  mediaTypes: string[]
  /** The version is announced as deprecated (Deprecation, Sunset, Link headers). */
  deprecated: boolean
  /** A collection's list: the stream types it also answers with (application/x-ndjson, text/csv). */
  streams?: readonly string[]
}


declare module 'fastify' {
  interface FastifyContextConfig {
    representation?: RepresentationRoute
    /** Set where one route serves several versions (alike representations at the base path): each of them. */
    representations?: readonly RepresentationRoute[]
  }
  interface FastifyInstance {
    /**
     * Mounts a REST service at its base (versions negotiated by Accept) and,
     * with URI versioning, under /v1/…, /v2/… (the URI fixes the version).
     * Both lead to the same handlers and records.
     */
    mountRest: <Options extends FastifyPluginOptions>(base: string, service: RestService<Options>) => Promise<void>
  }
  interface FastifyRequest {
    /** The representation version this request was negotiated to (or fixed by its URI). */
    apiVersion: number
    /** The client asked a collection route (config `streams`) for a stream: application/x-ndjson or text/csv. */
    stream: StreamFormat | undefined
  }
  interface FastifyContextConfig {
    /** The route is a collection that can answer `Accept: application/x-ndjson` or `text/csv` with a stream. */
    streams?: boolean
  }
}

/**
 * Versioned mounting (spec: "Versioning"): the Accept-header constraint on
 * the router, `app.mountRest()`, and the answers for whatever no route
 * serves — problems outside the services, each service's own shape inside.
 */
export const mountsPlugin = fp(async function rqsMounts (app: FastifyInstance, opts: MountsOptions) {
  const { versioning, versions, table } = opts
  // The header approach: one negotiator for every REST service at its plain base path.
  const negotiator = new VersionNegotiator(versioning.vendor, versions, 1, versioning.mediaType)
  const deprecations = deprecationPolicies(versioning)
  app.addConstraintStrategy(apiVersionConstraint(negotiator))
  app.decorateRequest('apiVersion', 0)
  app.decorateRequest('stream', undefined)
  // The root error handler (table.rootErrors) is set by src/server.ts before any route is added.
  app.setNotFoundHandler(table.notFound)

  app.decorate('mountRest', async function mountRest<Options extends FastifyPluginOptions> (base: string, service: RestService<Options>): Promise<void> {
    const prefix = base === '/' ? '' : base
    // Named plugins: avvio names an anonymous one by its source text, a cost on every mount of a start.
    await app.register(async function restMount (scope) {
      await mountVersioned(scope, service, {
        negotiator,
        deprecations,
        successor: (url, version) => ({ url, type: vendorType(versioning.vendor, version + 1) }),
        expose: (handlers) => { table.add(prefix + service.resources, handlers) }
      })
    }, { prefix })
    if (!versioning.uri) return
    for (const version of versions) {
      const uriPrefix = `/v${version}${prefix}`
      await app.register(async function uriVersionMount (scope) {
        await mountVersioned(scope, service, {
          negotiator: new VersionNegotiator(versioning.vendor, [version], version, versioning.mediaType),
          fixedVersion: version,
          deprecations,
          successor: (url) => ({ url: url.replace(`/v${version}/`, `/v${version + 1}/`) }),
          expose: (handlers) => { table.add(uriPrefix + service.resources, handlers) }
        })
      }, { prefix: uriPrefix })
    }
  })
}, { name: 'rqs-mounts', fastify: '5.x' })

interface Mount {
  /** Negotiates Accept for this mount: every served version for the header approach, one for a URI mount. */
  negotiator: VersionNegotiator
  /** Set for a URI-versioned mount (/v2/...): the URI fixes the version, Accept may only agree. */
  fixedVersion?: number
  deprecations: ReadonlyMap<number, DeprecationPolicy>
  /** The same resource in the successor version: the next URI prefix, or the same URL with the next media type. */
  successor: (url: string, version: number) => Successor
  expose: (handlers: MountHandlers) => void
}

/**
 * Mounts a service's representations under one prefix. With the header
 * approach each version's routes carry an `apiVersion` constraint, so the
 * router itself picks v1 or v2 from Accept; with a URI mount the prefix
 * decides. Either way the reply gets `Vary: Accept` and the negotiated
 * Content-Type, and anything that matches no route is answered in the shape
 * of the version the client asked for (or 406 when it asked for none we serve).
 */
async function mountVersioned<Options extends FastifyPluginOptions> (app: FastifyInstance, service: RestService<Options>, mount: Mount): Promise<void> {
  const { negotiator, fixedVersion } = mount
  // Every reply's header object, where the server's start finds it (Vary is written there in one store).
  const headerObjects = app.requestStart?.headers
  declareRoutes(app, { service: service.name })
  const byVersion = new Map(service.representations.map((r) => [r.version, r]))
  const fallback = service.representations[0] as Representation<Options>
  const representationFor = (request: FastifyRequest): Representation<Options> | undefined => {
    const choice = negotiator.negotiate(request.headers.accept)
    if (choice === undefined) return undefined
    return byVersion.get(fixedVersion ?? choice.version)
  }
  // A collection is also offered as NDJSON and CSV, so its 406 says so: the matched route tells on a URI mount,
  // the path (a collection route's, collected below) when no version's route matched the Accept.
  const streamed = new Set<string>()
  app.addHook('onRoute', (route) => { if (route.config?.streams === true) streamed.add(route.url) })
  const refuse = (request: FastifyRequest, reply: FastifyReply): unknown => {
    const path = (request.url.split('?', 1)[0] ?? '').replace(/(.)\/$/, '$1') // the router ignores a trailing slash
    const collection = request.routeOptions.config.streams === true || streamed.has(path)
    return problems.render(notAcceptable(collection ? [...negotiator.available, ...STREAM_TYPES] : negotiator.available), request, reply)
  }

  // The routes of each representation in a scope of their own; at the base path, one set for every version when
  // the representations are alike (a declared collection's): half the routes, each chosen by the same constraint.
  const served = service.representations.filter((r) => fixedVersion === undefined || r.version === fixedVersion)
  const scopes = fixedVersion === undefined && alikeRepresentations(served) ? [served] : served.map((r) => [r])
  const routesOf = async (scope: FastifyInstance, representations: ReadonlyArray<Representation<Options>>): Promise<void> => {
    const representation = representations[0] as Representation<Options>
    const versions = representations.map((r) => r.version)
    const one = versions.length === 1 ? versions[0] : undefined
    scope.setErrorHandler(representation.errors.handleError)
    // What the API description needs to know of each route: its version, and how this mount reaches it.
    const described = versions.map((version): RepresentationRoute => ({ version, uriVersioned: fixedVersion !== undefined, mediaTypes: negotiator.mediaTypesOf(version), deprecated: mount.deprecations.has(version) }))
    // The representation's own hook, made per route as it is added (what the route streams is known then, not
    // asked of each request) and run first of the route's own hooks, as a hook of this scope would be.
    const negotiation = (streams: boolean): onRequestHookHandler => function negotiateRepresentation (request, reply, done) {
      const choice = negotiator.negotiate(request.headers.accept, streams)
      request.stream = choice?.stream
      if (choice === undefined) { // a URI mount, or a stream asked of a route that is no collection
        request.apiVersion = one ?? representation.version
        void refuse(request, reply)
        return
      }
      // Serving every version: the one the router chose by (apiVersionConstraint's: a JSON version first).
      const version = one ?? (streams ? negotiator.negotiate(request.headers.accept) ?? choice : choice).version
      request.apiVersion = version
      applyChoice(reply, choice, headerObjects?.of(reply))
      const deprecation = mount.deprecations.get(version)
      if (deprecation !== undefined) applyDeprecation(reply, deprecation, mount.successor(request.url, version))
      done()
    }
    const negotiated = { streams: negotiation(true), single: negotiation(false) }
    const constraint = versions.join(VERSION_LIST)
    scope.addHook('onRoute', (route) => {
      if (fixedVersion === undefined) route.constraints = { ...route.constraints, apiVersion: constraint }
      const streams = route.config?.streams === true
      const representations = streams ? described.map((d) => ({ ...d, streams: STREAM_TYPES })) : described
      route.config = one === undefined
        ? { ...route.config, representation: representations[0], representations }
        : { ...route.config, representation: representations[0] }
      declareRoute(route, one === undefined ? { dataOnly: true } : { version: one, dataOnly: true })
      const own = route.onRequest
      route.onRequest = [streams ? negotiated.streams : negotiated.single, ...(own === undefined ? [] : Array.isArray(own) ? own : [own])]
    })
    await scope.register(representation.plugin as FastifyPluginAsync, service.options)
    // Registered in this scope, the 405 routes carry the version constraint too.
    for (const [url, allowed] of representation.methods) routeOtherMethods(scope, url, allowed, representation.errors.methodNotAllowed, 'by-method')
  }
  // One set of routes and nothing beside them, every version wording errors alike (a declared collection's
  // mounts): the routes go in this mount's own scope, one plugin less per mount, since the mount's error
  // handler would be the routes' own. Otherwise each set in a scope of its own.
  const pipeline = fallback.errors
  const alone = scopes.length === 1 && service.extras === undefined && service.methods === undefined && service.representations.every((r) => r.errors === pipeline)
  if (alone) await routesOf(app, scopes[0] as ReadonlyArray<Representation<Options>>)
  else for (const representations of scopes) await app.register(async function representationRoutes (scope) { await routesOf(scope, representations) })

  // Errors outside the representations' routes (static files, 405 routes) speak the client's version too.
  const pipelineFor = (request: FastifyRequest): ErrorPipeline => (representationFor(request) ?? fallback).errors
  if (!alone) app.setErrorHandler((error: FastifyError, request, reply) => pipelineFor(request).handleError(error, request, reply))
  mount.expose({
    error: (error, request, reply) => pipelineFor(request).handleError(error, request, reply),
    notFound: (request, reply) => {
      appendVary(reply, 'Accept')
      const representation = representationFor(request)
      if (representation === undefined) return refuse(request, reply)
      request.apiVersion = representation.version
      return representation.errors.notFound(request, reply)
    }
  })
  if (service.extras === undefined && service.methods === undefined) return
  await app.register(async function mountExtras (scope) {
    await service.extras?.(scope)
    for (const [url, allowed] of service.methods ?? []) {
      routeOtherMethods(scope, url, allowed, (request, reply, allow) => {
        appendVary(reply, 'Accept')
        return pipelineFor(request).methodNotAllowed(request, reply, allow)
      })
    }
  })
}

/**
 * Representations one set of routes can serve: the same routes (plugin), errors and methods, so nothing but
 * the version differs, and the version is the negotiated one (the reply's type, deprecation, request.apiVersion).
 */
function alikeRepresentations<Options extends FastifyPluginOptions> (representations: ReadonlyArray<Representation<Options>>): boolean {
  const [first, ...others] = representations
  if (first === undefined || others.length === 0) return false
  const methods = JSON.stringify(first.methods)
  return others.every((r) => r.plugin === first.plugin && r.errors === first.errors && JSON.stringify(r.methods) === methods)
}

function deprecationPolicies (versioning: VersioningConfig): Map<number, DeprecationPolicy> {
  const since = versioning.deprecatedSince ?? new Date()
  const policy: DeprecationPolicy = { since, sunset: versioning.sunset, docsUrl: '/docs/versioning.md' }
  return new Map(versioning.deprecated.map((v) => [v, policy]))
}
