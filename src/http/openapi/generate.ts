import type { FastifyInstance, RouteOptions } from 'fastify'
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger'
import type { OpenApiDocument } from './document.js'
import { importSwagger } from './load-in-steps.js'

/**
 * @fastify/swagger (and the YAML library it loads) only when a document is
 * first asked for, not at start. The routes it would have collected are
 * collected here as they are added (the same hooks it adds), and handed to
 * the package once it is loaded, so the document is the one it always made.
 *
 * The document is made in slices of routes, the event loop let go between
 * them: with many declared collections it takes seconds, and everyone else's
 * requests get through meanwhile. Each slice is the package's document of
 * those routes; their paths and schemas are put together in route order,
 * which is what the package does in one go.
 */

/**
 * What a slice of the document describes: up to 8 routes, fewer when their
 * query strings are long. A declared collection's list takes every operator
 * of every field (≈ 2 000 parameters at the field limit) and costs as much
 * as dozens of other routes: it counts one more for each 32 parameters, and
 * is a slice of its own.
 */
const WEIGHT_PER_SLICE = 8
const PARAMETERS_PER_WEIGHT = 32

function weightOf (route: RouteOptions): number {
  const querystring = route.schema?.querystring as { properties?: Record<string, unknown> } | undefined
  return 1 + Math.floor(Object.keys(querystring?.properties ?? {}).length / PARAMETERS_PER_WEIGHT)
}

/** `routes` in slices of at most WEIGHT_PER_SLICE (a heavier route alone), in their order. */
export function slicesOf (routes: readonly RouteOptions[]): RouteOptions[][] {
  const slices: RouteOptions[][] = []
  let slice: RouteOptions[] = []
  let weight = 0
  for (const route of routes) {
    const own = weightOf(route)
    if (slice.length > 0 && weight + own > WEIGHT_PER_SLICE) {
      slices.push(slice)
      slice = []
      weight = 0
    }
    slice.push(route)
    weight += own
  }
  // A server without routes still has a document: one slice of none.
  slices.push(slice)
  return slices
}

export type SwaggerOptions = FastifyDynamicSwaggerOptions

export interface RouteCollector {
  /**
   * The package's document of every route (before `transformObject`), made
   * slice by slice; `between` runs after each slice (tests watch it).
   */
  generate: (options: SwaggerOptions, between?: () => Promise<void>) => Promise<OpenApiDocument>
}

/** Collects `app`'s routes and encapsulated instances from now on, as @fastify/swagger's own hooks would. */
export function collectRoutes (app: FastifyInstance): RouteCollector {
  const routes: RouteOptions[] = []
  const instances: FastifyInstance[] = []
  app.addHook('onRoute', (route) => { routes.push(route) })
  app.addHook('onRegister', (instance) => { instances.push(instance) })
  return {
    generate: async (options, between = letGo) => {
      const { fastifySwagger } = await importSwagger(between)
      let document: OpenApiDocument | undefined
      const shared = new Map<string, unknown>()
      for (const routesOfSlice of slicesOf(routes.flatMap(eachRepresentation))) {
        const slice = sharingParameters(generator(fastifySwagger, app, instances, routesOfSlice, options)(), shared)
        document = document === undefined ? slice : joined(document, slice)
        await between()
      }
      if (document === undefined) throw new Error('no slice of the document was made')
      return document
    }
  }
}

/**
 * A route that serves several versions at a base path (alike representations, src/http/rest/mounts.ts)
 * is described as the route of each version it serves, as if each had its own.
 */
function eachRepresentation (route: RouteOptions): RouteOptions[] {
  const representations = route.config?.representations
  if (representations === undefined) return [route]
  return representations.map((representation) => ({ ...route, config: { ...route.config, representation } }))
}

async function letGo (): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve))
}

type SwaggerPlugin = (instance: FastifyInstance, options: SwaggerOptions, done: (err?: Error) => void) => void

/**
 * The package's document function over `routes`, set up on a stand-in for
 * the server that hands the package what its hooks would have seen: the
 * routes, the instances registered, then the server ready.
 */
function generator (plugin: unknown, app: FastifyInstance, instances: readonly FastifyInstance[], routes: readonly RouteOptions[], options: SwaggerOptions): () => OpenApiDocument {
  let made: (() => OpenApiDocument) | undefined
  const host = {
    addHook (name: string, hook: (...args: unknown[]) => unknown) {
      if (name === 'onRoute') for (const route of routes) hook(route)
      else if (name === 'onRegister') for (const instance of instances) void hook(instance)
      else if (name === 'onReady') hook(() => {})
      return host
    },
    decorate (_name: string, value: () => OpenApiDocument) { made = value; return host },
    getSchemas: () => app.getSchemas()
  }
  ;(plugin as SwaggerPlugin)(host as unknown as FastifyInstance, { ...options, transformObject: undefined }, (err) => { if (err !== undefined) throw err })
  if (made === undefined) throw new Error('@fastify/swagger made no document function')
  return made
}

/**
 * The slice's parameters, each one the first of its kind (same JSON) any
 * slice had. At the declaration limits the mounts of every collection's
 * list repeat the same thousands of query parameters: 133 000 parameter
 * objects, 38 of the document's 47 MB, of which a few hundred differ. The
 * copies die young (cheap scavenges) instead of living in a heap of
 * hundreds of megabytes whose mark-compacts held the event loop for 150 ms
 * and more. The text is the same: equal objects are written alike.
 */
function sharingParameters (document: OpenApiDocument, shared: Map<string, unknown>): OpenApiDocument {
  for (const item of Object.values(document.paths)) {
    for (const op of Object.values(item)) {
      const parameters = (op as { parameters?: unknown[] }).parameters
      if (!Array.isArray(parameters)) continue
      for (let i = 0; i < parameters.length; i++) {
        const key = JSON.stringify(parameters[i])
        const known = shared.get(key)
        if (known === undefined) shared.set(key, parameters[i])
        else parameters[i] = known
      }
    }
  }
  return document
}

/** `next`'s paths and schemas after `document`'s, as one document of both slices' routes. */
function joined (document: OpenApiDocument, next: OpenApiDocument): OpenApiDocument {
  for (const [path, item] of Object.entries(next.paths)) document.paths[path] = { ...document.paths[path], ...item }
  document.components.schemas = { ...document.components.schemas, ...next.components.schemas }
  return document
}
