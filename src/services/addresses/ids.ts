import type { Address } from '../../stores/types.js'
import { strongEtag } from '../../http/conditional.js'

export const MAX_ID = 9223372036854775807n
const MAX_ID_TEXT = '9223372036854775807'

/**
 * A path id: 1 … 9223372036854775807 in canonical decimal (digits only, no
 * leading zero, no sign). Anything else is undefined. A char loop, not a
 * regex: this runs on every read by id.
 */
export function parseAddressId (segment: string): bigint | undefined {
  const len = segment.length
  if (len === 0 || len > MAX_ID_TEXT.length || segment.charCodeAt(0) === 48) return undefined
  for (let i = 0; i < len; i++) {
    const c = segment.charCodeAt(i)
    if (c < 48 || c > 57) return undefined
  }
  // Same length: decimal strings compare like their values.
  if (len === MAX_ID_TEXT.length && segment > MAX_ID_TEXT) return undefined
  return BigInt(segment)
}

export type BodyIdCheck = 'same' | 'different' | 'invalid'

/** Compares a body `id` (number, or bigint when beyond 2^53) with the path id, exactly. */
export function checkBodyId (value: unknown, pathId: bigint): BodyIdCheck {
  if (typeof value === 'bigint') return value === pathId ? 'same' : 'different'
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value) === pathId ? 'same' : 'different'
  return 'invalid'
}

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

/** Strong ETag of an address representation; length-prefixed fields so no two records share a fingerprint. */
export function addressEtag (a: Address): string {
  return strongEtag(`${a.id}|${a.name.length}:${a.name}|${a.city.length}:${a.city}|${a.postalCode}`)
}
