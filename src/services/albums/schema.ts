import { readFileSync } from 'node:fs'
import { assertValidSchema, buildSchema, GraphQLObjectType, GraphQLSchema } from 'graphql'
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
 * when there are collections. graphql-js validates it when it is first used.
 */
export function buildAlbumSchema (albums: readonly Album[], collections?: CollectionParts): GraphQLSchema {
  const schema = albumPart(albums)
  return hasCollections(collections) ? withCollections(schema, collections, false) : schema
}

/**
 * The same schema in steps (src/graphql/turns.ts), validated: the album
 * part; each collection's fields (`collections`, a step each); each
 * collection's types validated in a schema of their own (a step each);
 * then the whole, assumed valid as its parts are (graphql-js validates a
 * schema in one go: 50 ms at the declaration limits). What only the whole
 * could get wrong, a type name twice, its constructor refuses.
 */
export function * albumSchemaInSteps (albums: readonly Album[], collections?: Generator<CollectionParts, CollectionParts>): Generator<void, GraphQLSchema> {
  const schema = albumPart(albums)
  assertValidSchema(schema)
  if (collections === undefined) return schema
  const own: CollectionParts[] = []
  for (let step = collections.next(); ; step = collections.next()) {
    if (step.done === true) {
      if (!hasCollections(step.value)) return schema
      for (const parts of own) {
        yield
        assertValidSchema(partSchema(parts))
      }
      yield
      return withCollections(schema, step.value, true)
    }
    own.push(step.value)
    yield
  }
}

function albumPart (albums: readonly Album[]): GraphQLSchema {
  const schema = buildSchema(SCHEMA_SDL)
  const query = schema.getQueryType()
  const albumsField = query?.getFields().albums
  if (query == null || albumsField === undefined) throw new Error('schema.graphql must define Query.albums')
  albumsField.resolve = (_source, args: { titleFilter?: string | null }) => filterAlbums(albums, args.titleFilter)
  return schema
}

function withCollections (album: GraphQLSchema, collections: CollectionParts, assumeValid: boolean): GraphQLSchema {
  const config = (album.getQueryType() as GraphQLObjectType).toConfig()
  return new GraphQLSchema({
    assumeValid,
    query: new GraphQLObjectType({
      ...config,
      description: `${config.description ?? ''}\n\nBeside it, every record collection of the server: \`<name>\` (camelCase) lists a page, \`<name>ById\` reads one record.`.trim(),
      fields: { ...config.fields, ...collections.query }
    }),
    mutation: new GraphQLObjectType({ name: 'Mutation', description: 'Writes to the record collections: create<Type>, replace<Type>, delete<Type>; each needs the write scope.', fields: collections.mutation }),
    subscription: new GraphQLObjectType({ name: 'Subscription', description: 'Changes of the record collections, `<name>Changed`, over SSE (graphql-sse) at {base}/graphql/stream.', fields: collections.subscription })
  })
}

/** One collection's root fields and the types they reach (other collections' through references too), as a schema to validate. */
function partSchema (parts: CollectionParts): GraphQLSchema {
  const root = (name: string, fields: CollectionParts['query']): GraphQLObjectType | undefined => Object.keys(fields).length === 0 ? undefined : new GraphQLObjectType({ name, fields })
  return new GraphQLSchema({ query: root('Query', parts.query), mutation: root('Mutation', parts.mutation), subscription: root('Subscription', parts.subscription) })
}

/** Whether collections add fields beside `albums` (and so a Mutation and a Subscription type). */
export function hasCollections (collections: CollectionParts | undefined): collections is CollectionParts {
  return collections !== undefined && Object.keys(collections.query).length > 0
}

/** Type and root field names the album part holds, which no collection may take. */
export const ALBUM_TYPES: ReadonlySet<string> = new Set(['Album'])
export const ALBUM_FIELDS: ReadonlySet<string> = new Set(['albums'])
