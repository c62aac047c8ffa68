import type { FastifyRequest } from 'fastify'
import type { Config } from '../config.js'
import { ERRORS_PATH } from './errors/catalogue.js'
import { API_DOCS_PATH, OPENAPI_PATH } from './openapi.js'
import { VersionNegotiator } from './versioning.js'

export type ServiceName = 'students' | 'addresses' | 'albums'

/**
 * Who may use a route: `public` (pages, docs, static files, health), a
 * `service` resource (scope read or write by method), or `metrics`.
 */
export type Access = 'public' | 'service' | 'metrics'

export interface PathClass {
  /** The service the path belongs to; undefined for the server's own pages. */
  service?: ServiceName
  access: Access
  /** The version fixed by a /v1/… or /v2/… path; undefined when Accept negotiates it. */
  uriVersion?: number
  /** The GraphQL endpoint itself (errors there are GraphQL `{errors}` bodies). */
  graphql: boolean
}

export type ErrorShape = 'envelope' | 'problem' | 'graphql'

export const METRICS_PATH = '/metrics'
export const HEALTH_PATHS: readonly string[] = ['/healthz', '/readyz']

/** Paths of the server's own pages and documents: never behind a token. */
const PUBLIC_EXACT = new Set(['/', ...HEALTH_PATHS, OPENAPI_PATH])
const PUBLIC_TREES = [API_DOCS_PATH, '/docs', ERRORS_PATH]
const VERSIONS = [1, 2]

interface Root {
  root: string
  service: 'students' | 'addresses'
  uriVersion?: number
}

const PUBLIC: PathClass = { access: 'public', graphql: false }

/**
 * Where each service is mounted, derived from the configuration the same way
 * src/server.ts mounts them (base path, /v1 and /v2 twins, the GraphQL
 * prefix). Security, metrics and audit ask it what a path is: which service,
 * whether a token is needed, and which error shape its clients read.
 */
export class ServiceLayout {
  readonly #roots: Root[] = []
  readonly #graphql: string | undefined
  readonly #graphqlPublic: string[] = []
  readonly #negotiator: VersionNegotiator
  readonly #routes = new Map<string, PathClass>()

  constructor (config: Pick<Config, 'students' | 'addresses' | 'albums' | 'versioning'>) {
    const { versioning } = config
    const add = (root: string, service: Root['service']): void => {
      this.#roots.push({ root, service })
      if (versioning.uri) for (const v of VERSIONS) this.#roots.push({ root: `/v${v}${root}`, service, uriVersion: v })
    }
    if (config.students.enabled) add(prefixOf(config.students.base), 'students')
    if (config.addresses.enabled) add(`${prefixOf(config.addresses.base)}/addresses`, 'addresses')
    // Longest first, so /v2/students wins over a service mounted at the root.
    this.#roots.sort((a, b) => b.root.length - a.root.length)
    if (config.albums.enabled) {
      const base = prefixOf(config.albums.base)
      this.#graphql = `${base}/graphql`
      this.#graphqlPublic.push(`${base}/graphql/schema.graphql`, `${base}/graphiql`)
    }
    this.#negotiator = new VersionNegotiator(versioning.vendor, VERSIONS, 1, versioning.mediaType)
  }

  /** What a path (without query) or a route pattern such as `/students/:id` is. */
  classify (path: string): PathClass {
    if (PUBLIC_EXACT.has(path) || PUBLIC_TREES.some((tree) => isUnder(path, tree))) return PUBLIC
    if (path === METRICS_PATH) return { access: 'metrics', graphql: false }
    if (this.#graphql !== undefined) {
      if (path === this.#graphql) return { service: 'albums', access: 'service', graphql: true }
      if (this.#graphqlPublic.some((tree) => isUnder(path, tree))) return { service: 'albums', access: 'public', graphql: false }
    }
    for (const { root, service, uriVersion } of this.#roots) {
      if (!isUnder(path, root)) continue
      // The student service's static files are pages, not records.
      const access = service === 'students' && isUnder(path.slice(root.length), '/assets') ? 'public' : 'service'
      return { service, access, uriVersion, graphql: false }
    }
    return PUBLIC
  }

  /** Like classify, for a route pattern; remembered, since there are few routes. */
  classifyRoute (url: string): PathClass {
    let known = this.#routes.get(url)
    if (known === undefined) {
      known = this.classify(url)
      this.#routes.set(url, known)
    }
    return known
  }

  /** The matched route's class, or the path's when no route matched (a 404 in the making). */
  classifyRequest (request: FastifyRequest): PathClass {
    const route = request.is404 ? undefined : request.routeOptions.url
    return route === undefined ? this.classify(pathOf(request.url)) : this.classifyRoute(route)
  }

  /**
   * The error shape a request's client reads: the GraphQL `{errors}` body at
   * the GraphQL endpoint, the v1 envelope for the student service's version 1
   * (by URI, or negotiated by Accept), RFC 9457 problem details elsewhere.
   */
  errorShape (request: FastifyRequest): ErrorShape {
    const what = this.classifyRequest(request)
    if (what.graphql) return 'graphql'
    if (what.service !== 'students') return 'problem'
    const version = what.uriVersion ?? (request.apiVersion > 0 ? request.apiVersion : this.#negotiator.negotiate(request.headers.accept)?.version ?? 1)
    return version === 1 ? 'envelope' : 'problem'
  }
}

/** `/` mounts at the root (Fastify's empty prefix); anything else as given. */
function prefixOf (base: string): string {
  return base === '/' ? '' : base
}

/** True when `path` is `tree` or below it. */
function isUnder (path: string, tree: string): boolean {
  return path === tree || (path.startsWith(tree) && (tree === '' || path[tree.length] === '/' || tree.endsWith('/')))
}

export function pathOf (url: string): string {
  const q = url.indexOf('?')
  return q === -1 ? url : url.slice(0, q)
}
