import { KINDS, type Kind } from '../../domain/index.js'

/**
 * The documented limits on declarations (issue 36, item 6), refused at start
 * with the limit named. Names are bounded where they are checked (a
 * collection's 40 characters, a field's 63) and a schema is flat (a field is
 * a string, integer, number or boolean, never an object or array), so there
 * is no nesting to bound.
 */

/**
 * Collections a server declares. Each adds its routes (two versions, every
 * filter of every field in the list's query string), validators and a part
 * of /openapi.json: start time and the document grow with them.
 */
export const MAX_COLLECTIONS = 20

/**
 * Stored columns a collection may take: a field takes one, a string field
 * two (its value and the folded copy the search reads). PostgreSQL's
 * generated write functions take every column as an argument, and a
 * function takes at most 100: 96 leaves room for the id and the outputs.
 * So: 48 string fields, or 96 of the other types.
 */
export const MAX_COLUMNS = 96

/** Why there are too many collections, or undefined. */
export function tooManyCollections (count: number): string | undefined {
  if (count <= MAX_COLLECTIONS) return undefined
  return `${count} collections are declared; a server serves at most ${MAX_COLLECTIONS} (each adds routes, validators and a part of /openapi.json that the start builds): serve the others from another instance`
}

/** Why a collection's fields take too many columns, or undefined. */
export function tooManyFields (types: readonly Kind[]): string | undefined {
  const columns = types.reduce((n, type) => n + (KINDS[type].folded ? 2 : 1), 0)
  if (columns <= MAX_COLUMNS) return undefined
  return `${types.length} fields take ${columns} columns; a collection takes at most ${MAX_COLUMNS} (a string field two: its value and the folded copy the search reads; so at most ${MAX_COLUMNS / 2} string fields): split the collection`
}
