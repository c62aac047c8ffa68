import { MAX_INT64_ID } from '../../domain/index.js'
const MAX_ID_TEXT = MAX_INT64_ID.toString()

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
