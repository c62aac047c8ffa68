/**
 * Parses a path segment that must be a non-negative integer in decimal digits
 * (leading zeros allowed) no larger than Number.MAX_SAFE_INTEGER. Returns -1
 * for anything else: signs, decimals, exponents, hex, spaces, empty, too big.
 * A char loop, not a regex: this runs on every read by id.
 */
export function parseNonNegativeInteger (segment: string): number {
  const len = segment.length
  if (len === 0 || len > 16) return -1
  for (let i = 0; i < len; i++) {
    const c = segment.charCodeAt(i)
    if (c < 48 || c > 57) return -1
  }
  const n = Number(segment)
  return n <= Number.MAX_SAFE_INTEGER ? n : -1
}
