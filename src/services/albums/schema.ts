import { readFileSync } from 'node:fs'
import { buildSchema, type GraphQLSchema } from 'graphql'
import { filterAlbums, type Album } from './albums.js'

/**
 * The SDL lives in one file next to this module; the build copies it into
 * dist/ so the same relative URL works under tsx (src/) and node (dist/).
 */
export const SCHEMA_SDL_URL = new URL('./schema.graphql', import.meta.url)

export const SCHEMA_SDL: string = readFileSync(SCHEMA_SDL_URL, 'utf8')

/** The executable schema serving `albums`: the SDL plus the one resolver it needs. */
export function buildAlbumSchema (albums: readonly Album[]): GraphQLSchema {
  const schema = buildSchema(SCHEMA_SDL)
  const albumsField = schema.getQueryType()?.getFields().albums
  if (albumsField === undefined) throw new Error('schema.graphql must define Query.albums')
  albumsField.resolve = (_source, args: { titleFilter?: string | null }) => filterAlbums(albums, args.titleFilter)
  return schema
}
