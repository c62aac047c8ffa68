import { readFileSync } from 'node:fs'
import { buildSchema, GraphQLObjectType, GraphQLSchema } from 'graphql'
import type { CollectionParts } from '../../graphql/schema.js'
import { filterAlbums, type Album } from './albums.js'

/**
 * The SDL lives in one file next to this module; the build copies it into
 * dist/ so the same relative URL works under tsx (src/) and node (dist/).
 */
export const SCHEMA_SDL_URL = new URL('./schema.graphql', import.meta.url)

export const SCHEMA_SDL: string = readFileSync(SCHEMA_SDL_URL, 'utf8')

/**
 * The executable schema: `albums` as the SDL says, plus every collection's
 * fields (src/graphql) beside it, with a Mutation and a Subscription type
 * when there are collections.
 */
export function buildAlbumSchema (albums: readonly Album[], collections?: CollectionParts): GraphQLSchema {
  const schema = buildSchema(SCHEMA_SDL)
  const query = schema.getQueryType()
  const albumsField = query?.getFields().albums
  if (query == null || albumsField === undefined) throw new Error('schema.graphql must define Query.albums')
  albumsField.resolve = (_source, args: { titleFilter?: string | null }) => filterAlbums(albums, args.titleFilter)
  if (!hasCollections(collections)) return schema
  const config = query.toConfig()
  return new GraphQLSchema({
    query: new GraphQLObjectType({
      ...config,
      description: `${config.description ?? ''}\n\nBeside it, every record collection of the server: \`<name>\` (camelCase) lists a page, \`<name>ById\` reads one record.`.trim(),
      fields: { ...config.fields, ...collections.query }
    }),
    mutation: new GraphQLObjectType({ name: 'Mutation', description: 'Writes to the record collections: create<Type>, replace<Type>, delete<Type>; each needs the write scope.', fields: collections.mutation }),
    subscription: new GraphQLObjectType({ name: 'Subscription', description: 'Changes of the record collections, `<name>Changed`, over SSE (graphql-sse) at {base}/graphql/stream.', fields: collections.subscription })
  })
}

/** Whether collections add fields beside `albums` (and so a Mutation and a Subscription type). */
export function hasCollections (collections: CollectionParts | undefined): collections is CollectionParts {
  return collections !== undefined && Object.keys(collections.query).length > 0
}

/** Type and root field names the album part holds, which no collection may take. */
export const ALBUM_TYPES: ReadonlySet<string> = new Set(['Album'])
export const ALBUM_FIELDS: ReadonlySet<string> = new Set(['albums'])
