import type { FastifyInstance } from 'fastify'
import type { CoreConfig, OptionGroup, SectionOf, SectionsOf } from '../config.js'
import type { CollectionDeclaration, RecordStores } from '../domain/index.js'
import type { ServedCollection } from '../data/collection.js'
import type { ErrorDefinitions } from '../http/errors/index.js'
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
  /** Who claims it, when not the service as a whole (`collection books`), for messages. */
  owner?: string
}

/** An OpenAPI tag of a service's operations. */
export interface ServiceTag {
  name: string
  description: string
}

/** The configuration as a service sees it: the server's own settings and its own section (none of another service's). */
export type ServiceConfig<G extends OptionGroup | undefined> = CoreConfig & (G extends OptionGroup ? { [K in G['key']]: SectionOf<G> } : unknown)

/** What a service gets when the server registers it. */
export interface ServiceContext<G extends OptionGroup | undefined = OptionGroup | undefined> {
  config: ServiceConfig<G>
  stores: RecordStores
  /** Every enabled service's directory links (a page that links to the others reads them here). */
  links: readonly DirectoryLink[]
  /** Every enabled service's record collections (the change feed carries their changes). */
  collections: readonly ServedCollection[]
}

/**
 * Everything the server needs to know about a service, and all a service
 * adds to it: its options (`--help`, the Config), its error codes, its record
 * collections, its entries in the directory, its OpenAPI tags, its routes.
 * The central code reads these, so adding a service is one folder and one
 * line in src/services/index.ts. `G` is its option group, which gives its
 * section of the Config its type.
 */
export interface ServiceDescriptor<G extends OptionGroup | undefined = OptionGroup | undefined> {
  name: string
  /** Its section of the configuration, `config.<key>`: flags, variables, defaults and help lines. */
  options?: G
  /**
   * Its own error codes, each with its status, description and English and
   * German texts, beside the core's in the server's catalogue (`/errors`,
   * docs/errors.md, the API description). Declared in its errors.ts, whose
   * `ServiceErrorCodes` entry lets its routes throw them as AppErrors.
   */
  errors?: ErrorDefinitions
  /**
   * The collections the stores keep for it, as the record engine sees them,
   * whether it runs or not (seed files and `rqs import` reach them all): the
   * stores open these and know of no other (read them with declarationsOf).
   */
  declarations?: (config: ServiceConfig<G>) => readonly CollectionDeclaration[]
  /**
   * The record collections it serves: `rqs import`/`export --service`, seed files, the change feed's events.
   * A function when they depend on the configuration (the collections a user declares); read them with collectionsOf.
   */
  collections?: readonly ServedCollection[] | ((config: ServiceConfig<G>) => readonly ServedCollection[])
  /**
   * Other services' collections it works on (the change feed: `'any'`; the
   * web app: the ones it has pages for). Even when `enabled`, it runs only
   * while a service serving one of them runs.
   */
  consumes?: 'any' | readonly string[]
  /** Versions of its REST representations (none for a GraphQL service). */
  versions: readonly number[]
  enabled (config: ServiceConfig<G>): boolean
  /** Its entries in the entry point's directory. */
  links (config: ServiceConfig<G>): DirectoryLink[]
  /** OpenAPI tags of its operations; a function when they depend on the configuration (read them with tagsOf). */
  tags: readonly ServiceTag[] | ((config: ServiceConfig<G>) => readonly ServiceTag[])
  /** Where it answers (its base, or what it serves there when that is the root). */
  paths (config: ServiceConfig<G>): ServicePath[]
  /** Registers its routes; every one declares its service and access (src/http/routes), or authentication refuses it. */
  register (app: FastifyInstance, context: ServiceContext<G>): Promise<void>
}

/** The sections some services add to the Config: `{ students: StudentsConfig, … }`. */
export type ServiceSections<S extends readonly ServiceDescriptor[]> = SectionsOf<Exclude<S[number]['options'], undefined>>

/** `/` mounts at the root (Fastify's empty prefix); anything else as given. */
export function prefixOf (base: string): string {
  return base === '/' ? '' : base
}
