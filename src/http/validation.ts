import { Ajv, type Options } from 'ajv'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
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
  const bodyAjv = new Ajv(BODY_VALIDATION)
  const textAjv = new Ajv(TEXT_VALIDATION)
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? bodyAjv : textAjv
    return ajv.compile(schema)
  })
}

/**
 * Request validation for the whole server, and bodies sent as a versioned
 * type (`application/vnd.rqs.v2+json`) parsed as the JSON they are.
 */
export const validationPlugin = fp(async function rqsValidation (app: FastifyInstance, opts: { vendor: string }) {
  installValidators(app)
  app.addContentTypeParser(vendorJsonPattern(opts.vendor), { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'))
}, { name: 'rqs-validation', fastify: '5.x' })
