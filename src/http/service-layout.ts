import type { Config } from '../options.js'
import { ERRORS_PATH } from './errors/index.js'
import { API_DOCS_PATH, OPENAPI_PATH } from './openapi/index.js'
export type ServiceName = 'students' | 'addresses' | 'albums' | 'events'

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
  /** The GraphQL endpoint itself (every operation there is a query: a read). */
  graphql: boolean
}

export const METRICS_PATH = '/metrics'
export const HEALTH_PATHS: readonly string[] = ['/healthz', '/readyz']
/** The change feed (src/services/events): records, so a read. */
const EVENTS_PATH = '/events'
/** The web application's pages and bundle (src/services/app): pages for people; it calls the API with its own requests. */
const APP_TREE = '/app'

/** Paths of the server's own pages and documents: never behind a token. */
const PUBLIC_EXACT = new Set(['/', ...HEALTH_PATHS, OPENAPI_PATH])
const PUBLIC_TREES = [API_DOCS_PATH, '/docs', ERRORS_PATH, APP_TREE]
const VERSIONS = [1, 2]

interface Root {
  root: string
  service: 'students' | 'addresses'
  uriVersion?: number
}

const PUBLIC: PathClass = { access: 'public', graphql: false }

/**
 * Where each service is mounted, derived from the configuration the same way
 * the services mount themselves (base path, /v1 and /v2 twins, the GraphQL
 * prefix). Security, metrics and audit ask it, once per route as routes are
 * added, what a path is: which service, and whether a token is needed. (How
 * a refusal is worded is not its business: the route's own error pipeline
 * renders it, see ./security/reject.ts.)
 */
export class ServiceLayout {
  readonly #roots: Root[] = []
  readonly #graphql: string | undefined
  readonly #graphqlPublic: string[] = []
  readonly #events: boolean
  readonly #routes = new Map<string, PathClass>()

  constructor (config: Pick<Config, 'students' | 'addresses' | 'albums' | 'events' | 'versioning'>) {
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
    this.#events = config.events.enabled
  }

  /** What a path (without query) or a route pattern such as `/students/:id` is. */
  classify (path: string): PathClass {
    if (PUBLIC_EXACT.has(path) || PUBLIC_TREES.some((tree) => isUnder(path, tree))) return PUBLIC
    if (path === METRICS_PATH) return { access: 'metrics', graphql: false }
    if (this.#graphql !== undefined) {
      if (path === this.#graphql) return { service: 'albums', access: 'service', graphql: true }
      if (this.#graphqlPublic.some((tree) => isUnder(path, tree))) return { service: 'albums', access: 'public', graphql: false }
    }
    if (this.#events && path === EVENTS_PATH) return { service: 'events', access: 'service', graphql: false }
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
}

/** `/` mounts at the root (Fastify's empty prefix); anything else as given. */
function prefixOf (base: string): string {
  return base === '/' ? '' : base
}

/** True when `path` is `tree` or below it. */
function isUnder (path: string, tree: string): boolean {
  return path === tree || (path.startsWith(tree) && (tree === '' || path[tree.length] === '/' || tree.endsWith('/')))
}
