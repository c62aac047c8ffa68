import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.js'
import type { Stores } from '../domain/index.js'
/** One entry of the API's directory: where a client finds a service (spec, Versioning rule 4). */
export interface DirectoryLink {
  rel: string
  href: string
  title: string
  /** Media type of what the link points to. */
  type?: string
}

/**
 * A path a service answers under, and everything below it. No two services
 * (nor the server's own pages) may overlap: checked at start (./paths.ts).
 */
export interface ServicePath {
  path: string
  /** The option that moves it (e.g. `students-base`); none for a fixed path. */
  option?: string
}

/** What a service gets when the server registers it. */
export interface ServiceContext {
  config: Config
  stores: Stores
  /** Every enabled service's directory links (a page that links to the others reads them here). */
  links: readonly DirectoryLink[]
}

/**
 * Everything the server needs to know about a service. The version list, the
 * entry point's links and the OpenAPI tags are derived from the descriptors,
 * so adding a service is one folder and one line in src/server.ts.
 */
export interface ServiceDescriptor {
  name: string
  /** Versions of its REST representations (none for a GraphQL service). */
  versions: readonly number[]
  enabled: (config: Config) => boolean
  /** Its entries in the entry point's directory. */
  links: (config: Config) => DirectoryLink[]
  /** OpenAPI tags of its operations. */
  tags: ReadonlyArray<{ name: string, description: string }>
  /** Where it answers (its base, or what it serves there when that is the root). */
  paths: (config: Config) => ServicePath[]
  /** Registers its routes; every one declares its service and access (src/http/routes), or authentication refuses it. */
  register: (app: FastifyInstance, context: ServiceContext) => Promise<void>
}

/** `/` mounts at the root (Fastify's empty prefix); anything else as given. */
export function prefixOf (base: string): string {
  return base === '/' ? '' : base
}
