import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods, onRequestHookHandler, RouteOptions } from 'fastify'
import { declareRoutes } from '../../http/routes/index.js'
import type { CollectionSchema } from './declare.js'
import type { LiveCollections } from './live.js'
import type { CollectionRegistry } from './registry.js'

/**
 * The listening server's side of collections changed while it runs
 * (./live.ts): one parametric set of routes, `/:collection` and
 * `/:collection/:id` (and under each URI version), for collections created
 * after the start; the router prefers every static route (the built-ins',
 * those mounted at start), so these see only names nothing else serves.
 * Reads need the `read` scope, writes `write`, as every record route.
 */
export interface LiveRoutesOptions {
  registry: CollectionRegistry
  live: LiveCollections
  /** The URI versions served (`/v1/…`), none without URI versioning. */
  versions: readonly number[]
}

const READS: HTTPMethods[] = ['GET']
const WRITES: HTTPMethods[] = ['POST', 'PUT', 'PATCH', 'DELETE']

export async function liveRoutes (app: FastifyInstance, { registry, live, versions }: LiveRoutesOptions): Promise<void> {
  declareRoutes(app, { service: 'collections' })
  // The body goes on as sent: the collection's own server parses and checks it.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => { done(null, body) })
  const handler = async (request: FastifyRequest<{ Params: { collection: string } }>, reply: FastifyReply): Promise<unknown> => {
    const entry = registry.get(request.params.collection)
    if (entry === undefined) { reply.callNotFound(); return await reply }
    return await live.forward(request, reply, entry)
  }
  for (const prefix of ['', ...versions.map((v) => `/v${v}`)]) {
    for (const url of [`${prefix}/:collection`, `${prefix}/:collection/:id`]) {
      app.route({ method: READS, url, config: { rqs: { access: 'read' } }, handler })
      app.route({ method: WRITES, url, config: { rqs: { access: 'write' } }, handler })
    }
  }
}

/**
 * A root onRoute hook: the routes a declared collection is mounted with at
 * start hand a request to the collection's current server once its
 * declaration changed, and answer 404 once it was removed. Appended after
 * the security hooks, so authentication has run.
 */
export function followChanges (registry: CollectionRegistry, live: LiveCollections, declared: readonly CollectionSchema[], versions: readonly number[]): (route: RouteOptions) => void {
  const mounted = new Map(declared.map((c) => [c.declaration.name, c]))
  const prefixes = ['', ...versions.map((v) => `/v${v}`)]
  return (route) => {
    const name = collectionOf(route.url, prefixes)
    const atStart = name === undefined ? undefined : mounted.get(name)
    if (name === undefined || atStart === undefined) return
    const follow: onRequestHookHandler = function followChange (request, reply, done) {
      const entry = registry.get(name)
      if (entry?.schema === atStart) { done(); return }
      if (entry === undefined) { reply.callNotFound(); return }
      live.forward(request, reply, entry).catch((err: unknown) => { done(err as Error) })
    }
    const current = route.onRequest
    route.onRequest = current === undefined ? [follow] : Array.isArray(current) ? [...current, follow] : [current, follow]
  }
}

/** The collection a route of a declared collection serves (`/books`, `/v2/books/:id`), or undefined. */
function collectionOf (url: string, prefixes: readonly string[]): string | undefined {
  // A version's prefix first: `/v2/books` is the collection books, not v2.
  const prefix = prefixes.find((p) => p !== '' && url.startsWith(`${p}/`)) ?? ''
  const rest = url.slice(prefix.length).split('/')
  return rest[0] === '' && rest[1] !== undefined && rest[1] !== '' ? rest[1] : undefined
}
