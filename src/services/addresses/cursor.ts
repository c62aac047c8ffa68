import { parseAddressId } from './id.js'

/** The opaque paging cursor: base64url of the last id on the page. */
export function encodeCursor (lastId: bigint): string {
  return Buffer.from(lastId.toString(), 'latin1').toString('base64url')
}

/** The id a cursor stands for, or undefined when the cursor is not one encodeCursor made. */
export function decodeCursor (cursor: string): bigint | undefined {
  const text = Buffer.from(cursor, 'base64url').toString('latin1')
  const id = parseAddressId(text)
  // Buffer's decoder skips stray characters; insisting on a round trip rejects them.
  return id !== undefined && encodeCursor(id) === cursor ? id : undefined
}
