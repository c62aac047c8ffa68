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
import { collectionStore } from '../records/routes.js'
import { filterOperators, relationsOf, sortKeys } from '../../records/index.js'
import { expansionOf } from './expand.js'
import { sharedCollectionValidator } from './validation.js'

export { collectionsOptions, type CollectionsConfig } from './config.js'
export type { CollectionSchema } from './declare.js'

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
  enabled: (config) => config.collections.declared.length > 0,
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
    for (const collection of declared) {
      const name = collection.declaration.name
      await app.mountRest<CollectionRoutesOptions>('/', {
        name,
        resources: `/${name}`,
        representations: collectionRepresentations(name, VERSIONS),
        options: { collection, records: collectionStore(stores, name), vendor: config.versioning.vendor, pages: new KeptPages(), lists: new KeptLists(), etags: new RecordEtags(), validator: sharedCollectionValidator(), expansion: expansionOf(relations, name, stores, declared) }
      })
    }
    const byName = new Map(declared.map((c) => [c.declaration.name, c]))
    const listed = collections.map((c) => {
      const own = byName.get(c.name)
      return {
        name: c.name,
        href: links.find((l) => l.rel === c.name)?.href ?? `/${c.name}`,
        declared: own !== undefined,
        schema: own === undefined ? c.schema : declaredSchema(own),
        sort: sortKeys(c.model),
        filters: filterOperators(c.model),
        ...(own?.declaration.access === undefined ? {} : { access: own.declaration.access })
      }
    })
    await app.register(collectionsListing, { collections: listed, auth: authEnabled(config.security) })
  }
}
