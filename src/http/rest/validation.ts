import { Ajv, type Options } from 'ajv'
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify'
import fp from 'fastify-plugin'
import { compiledOnFirstUse, onFirstUse } from '../../lib/first-use.js'
import { installDepthLimitedJson } from './json-depth.js'
import { vendorJsonPattern } from './versioning.js'

/**
 * Two validators: bodies are checked strictly (no type coercion: `"42"` is
 * not an age), query strings and params are coerced from their text form.
 * Both strip properties a schema does not declare (`additionalProperties:
 * false` + removeAdditional), so unknown fields are never stored, and report
 * every failure at once so a client can fix them in one go.
 */
const COMMON: Options = { removeAdditional: true, useDefaults: true, allErrors: true, strict: false, addUsedSchema: false }
/** How request bodies are validated; `rqs import` checks each line of a file the same way. */
export const BODY_VALIDATION: Options = { ...COMMON, coerceTypes: false }
/** How query strings and path parameters are validated (coerced from their text). */
export const TEXT_VALIDATION: Options = { ...COMMON, coerceTypes: 'array' }

export function installValidators (app: FastifyInstance): void {
  // Made with the first validator compiled (a route's first request), not at start, as the validators are.
  const bodyAjv = onFirstUse(() => withFormats(new Ajv(BODY_VALIDATION)))
  const textAjv = onFirstUse(() => withFormats(new Ajv(TEXT_VALIDATION)))
  // Compiled on a route's first request, not at start: most routes of a start are never asked (and each
  // collection adds dozens), and compiling them all was the largest part of the start.
  app.setValidatorCompiler(({ schema, httpPart, url }) => {
    // No validator at all: Fastify then skips validation for the route (a GET by id has no other schema).
    if (httpPart === 'params' && paramsAlwaysValid(schema, url)) return undefined as unknown as Validate
    if (httpPart !== 'body') return compiledOnFirstUse<FastifySchemaValidationError[]>(() => textAjv().compile(schema))
    return withExactIntegers(() => bodyAjv().compile(schema))
  })
}

function withFormats (ajv: Ajv): Ajv {
  // OpenAPI's 64-bit integer (address ids): any integer; the routes check the range exactly.
  ajv.addFormat('int64', { type: 'number', validate: Number.isInteger })
  return ajv
}

/** Keywords that describe a value without constraining it (and `x-` extensions: the API description's). */
const DESCRIPTIVE = new Set(['description', 'title', 'examples', 'example', 'deprecated'])
const describes = (key: string): boolean => DESCRIPTIVE.has(key) || key.startsWith('x-')

/**
 * True when validating a route's path parameters could neither fail nor
 * change them, so the check is left out: the router hands every parameter
 * over as a string, and the schema declares only strings without a
 * constraint (the route's own parsing checks them: an id's digits), none
 * required that the path does not have. A GET by id then costs no ajv call.
 */
export function paramsAlwaysValid (schema: unknown, url: string | undefined): boolean {
  if (typeof schema !== 'object' || schema === null || url === undefined) return false
  const { type, properties, required, ...rest } = schema as Record<string, unknown>
  if (type !== 'object' || !Object.keys(rest).every(describes)) return false
  if (typeof properties !== 'object' || properties === null) return false
  for (const property of Object.values(properties)) {
    if (typeof property !== 'object' || property === null) return false
    const { type: propertyType, ...words } = property as Record<string, unknown>
    if (propertyType !== 'string' || !Object.keys(words).every(describes)) return false
  }
  const segments = new Set(url.split('/'))
  return required === undefined || (Array.isArray(required) && required.every((name) => typeof name === 'string' && Object.hasOwn(properties, name) && segments.has(`:${name}`)))
}

type Validate = ((data: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null }

/**
 * Integers beyond 2^53 in a body arrive as bigint (src/http/json-body.ts),
 * which ajv cannot type-check: they are validated as the nearest double (an
 * integer of the same sign) and put back, so a 64-bit id is an `integer`
 * like any other. Bodies without a bigint pay one look at their members.
 * The validator is compiled on first use (as compiledOnFirstUse does), in
 * this one function: a create's body passes one wrapper, not three.
 */
function withExactIntegers (compile: () => Validate): Validate {
  let validate: Validate | undefined
  const check: Validate = (data) => {
    validate ??= compile()
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return run(validate, data)
    const record = data as Record<string, unknown>
    let exact: Array<[string, bigint]> | undefined
    // for…in, not Object.keys: no array made for every body checked.
    for (const key in record) {
      if (!Object.hasOwn(record, key)) continue
      const value = record[key]
      if (typeof value === 'bigint') (exact ??= []).push([key, value])
    }
    if (exact === undefined) return run(validate, data)
    for (const [key, value] of exact) record[key] = Number(value)
    try {
      return run(validate, data)
    } finally {
      for (const [key, value] of exact) record[key] = value
    }
  }
  const run = (validate: Validate, data: unknown): boolean => {
    const valid = validate(data)
    check.errors = validate.errors ?? null
    return valid
  }
  check.errors = null
  return check
}

/**
 * Request validation for the whole server, and bodies sent as a versioned
 * type (`application/vnd.rqs.v2+json`) parsed as the JSON they are; both
 * refuse bodies nested deeper than the parsers can walk (issue 10).
 */
export const validationPlugin = fp(async function rqsValidation (app: FastifyInstance, opts: { vendor: string }) {
  installValidators(app)
  installDepthLimitedJson(app, vendorJsonPattern(opts.vendor))
}, { name: 'rqs-validation', fastify: '5.x' })
