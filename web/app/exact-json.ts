import { isSafeNumber, parse } from 'lossless-json'

/**
 * JSON.parse, except that an integer beyond 2^53 stays exact as a string:
 * address ids are 64-bit and JSON.parse would round them (9223372036854775807
 * would become …800 and name another record).
 */
export function parseExact (text: string): unknown {
  return parse(text, null, (value) => isSafeNumber(value) ? Number(value) : value)
}
