import type { ServedCollection } from '../../data/collection.js'
import { KeptLists, KeptPages, RecordEtags } from '../../http/rest/index.js'
import type { ServiceDescriptor } from '../types.js'
import { collectionsOptions } from './config.js'
import { authEnabled } from '../../config/security.js'
import type { CollectionSchema } from './declare.js'
import { COLLECTION_ERRORS } from './errors.js'
import { COLLECTIONS_PATH, collectionsListing } from './listing.js'
import { servedCollection } from './records.js'
import { collectionRepresentations, type CollectionRoutesOptions } from './routes.js'
import { declaredSchema } from './schema.js'
import { labelFieldOf } from './label.js'
import { collectionStore } from '../records/routes.js'
import { filterOperators, relationsOf, sortKeys } from '../../records/index.js'
import { expansionOf } from './expand.js'
import { catalogueOf } from '../../http/errors/index.js'
import type { OpenApiDocument, SecurityFeatures } from '../../http/openapi/index.js'
import { vendorType } from '../../http/rest/index.js'
import type { ServiceConfig } from '../types.js'
import { checkOneCollection } from './config.js'
import { OWN_NAMES } from './declare.js'
import { adminRoutes } from './admin.js'
import { followChanges, liveRoutes } from './live-routes.js'
import { LiveCollections } from './live.js'
import { CollectionRegistry } from './registry.js'
import type { ListedCollection } from './listing.js'
import { sharedCollectionValidator } from './validation.js'

export { checkOneCollection, collectionsOptions, fromFile, type CollectionsConfig } from './config.js'
export type { CollectionSchema } from './declare.js'
export type { CollectionChange, CollectionChangeListener, CollectionEntry, CollectionRegistry } from './registry.js'

/** The versions a declared collection is served in: those of the built-in REST services, one representation in all. */
const VERSIONS = [1, 2]

/** One ServedCollection per declaration, built once (its line checker is compiled). */
const records = new WeakMap<CollectionSchema, ServedCollection>()
function recordsOf (collection: CollectionSchema): ServedCollection {
  let found = records.get(collection)
  if (found === undefined) {
    found = servedCollection(collection) as ServedCollection
    records.set(collection, found)
  }
  return found
}

/**
 * The collections a user declares (`--collections books.json`), each at
 * `/<name>`, and `GET /collections`, which lists every collection the server
 * serves with its record schema. Runs when at least one is declared.
 */
