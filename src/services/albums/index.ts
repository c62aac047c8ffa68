import type { ServiceDescriptor } from '../types.js'
import { albumsOptions } from './config.js'
import { ALBUM_ERRORS } from './errors.js'
import { prefixOf } from '../types.js'
import { ALBUM_TAGS } from './openapi.js'
import { albumRoutes } from './routes.js'
import { GRAPHQL_STREAMS } from './stream-slots.js'
import { ChangeStreams } from '../../graphql/changes.js'
import { authEnabled } from '../../config/security.js'
import { ServedNow } from '../collections/served-now.js'

/** Most GraphQL subscriptions one server serves at once (each holds a connection and a listener). */
const MAX_SUBSCRIPTIONS = 1000

/** The album query service (GraphQL): `{base}/graphql` and the GraphiQL editor at `{base}/graphiql`. */
export const albumsService: ServiceDescriptor<typeof albumsOptions> = {
  name: 'albums',
  options: albumsOptions,
  errors: ALBUM_ERRORS,
  versions: [],
  enabled: (config) => config.albums.enabled,
  links: (config) => {
    const base = prefixOf(config.albums.base)
    return [
      { rel: 'albums', href: `${base}/graphql`, title: 'Album query service (GraphQL)', type: 'application/graphql-response+json' },
      { rel: 'albums-editor', href: `${base}/graphiql`, title: 'GraphiQL: the interactive editor for every GraphQL query (albums and the collections)', type: 'text/html' }
    ]
  },
  tags: ALBUM_TAGS,
  paths: (config) => ['graphql', 'graphiql'].map((name) => ({ path: `${prefixOf(config.albums.base)}/${name}`, option: 'albums-base' })),
  register: async (app, { config, stores, collections }) => {
    // Every enabled service's collections get their GraphQL fields beside albums (issue 23).
    const streams = new ChangeStreams(stores.changes, MAX_SUBSCRIPTIONS)
    // Each subscription takes a slot of the server's stream budget before it starts, at most this many of them.
    app.streams.limitKind(GRAPHQL_STREAMS, MAX_SUBSCRIPTIONS)
    app.addHook('onClose', async () => { streams.close() })
    // A collection changed while the server runs (the admin API) rebuilds the whole schema with every collection as it is now.
    const registry = app.collectionRegistry
    const served = registry === undefined ? undefined : new ServedNow(registry, collections)
    const follow = registry === undefined
      ? undefined
      : (listener: () => void) => {
          registry.onChange(() => {
            // Heard after the change was applied: a schema that cannot be built is logged, never the change's failure.
            try {
              listener()
            } catch (err) {
              app.log.error({ err }, 'the GraphQL schema could not follow a change of the collections: the one before it is served')
            }
          })
        }
    await app.register(albumRoutes, { prefix: prefixOf(config.albums.base), config: config.albums, base: config.albums.base, collections: () => served?.collections() ?? collections, stores, streams, auth: authEnabled(config.security), ...(follow === undefined ? {} : { follow }) })
  }
}
