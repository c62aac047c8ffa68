import { decodeCursor as decodePosition, encodeCursor as encodePosition } from '../../http/rest/index.js'
import { ADDRESS_QUERY } from './query.js'

/** The cursor of a page in id order: base64url of the last id on the page (src/records/cursor.ts). */
export function encodeCursor (lastId: bigint): string {
  return encodePosition([], { keys: [], id: lastId })
}

/** The id a cursor of the id order stands for, or undefined when the cursor is not one encodeCursor made. */
export function decodeCursor (cursor: string): bigint | undefined {
  return decodePosition(ADDRESS_QUERY, [], cursor)?.id as bigint | undefined
}
