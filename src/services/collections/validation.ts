import { Ajv, type Options, type ValidateFunction } from 'ajv'
import type { FastifySchema, FastifySchemaCompiler } from 'fastify'
import { BODY_VALIDATION, TEXT_VALIDATION } from '../../http/rest/index.js'
import { plainReasons } from '../../http/errors/index.js'
import { NOT_BLANK_PATTERN } from '../../http/errors/validation.js'
import { linearRegExpEngine } from '../../lib/linear-pattern.js'
import { STORABLE_TEXT_PATTERN } from '../../lib/storable-text.js'
import { onFirstUse } from '../../lib/first-use.js'
import { UUID_PATTERN } from './schema.js'
import { addKindKeyword } from './kind-keyword.js'
import { addStampKeyword } from './stamps.js'
import { addJsonKeyword } from './composite.js'

/**
 * The validators of declared collections: the server's rules (no coercion
 * of bodies, unknown members dropped, every failure reported) and the
 * formats a declaration may name, checked the same way by the routes and by
 * `rqs import`. rqs's own schemas name no such format, so the server's
 * validators know none. Declared patterns run on RE2 (linear time, issue 36):
 * a value can never hold the event loop however the pattern nests.
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/
const UUID = new RegExp(UUID_PATTERN)

function isDate (text: string): boolean {
  const match = DATE.exec(text)
  if (match === null) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

function isUri (text: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\S*$/.test(text)) return false
  try { return new URL(text).protocol !== '' } catch { return false }
}

function ajvWith (options: Options): Ajv {
  // rqs's own text rules keep the native engine (faster; tests cover them), declared ones get RE2.
  const regExp = linearRegExpEngine([STORABLE_TEXT_PATTERN, NOT_BLANK_PATTERN])
  // No check of each schema against JSON Schema's meta-schema: every schema compiled here is one rqs built
  // from a declaration its own checker accepted (which refuses what the meta-schema would, and more), and
  // compiling the meta-schema was a seventh of a start (each keyword's own meta-schema still checks its values).
  const ajv = new Ajv({ ...options, validateSchema: false, code: { ...options.code, regExp } })
  ajv.addFormat('date', isDate)
  ajv.addFormat('date-time', (text: string) => DATE_TIME.test(text) && isDate(text.slice(0, 10)) && !Number.isNaN(Date.parse(text)))
  ajv.addFormat('email', EMAIL)
  ajv.addFormat('uri', isUri)
  ajv.addFormat('uuid', UUID)
  ajv.addFormat('uri-reference', true)
  addKindKeyword(ajv)
  addStampKeyword(ajv)
  addJsonKeyword(ajv)
  return ajv
}

// Made when a validator first compiles (a route's first request, a seed line, an import), not when this
// module loads: every start loads it, and making the two instances was ≈ 3 % of a start with the default services.
const bodyAjv = onFirstUse(() => ajvWith(BODY_VALIDATION))
const textAjv = onFirstUse(() => ajvWith(TEXT_VALIDATION))

/** A route's validator compiler: bodies strictly, path and query coerced from text. */
export const collectionValidator: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv() : textAjv()).compile(schema as object)

/**
 * collectionValidator compiling each distinct schema once, for one
 * collection's routes: its list's query string (every filter of every
 * field) is the same for GET and HEAD on every mount, and compiling it took
 * most of the start with many fields (issue 36: 8 × ≈ 1 s for 96 fields).
 */
export function sharedCollectionValidator (): FastifySchemaCompiler<FastifySchema> {
  const compiled = new Map<string, Validator>()
  // The same schema object is handed over for many routes (every mount, GET and HEAD): known by
  // identity it gets the same validator. Distinct objects of the same text share one compiled
  // validator too, but that text is serialised when the validator first checks something, not at
  // start (serialising every route's schemas when the routes were added was ≈ 4 % of a start with
  // 20 collections, for validators most starts never run).
  const seen = { body: new WeakMap<object, Validator>(), text: new WeakMap<object, Validator>() }
  return (route) => {
    const part = route.httpPart === 'body' ? 'body' : 'text'
    const schema = route.schema as object
    let validate = seen[part].get(schema)
    if (validate !== undefined) return validate
    validate = lazily(() => {
      const key = `${part} ${JSON.stringify(schema)}`
      let same = compiled.get(key)
      if (same === undefined) compiled.set(key, same = collectionValidator(route))
      return same
    })
    seen[part].set(schema, validate)
    return validate
  }
}

type Validator = ReturnType<FastifySchemaCompiler<FastifySchema>>

/**
 * A validator compiled when it first checks something, not when its route
 * is added: at the declaration limits (20 collections of 48 string fields)
 * compiling every route's schemas at start took most of a minute; a route
 * never asked costs nothing, and the first request of each pays its own.
 * Fastify reads `errors` after a failed check, so they are handed over.
 */
function lazily (compile: () => Validator): Validator {
  let validate: Validator | undefined
  const wrapped: Validator = Object.assign((data: unknown) => {
    validate ??= compile()
    const result = validate(data)
    wrapped.errors = validate.errors
    return result
  }, { errors: null })
  return wrapped
}

/** Checks a parsed value against a schema, with the API's words for what is wrong (the lines of `rqs import`). */
export function bodyChecker (schema: object): (value: unknown) => { ok: true } | { reason: string } {
  // Compiled when first used (a seed file, an import, a default): a start checks nothing.
  const compiled = onFirstUse((): ValidateFunction => bodyAjv().compile(schema))
  return (value) => {
    const validate = compiled()
    if (validate(value)) return { ok: true }
    return { reason: plainReasons(validate.errors ?? []) }
  }
}

export function isUuid (text: string): boolean {
  return UUID.test(text)
}
