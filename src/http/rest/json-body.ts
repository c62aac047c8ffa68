import sjson from 'secure-json-parse'
import { isInteger, parse as parseLossless } from 'lossless-json'
import type { FastifyRequest } from 'fastify'
import { AppError } from '../errors/index.js'
import { jsonTooDeepError, nestsTooDeep } from './json-depth.js'

const SCAN_OPTIONS = { protoAction: 'error', constructorAction: 'error' } as const

/**
 * Whether a JSON text may hold a `__proto__` or `constructor` member. JSON
 * spells a name's characters literally or as `\uXXXX` escapes (it has no
 * other escape for letters or `_`), so a text with neither word nor any
 * `\u` cannot: the walk of the parsed value is then left out. A conservative
 * test: whatever it lets through is scanned as before.
 */
function mayHoldForbiddenMember (text: string): boolean {
  return text.includes('__proto__') || text.includes('constructor') || text.includes('\\u')
}

/**
 * A JSON body parser (for `addContentTypeParser('application/json', {parseAs:
 * 'string'}, ...)`) that reports each kind of bad body with its own code, and
 * keeps top-level integers beyond 2^53 exact: JSON.parse would round
 * 9223372036854775807 to 9223372036854775808, so such members are read again
 * from the text with lossless-json and arrive as `bigint`. That second parse
 * happens only when a rounded integer is present.
 */
export function exactJsonParser (_request: FastifyRequest, text: string, done: (err: Error | null, body?: unknown) => void): void {
  let body: unknown
  try {
    body = parseExactJson(text)
  } catch (err) {
    done(err as Error)
    return
  }
  done(null, body)
}

/**
 * Parses one JSON text as request bodies are parsed (see exactJsonParser);
 * throws AppError JSON_EXPECTED, NESTING_TOO_DEEP, MALFORMED_JSON or FORBIDDEN_PROPERTY.
 * `rqs import` reads each line of a file with it.
 */
export function parseExactJson (text: string): unknown {
  if (text.length === 0) throw new AppError('JSON_EXPECTED', 'The request body is empty')
  // Before any parsing: the exact-integer re-parse below recurses once per level.
  if (nestsTooDeep(text)) throw jsonTooDeepError()
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    throw new AppError('MALFORMED_JSON', `The request body is not valid JSON: ${(err as Error).message}`)
  }
  try {
    // JSON.parse makes `__proto__` an own property (harmless here), but code that copies objects could be fooled.
    if (typeof value === 'object' && value !== null && mayHoldForbiddenMember(text)) sjson.scan(value, SCAN_OPTIONS)
  } catch {
    throw new AppError('FORBIDDEN_PROPERTY', 'The request body has a __proto__ or constructor.prototype member')
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    try {
      restoreExactIntegers(value as Record<string, unknown>, text)
    } catch (err) {
      throw new AppError('MALFORMED_JSON', `The request body is not valid JSON: ${(err as Error).message}`)
    }
  }
  return value
}

function restoreExactIntegers (object: Record<string, unknown>, text: string): void {
  let exact: Record<string, unknown> | undefined
  // for…in over a parsed body (own members only, no prototype but Object's): no array of keys per body.
  for (const key in object) {
    const v = object[key]
    if (typeof v !== 'number' || Number.isSafeInteger(v) || !Number.isInteger(v)) continue
    exact ??= parseLossless(text, null, exactNumber) as Record<string, unknown>
    object[key] = exact[key]
  }
}

/** Plain integer literals become bigint (exact); anything else (1e30, 2.0) a number. */
function exactNumber (literal: string): unknown {
  return isInteger(literal) ? BigInt(literal) : Number(literal)
}