export const collectionsService: ServiceDescriptor<typeof collectionsOptions> = {
  name: 'collections',
  options: collectionsOptions,
  errors: COLLECTION_ERRORS,
  declarations: (config) => config.collections.declared.map((c) => c.declaration),
  collections: (config) => config.collections.declared.map(recordsOf),
  versions: VERSIONS,
  enabled: (config) => config.collections.declared.length > 0 || config.collections.api === true,
  links: (config) => [
    { rel: 'collections', href: COLLECTIONS_PATH, title: 'Every collection with its record schema', type: 'application/json' },
    ...config.collections.declared.map((c) => ({ rel: c.declaration.name, href: `/${c.declaration.name}`, title: `${c.description ?? c.declaration.name} (declared collection, REST)`, type: 'application/json' }))
  ],
  tags: (config) => [
    { name: 'collections', description: 'The collections this server serves, built-in and declared, with their record schemas.' },
    ...config.collections.declared.map((c) => ({ name: c.declaration.name, description: c.description ?? `The declared collection ${c.declaration.name} (--collections): POST creates, PUT replaces, ETag and If-Match.` }))
  ],
  paths: (config) => [
    { path: COLLECTIONS_PATH },
    ...config.collections.declared.map((c) => ({ path: `/${c.declaration.name}`, owner: `collection ${c.declaration.name}` }))
  ],
  register: async (app, { config, stores, links, collections }) => {
    const declared = config.collections.declared
    const relations = relationsOf(declared.map((c) => c.declaration))
    // The collections as declarations, on this server: changed by the admin API, followed by REST, the listing and OpenAPI.
    const registry = new CollectionRegistry(stores, declared)
    app.decorate('collectionRegistry', registry)
    await registry.load(checkOneCollection, (name, err) => { app.log.error({ err, collection: name }, `collection ${name}, created through the admin API, no longer reads: not served`) })
    // Other instances on the same database change collections too: followed within a second (a notification, or the check every few seconds).
    const unfollow = registry.follow((err) => { app.log.warn({ err }, 'collections: could not read the changes other instances made; trying again at the next notification or check') })
    app.addHook('onClose', async () => { unfollow() })
    const builtIns = new Map(collections.filter((c) => !declared.some((d) => d.declaration.name === c.name)).map((c) => [c.name, c.schema as unknown]))
    const versions = [...new Set([...VERSIONS])]
    const live = new LiveCollections({ registry, stores, versioning: config.versioning, versions, bodyLimit: config.bodyLimit, publicUrl: config.publicUrl, catalogue: catalogueOf(app), log: app.log, openApi: openApiOf(config) })
    app.addHook('onClose', async () => { await live.close() })
    // A collection mounted at start whose declaration changed (or that was removed) is answered as it is now.
    app.addHook('onRoute', followChanges(registry, live, declared, config.versioning.uri ? VERSIONS : []))
    for (const collection of declared) {
      const name = collection.declaration.name
      await app.mountRest<CollectionRoutesOptions>('/', {
        name,
        resources: `/${name}`,
        representations: collectionRepresentations(name, VERSIONS),
        options: { collection, records: collectionStore(stores, name), vendor: config.versioning.vendor, pages: new KeptPages(), lists: new KeptLists(), etags: new RecordEtags(), validator: sharedCollectionValidator(), expansion: expansionOf(relations, name, stores, declared) }
      })
    }
    // Every collection: the built-ins in the directory's order, then the declared ones as the registry holds them now.
    const listed = (): ListedCollection[] => {
      const current = new Map(registry.entries().map((e) => [e.name, e.schema]))
      const fixed = collections.filter((c) => !current.has(c.name) && !declared.some((d) => d.declaration.name === c.name)).map((c) => {
        // A built-in collection's rules come from the configuration file (docs/rules.md).
        const access = stores.collections.get(c.name)?.declaration.access
        return {
          name: c.name,
          href: links.find((l) => l.rel === c.name)?.href ?? `/${c.name}`,
          declared: false,
          label: labelFieldOf({ properties: {}, required: [], ...(c.schema as { properties?: Record<string, { type?: unknown }>, required?: string[] }) }),
          schema: c.schema,
          sort: sortKeys(c.model),
          filters: filterOperators(c.model),
          ...(access === undefined ? {} : { access })
        }
      })
      const own = [...current.values()].map((schema) => {
        const model = recordsOf(schema).model
        return { name: schema.declaration.name, href: `/${schema.declaration.name}`, declared: true, label: labelFieldOf(schema), ...(schema.description === undefined ? {} : { description: schema.description }), schema: declaredSchema(schema), sort: sortKeys(model), filters: filterOperators(model), ...(schema.declaration.access === undefined ? {} : { access: schema.declaration.access }) }
      })
      const builtInsFirst = collections.map((c) => c.name)
      return [...fixed, ...own].sort((a, b) => order(builtInsFirst, a.name) - order(builtInsFirst, b.name))
    }
    await app.register(collectionsListing, { listed, version: () => registry.version, auth: authEnabled(config.security) })
    await app.register(adminRoutes, { registry, parse: checkOneCollection, builtIns, taken: [...OWN_NAMES, ...builtIns.keys()] })
    await app.register(liveRoutes, { registry, live, versions: config.versioning.uri ? VERSIONS : [] })
    // /openapi.json lists each collection as the registry holds it now.
    if (app.hasDecorator('followOpenApi')) app.followOpenApi({ version: () => registry.version, patch: async (document) => await followedDocument(document, registry, live, declared, config.versioning.uri ? VERSIONS : []) })
  }
}

/** The API description's settings as the listening server has them (src/server.ts), for the part a changed collection lends it. */
function openApiOf (config: ServiceConfig<typeof collectionsOptions>): { newestType: string, bearerAuth: boolean, security: SecurityFeatures } {
  const security = config.security
  return {
    newestType: vendorType(config.versioning.vendor, Math.max(...VERSIONS)),
    bearerAuth: authEnabled(security),
    security: { auth: authEnabled(security), jwt: security.authJwksUrl !== undefined, rateLimit: security.rateLimit !== undefined, overload: security.overload }
  }
}

/**
 * The document with each collection as the registry holds it: the paths of
 * those changed or removed since the start taken out, those of the changed
 * and created ones as their own servers describe them put in.
 */
async function followedDocument (document: OpenApiDocument, registry: CollectionRegistry, live: LiveCollections, declared: readonly CollectionSchema[], versions: readonly number[]): Promise<OpenApiDocument> {
  const atStart = new Map(declared.map((c) => [c.declaration.name, c]))
  const current = registry.entries()
  const moved = current.filter((e) => atStart.get(e.name) !== e.schema)
  const names = new Set([...moved.map((e) => e.name), ...[...atStart.keys()].filter((n) => registry.get(n) === undefined)])
  const prefixes = ['', ...versions.map((v) => `/v${v}`)]
  const owned = (path: string): boolean => prefixes.some((p) => [...names].some((n) => path === `${p}/${n}` || path.startsWith(`${p}/${n}/`)))
  for (const path of Object.keys(document.paths)) if (owned(path)) Reflect.deleteProperty(document.paths, path)
  const tags = (document.tags ?? []) as Array<{ name: string }>
  document.tags = tags.filter((t) => !names.has(t.name))
  for (const entry of moved) {
    const own = await live.documentOf(entry.schema)
    Object.assign(document.paths, own.paths)
    Object.assign(document.components.schemas, own.components.schemas)
    document.tags.push(...((own.tags ?? []) as Array<{ name: string }>).filter((t) => t.name === entry.name))
  }
  return document
}

/** Where a name stands in the listing: the built-ins and the file's collections in the directory's order, those created later after them. */
function order (names: readonly string[], name: string): number {
  const at = names.indexOf(name)
  return at === -1 ? names.length : at
}
