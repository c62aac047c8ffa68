import { readFile } from 'node:fs/promises'
import { Type, type Static } from '@sinclair/typebox'
import { Ajv } from 'ajv'
import { onFirstUse } from '../../lib/first-use.js'

/** One album as the schema exposes it; every field is nullable, as in the spec's table. */
export const AlbumSchema = Type.Object({
  title: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  artist: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  // GraphQL Int is a signed 32-bit integer: a larger number could not be served.
  recordNo: Type.Optional(Type.Union([Type.Integer({ minimum: -(2 ** 31), maximum: 2 ** 31 - 1 }), Type.Null()]))
}, { additionalProperties: false })

export const AlbumListSchema = Type.Array(AlbumSchema, { maxItems: 100_000 })

export type Album = Static<typeof AlbumSchema>

/** The fixed list of the system the spec describes, in its order. */
export const DEFAULT_ALBUMS: readonly Album[] = Object.freeze([
  Object.freeze({ title: 'Rumours', artist: 'Fleetwood Mac', recordNo: 20 }),
  Object.freeze({ title: "What's Going On", artist: 'Marvin Gaye', recordNo: 10 }),
  Object.freeze({ title: 'Pet Sounds', artist: 'The Beach Boys', recordNo: 12 })
])

/** Albums whose title contains `titleFilter` (case-sensitive); all of them for null/undefined. */
export function filterAlbums (albums: readonly Album[], titleFilter: string | null | undefined): readonly Album[] {
  if (titleFilter == null) return albums
  return albums.filter((album) => album.title != null && album.title.includes(titleFilter))
}

/** Thrown when the albums file cannot be used; the message names the file and the problem. */
export class AlbumsFileError extends Error {
  override name = 'AlbumsFileError'
}

// Compiled when an albums file is first read (the built-in albums need no check).
const albumList = onFirstUse(() => new Ajv({ allErrors: false, strict: true }).compile<Album[]>(AlbumListSchema))

/**
 * Reads and validates an albums file at start-up, so that a typo stops the
 * server with a clear message instead of serving wrong data.
 */
export async function loadAlbumsFile (path: string): Promise<readonly Album[]> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    throw new AlbumsFileError(`albums file ${path} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
  }
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (err) {
    throw new AlbumsFileError(`albums file ${path} is not valid JSON: ${(err as Error).message}`)
  }
  const validateList = albumList()
  if (!validateList(data)) {
    const first = validateList.errors?.[0]
    const where = first === undefined || first.instancePath === '' ? 'the top level' : first.instancePath
    const what = first?.keyword === 'additionalProperties'
      ? `has an unknown field "${String(first.params.additionalProperty)}" (allowed: title, artist, recordNo)`
      : first?.message ?? 'is invalid'
    throw new AlbumsFileError(`albums file ${path} must be a JSON array of {title, artist, recordNo}: ${where} ${what}`)
  }
  return Object.freeze(data.map((album) => Object.freeze({ title: album.title ?? null, artist: album.artist ?? null, recordNo: album.recordNo ?? null })))
}
