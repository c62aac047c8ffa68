import type { FastifyInstance, RouteOptions } from 'fastify'
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger'
import type { OpenApiDocument } from './document.js'

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

/** Routes a slice of the document describes: small enough that one slice holds the event loop briefly. */
const ROUTES_PER_SLICE = 8

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
      const { fastifySwagger } = await import('@fastify/swagger')
      let document: OpenApiDocument | undefined
      for (let start = 0; start < routes.length || document === undefined; start += ROUTES_PER_SLICE) {
        const slice = generator(fastifySwagger, app, instances, routes.slice(start, start + ROUTES_PER_SLICE), options)()
        document = document === undefined ? slice : joined(document, slice)
        await between()
      }
      return document
    }
  }
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

/** `next`'s paths and schemas after `document`'s, as one document of both slices' routes. */
function joined (document: OpenApiDocument, next: OpenApiDocument): OpenApiDocument {
  for (const [path, item] of Object.entries(next.paths)) document.paths[path] = { ...document.paths[path], ...item }
  document.components.schemas = { ...document.components.schemas, ...next.components.schemas }
  return document
}
