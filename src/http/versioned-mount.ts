import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyPluginOptions, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify'
import type { VersionNegotiator } from './versioning.js';
import { applyChoice } from './versioning.js'
import { routeOtherMethods } from './method-not-allowed.js'
import { applyDeprecation, type DeprecationPolicy } from './deprecation.js'

/** One representation (version) of a service: its routes, and how it words errors raised outside them. */
export interface Representation<Options extends FastifyPluginOptions> {
  version: number
  /** Registers the routes of this representation; gets the service options. */
  plugin: FastifyPluginAsync<Options>
  /** Renders errors thrown in this representation's routes (and, for its clients, around them). */
  errorHandler: (this: FastifyInstance, error: FastifyError, request: FastifyRequest, reply: FastifyReply) => unknown
  /** Paths and the methods each serves in this version; other methods answer 405 with Allow. */
  methods: ReadonlyArray<[string, HTTPMethods[]]>
  notFound: (request: FastifyRequest, reply: FastifyReply) => unknown
  methodNotAllowed: (request: FastifyRequest, reply: FastifyReply, allow: string) => unknown
}

/** How a mount answers what its routes do not: unknown paths, and errors raised before routing. */
export interface MountHandlers {
  notFound: (request: FastifyRequest, reply: FastifyReply) => unknown
  error: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => unknown
}

/** Where and how one service is mounted: at its base (header approach) or under /vN (URI approach). */
export interface ServiceMount {
  negotiator: VersionNegotiator
  /** Set for a URI-versioned mount (/v2/...): the URI fixes the version. */
  fixedVersion?: number
  successor?: (url: string, version: number) => { url: string, type?: string }
  deprecations?: ReadonlyMap<number, DeprecationPolicy>
  /**
   * Receives this mount's handler for unknown paths; the server dispatches to
   * it by path (Fastify allows only one not-found handler per prefix, and
   * several services may share one).
   */
  expose: (handlers: MountHandlers) => void
  notAcceptable: (request: FastifyRequest, reply: FastifyReply, available: readonly string[]) => unknown
}

export interface MountOptions<Options extends FastifyPluginOptions> {
  /** Negotiates Accept for this mount: every served version for the header approach, one for a URI mount. */
  negotiator: VersionNegotiator
  /** Set for a URI-versioned mount (/v2/...): the URI fixes the version, Accept may only agree. */
  fixedVersion?: number
  representations: ReadonlyArray<Representation<Options>>
  /** Version-independent paths (static files) and their methods; other methods answer 405. */
  methods: ReadonlyArray<[string, HTTPMethods[]]>
  serviceOptions: Options
  /** Deprecated versions and their policy (headers on every answer of that version). */
  deprecations?: ReadonlyMap<number, DeprecationPolicy>
  /**
   * The same resource in the successor version: for a URI mount the URL under
   * the next version's prefix, for the header approach the same URL with the next media type.
   */
  successor?: (url: string, version: number) => { url: string, type?: string }
  /** Answers a request whose Accept matches no served media type. */
  notAcceptable: (request: FastifyRequest, reply: FastifyReply, available: readonly string[]) => unknown
  expose: ServiceMount['expose']
}

/**
 * Mounts a service's representations under one prefix. With the header
 * approach each version's routes carry an `apiVersion` constraint, so the
 * router itself picks v1 or v2 from Accept; with a URI mount the prefix
 * decides. Either way the reply gets `Vary: Accept` and the negotiated
 * Content-Type, and anything that matches no route is answered in the shape
 * of the version the client asked for (or 406 when it asked for none we serve).
 */
export async function mountVersioned<Options extends FastifyPluginOptions> (app: FastifyInstance, opts: MountOptions<Options>): Promise<void> {
  const { negotiator, fixedVersion } = opts
  const byVersion = new Map(opts.representations.map((r) => [r.version, r]))
  const fallback = opts.representations[0] as Representation<Options>
  const representationFor = (request: FastifyRequest): Representation<Options> | undefined => {
    if (fixedVersion !== undefined) return negotiator.negotiate(request.headers.accept) === undefined ? undefined : byVersion.get(fixedVersion)
    const choice = negotiator.negotiate(request.headers.accept)
    return choice === undefined ? undefined : byVersion.get(choice.version)
  }

  for (const representation of opts.representations) {
    if (fixedVersion !== undefined && representation.version !== fixedVersion) continue
    await app.register(async (scope) => {
      const version = representation.version
      const deprecation = opts.deprecations?.get(version)
      scope.setErrorHandler(representation.errorHandler)
      if (fixedVersion === undefined) {
        scope.addHook('onRoute', (route) => { route.constraints = { ...route.constraints, apiVersion: String(version) } })
      }
      scope.addHook('onRequest', (request, reply, done) => {
        const choice = negotiator.negotiate(request.headers.accept)
        request.apiVersion = version
        if (choice === undefined) { // only on a URI mount: the header approach routes such requests to notFound
          void opts.notAcceptable(request, reply, negotiator.available)
          return
        }
        applyChoice(reply, choice)
        if (deprecation !== undefined && opts.successor !== undefined) applyDeprecation(reply, deprecation, opts.successor(request.url, version))
        done()
      })
      await scope.register(representation.plugin as FastifyPluginAsync, opts.serviceOptions)
      // Registered in this scope, the 405 routes carry the version constraint too.
      for (const [url, allowed] of representation.methods) routeOtherMethods(scope, url, allowed, representation.methodNotAllowed)
    })
  }

  // Errors outside the representations' routes (static files, 405 routes) speak the client's version too.
  const error = function (this: FastifyInstance, err: FastifyError, request: FastifyRequest, reply: FastifyReply): unknown {
    return (representationFor(request) ?? fallback).errorHandler.call(this, err, request, reply)
  }
  app.setErrorHandler(error)
  opts.expose({
    error,
    notFound: (request, reply) => {
      reply.header('vary', 'Accept')
      const representation = representationFor(request)
      if (representation === undefined) return opts.notAcceptable(request, reply, negotiator.available)
      request.apiVersion = representation.version
      return representation.notFound(request, reply)
    }
  })
  for (const [url, allowed] of opts.methods) {
    routeOtherMethods(app, url, allowed, (request, reply, allow) => {
      reply.header('vary', 'Accept')
      const representation = representationFor(request) ?? fallback
      return representation.methodNotAllowed(request, reply, allow)
    })
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The representation version this request was negotiated to (or fixed by its URI). */
    apiVersion: number
  }
}
