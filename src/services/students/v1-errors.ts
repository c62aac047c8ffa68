import type { FastifyReply, FastifyRequest } from 'fastify'
import { type Failure, type ErrorCatalogue, type ErrorCode, type Classified, errorPipeline } from '../../http/errors/index.js'
import type { ErrorShapeDoc } from '../../http/openapi/index.js'
import { fail, messages } from './envelope.js'
import { ErrorEnvelope, NAME_MAX_LENGTH } from './schema.js'
import { STORABLE_TEXT_RULE } from '../../lib/storable-text.js'
import { describeParameter } from '../../http/rest/index.js'
import { STUDENT_QUERY } from './query.js'

const FIELD_TEXT: Record<string, string> = {
  firstName: 'a non-empty string',
  lastName: 'a non-empty string',
  age: 'an integer from 0 to 2147483647',
  id: 'a non-negative integer'
}

/** "firstName is required; age must be an integer from 0 to 2147483647", in field order. */
export function describeFailures (failures: readonly Failure[]): string {
  const parts = new Map<string, string>()
  for (const failure of failures) {
    const field = (failure.field ?? '').split('.')[0] ?? ''
    if (failure.code === 'FIELD_REQUIRED') parts.set(field, `${field} is required`)
    else if (!parts.has(field)) parts.set(field, `${field} ${fieldRule(failure) ?? `must be ${Object.hasOwn(FIELD_TEXT, field) ? FIELD_TEXT[field] as string : 'valid'}`}`)
  }
  return [...parts.values()].join('; ')
}

/**
 * The words for a failure whose cause is more specific than the field's
 * general rule (issue 10, defect 6): a name over the limit is "too long", with
 * the limit, not "must be a non-empty string". Undefined keeps the general rule.
 */
function fieldRule (failure: Failure): string | undefined {
  if (failure.code === 'FIELD_TOO_LONG') return `is too long: at most ${NAME_MAX_LENGTH} characters` // only the names have a length limit
  if (failure.code === 'FIELD_INVALID_TEXT') return STORABLE_TEXT_RULE
  return undefined
}

/** "limit must be an integer from 1 to 500; age[gte] must be …", one clause per query parameter. */
export function describeQueryFailures (failures: readonly Failure[]): string {
  const params = [...new Set(failures.map((f) => f.field ?? ''))]
  return params.map((p) => `${p} must be ${describeParameter(STUDENT_QUERY, p)}`).join('; ')
}

/**
 * Version 1 words every error in the spec's envelope. A body that is absent,
 * unreadable or not JSON is the spec's 400 "JSON data is expected" whatever
 * the finer cause; only the unexpected is a 500, and then without internals.
 */
export function renderEnvelope (error: Classified, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error.headers !== undefined) reply.headers(error.headers)
  const [status, text] = envelopeText(error, { method: request.method, url: request.url, bodyLimit: request.routeOptions.bodyLimit ?? 0 })
  return reply.code(status).send(fail(text))
}

interface RequestFacts {
  method: string
  url: string
  bodyLimit: number
}

function envelopeText (error: Classified, request: RequestFacts): [number, string] {
  switch (error.code) {
    case 'VALIDATION_FAILED':
      if (error.subject === 'query' && error.errors !== undefined) return [400, messages.invalidQuery(describeQueryFailures(error.errors))]
      return [400, error.subject === 'body' && error.errors !== undefined ? `Invalid student data: ${describeFailures(error.errors)}` : messages.jsonExpected]
    case 'INVALID_QUERY':
      return [400, messages.invalidQuery(error.detail)]
    case 'INVALID_CURSOR':
      return [400, messages.invalidCursor]
    case 'STUDENT_NOT_FOUND':
      return [404, messages.notFound(error.args?.id ?? '')]
    case 'INVALID_ID':
      return [400, messages.badId]
    case 'STORE_UNAVAILABLE':
      return [503, messages.unavailable]
    case 'WRITE_OUTCOME_UNKNOWN':
      return [503, messages.outcomeUnknown]
    case 'OVERLOADED':
    case 'AUTH_UNAVAILABLE':
      return [503, error.detail]
    case 'BODY_TOO_LARGE':
      return [413, messages.tooLarge(request.bodyLimit)]
    // Issue 10: said as the detail says it (the body's nesting, a time limit and what it means for a write).
    case 'NESTING_TOO_DEEP':
      return [400, error.detail]
    case 'REQUEST_TIMEOUT':
      return [408, error.detail]
    case 'PROCESSING_TIMEOUT':
      return [503, error.detail]
    case 'ROUTE_NOT_FOUND':
      return [404, messages.noRoute(request.method, request.url)]
    case 'METHOD_NOT_ALLOWED':
      return [405, messages.methodNotAllowed(request.method, String(error.args?.allow ?? ''))]
  }
  if (error.status < 500) return error.subject === 'body' ? [400, messages.jsonExpected] : [error.status, error.detail]
  return [500, request.method === 'POST' ? messages.couldNotCreate : messages.couldNotProcess]
}

export const envelopeErrors = errorPipeline(renderEnvelope)

/** How a code reads in the envelope, for the API description's examples: the renderer's own output. */
function envelopeExample (code: ErrorCode, catalogue: ErrorCatalogue, path = '/students/7'): [number, string] {
  const body = BODY_CODES.has(code)
  const errors: Failure[] | undefined = code === 'VALIDATION_FAILED' ? [{ code: 'FIELD_OUT_OF_RANGE', field: 'age', detail: 'body.age must be <= 2147483647' }] : undefined
  const classified: Classified = { code, status: catalogue.status(code), detail: EXAMPLE_DETAILS[code] ?? '', errors, subject: body ? 'body' : undefined, args: { id: 7, allow: 'GET, DELETE, HEAD, OPTIONS' } }
  return envelopeText(classified, { method: code === 'RECORD_NOT_CREATED' ? 'POST' : 'GET', url: path, bodyLimit: 1048576 })
}

/** The details the envelope quotes (issue 10's codes), as the server words them with the default limits. */
const EXAMPLE_DETAILS: Partial<Record<ErrorCode, string>> = {
  NESTING_TOO_DEEP: 'The request body nests arrays or objects deeper than 64 levels',
  REQUEST_TIMEOUT: 'The request body did not arrive within 30000 ms; the connection is closed',
  PROCESSING_TIMEOUT: 'The request was not finished within 60000 ms; retry later',
  UNSUPPORTED_CONTENT_ENCODING: 'Content-Encoding "gzip" is not supported: send the body uncompressed (supported: identity)'
}

const BODY_CODES = new Set<ErrorCode>(['VALIDATION_FAILED', 'JSON_EXPECTED', 'MALFORMED_JSON', 'FORBIDDEN_PROPERTY', 'UNSUPPORTED_MEDIA_TYPE', 'CLIENT_ERROR', 'BODY_TOO_LARGE', 'NESTING_TOO_DEEP'])

/** The envelope as the API description shows it: the representation's own media types, no codes in the body. */
export const envelopeShape: ErrorShapeDoc = {
  schema: ErrorEnvelope,
  status: (code, catalogue) => envelopeExample(code, catalogue)[0],
  example: (code, path, catalogue) => fail(envelopeExample(code, catalogue, path)[1])
}
