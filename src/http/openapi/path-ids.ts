/**
 * Path ids as the API description types them. The routes take any string
 * and parse the id themselves, so a bad id answers the service's INVALID_ID
 * (not a generic VALIDATION_FAILED); the document instead shows what the
 * parser accepts, exactly, so that a schema-driven client or fuzzer only
 * generates ids the server takes. A route names that schema under
 * ACCEPTS_KEY in its path parameter's schema (Fastify's validators ignore
 * unknown keywords); ./document.ts publishes it in place of the string schema.
 */

/** The keyword of a path parameter's schema that holds its documented form. */
export const ACCEPTS_KEY = 'x-accepts'

/**
 * A regular expression source for the decimal numerals from 0 (or 1) up to
 * `max`, whole string. Beyond what `maximum` can say of a string, a pattern
 * can bound a range exactly: numerals shorter than `max` are all in range,
 * and those of its length are in range when, at the first digit where they
 * differ from it, their digit is smaller.
 */
export function decimalAtMost (max: string, { leadingZeros, zero }: { leadingZeros: boolean, zero: boolean }): string {
  if (!/^[1-9][0-9]*$/.test(max)) throw new Error(`${max} is not a positive decimal numeral`)
  const length = max.length
  const options: string[] = []
  const any = (count: number): string => count === 0 ? '' : count === 1 ? '[0-9]' : `[0-9]{${count}}`
  const range = (from: number, to: number): string => from === to ? String(from) : `[${from}-${to}]`
  if (leadingZeros) {
    // Any digits, shorter than max; then max's length with a smaller digit somewhere, or max itself.
    if (length > 1) options.push(length === 2 ? '[0-9]' : `[0-9]{1,${length - 1}}`)
    else if (zero) options.push('0')
  } else {
    if (zero) options.push('0')
    if (length > 1) options.push(length === 2 ? '[1-9]' : `[1-9][0-9]{0,${length - 2}}`)
  }
  for (let i = 0; i < length; i++) {
    const digit = Number(max[i])
    const lowest = i === 0 && !leadingZeros ? 1 : 0
    if (digit > lowest) options.push(`${max.slice(0, i)}${range(lowest, digit - 1)}${any(length - i - 1)}`)
  }
  options.push(max)
  return `^(?:${options.join('|')})$`
}

const MAX_SAFE = String(Number.MAX_SAFE_INTEGER)

/**
 * A student id (src/http/rest/ids.ts): 1–16 decimal digits, leading zeros
 * allowed (`007` is 7), at most 2^53 − 1.
 */
export const STUDENT_PATH_ID = {
  type: 'string',
  pattern: decimalAtMost(MAX_SAFE, { leadingZeros: true, zero: true }),
  description: `The student id: a non-negative integer in decimal digits, at most ${MAX_SAFE} (leading zeros are read away: \`007\` is 7). Anything else is 400 INVALID_ID.`
}

/** An address id (src/services/addresses/id.ts): canonical decimal 1 … 2^63 − 1. */
export function int64PathId (max: string, description: string): Record<string, unknown> {
  return { type: 'string', format: 'int64', pattern: decimalAtMost(max, { leadingZeros: false, zero: false }), description }
}

/** A declared collection's sequence id: canonical decimal 1 … 2^53 − 1. */
export const SEQUENCE_PATH_ID = {
  type: 'string',
  pattern: decimalAtMost(MAX_SAFE, { leadingZeros: false, zero: false }),
  description: `The record id: a positive integer in plain decimal digits, no leading zero, at most ${MAX_SAFE}. Anything else is 400 INVALID_ID.`
}

/** A declared collection's UUID id: any case (the route reads it in lower case), no `urn:uuid:` prefix. */
export const UUID_PATH_ID = {
  type: 'string',
  format: 'uuid',
  pattern: '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$',
  description: 'The record id: a UUID (upper or lower case). Anything else is 400 INVALID_ID.'
}
