import type { FastifyError, FastifyRequest } from 'fastify'
import { DanglingReferenceError, DuplicateKeyError, RecordReferencedError, SchemaChangedError, StoreOutcomeUnknownError, StoreTimeoutError, StoreUnavailableError, UnstorableTextError } from '../../domain/index.js'
import { QueryRefused } from '../../records/index.js'
import { CATALOGUE, type CoreErrorCode, type ErrorCode } from './catalogue.js'
import { catalogueOf } from './error-catalogue.js'
import { AppError, type Failure } from './app-error.js'
import { HandlerTimeoutError } from './timeout.js'
import { validationFailures } from './validation.js'

/**
 * The one place where an error becomes a catalogue code, a status and a
 * detail. Every service renders this decision in its own shape (the v1
 * envelope, problem details, GraphQL errors); none of them maps errors itself.
 */
export interface Classified {
  code: ErrorCode
  status: number
  /** For client developers; never translated. */
  detail: string
  /** One entry per failure (validation); default one entry with `code` and `detail`. */
  errors?: Failure[]
  /** Response headers the answer needs (Allow, Retry-After). */
  headers?: Record<string, string>
  /** Values a service's own wording fills in (see AppError). */
  args?: Readonly<Record<string, string | number>>
  /** Set when the failure is about the request body (unreadable, not JSON, wrong media type, invalid fields), or the query string's values. */
  subject?: 'body' | 'query'
  /** The error as thrown, for the log and for renderers that quote the framework's message. */
  cause?: Error
  /** True for faults the server did not expect: logged as errors, never shown to the client. */
  unexpected?: boolean
}

/** Seconds a client should wait after a 503 (the Retry-After header). */
export const RETRY_AFTER_SECONDS = '5'

/** After a change of a collection's declaration the server follows within a second: the same request is served then. */
export const SCHEMA_RETRY_AFTER_SECONDS = '1'

export function classifyError (thrown: FastifyError, request: FastifyRequest): Classified {
  // The record layer's refusals carry AppError's arguments (it imports no transport).
  const error = thrown instanceof QueryRefused ? new AppError(thrown.code, thrown.message, thrown.options) as AppError & FastifyError : referenceFailure(thrown) ?? thrown
  if (error instanceof AppError) {
    const { errors, headers, args, status, subject } = error.options
    const catalogue = catalogueOf(request.server)
    // A code this server does not have (its service is not here) is a bug, not the client's doing.
    if (!catalogue.has(error.code) || errors?.some((e) => !catalogue.has(e.code)) === true) return serverFault(error, request)
    return { code: error.code, status: status ?? catalogue.status(error.code), detail: error.message, errors, headers, args, subject, cause: error }
  }
  if (error.validation !== undefined) {
    const context = error.validationContext
    const errors = validationFailures(error.validation, context)
    const subject = context === 'body' ? 'body' as const : context === 'querystring' ? 'query' as const : undefined
    if (errors.length === 1 && errors[0]?.code === 'JSON_EXPECTED') return { code: 'JSON_EXPECTED', status: 400, detail: errors[0].detail, subject, cause: error }
    return { code: 'VALIDATION_FAILED', status: 400, detail: errors.map((e) => e.detail).join('; '), errors, subject, cause: error }
  }
  if (error instanceof StoreTimeoutError) {
    return { code: 'STORE_TIMEOUT', status: 503, detail: `${error.message}; nothing was changed`, headers: { 'retry-after': RETRY_AFTER_SECONDS }, cause: error }
  }
  if (error instanceof SchemaChangedError) {
    return { code: 'SCHEMA_CHANGED', status: 503, detail: `${error.message}; nothing was changed`, headers: { 'retry-after': SCHEMA_RETRY_AFTER_SECONDS }, cause: error }
  }
  if (error instanceof StoreUnavailableError) {
    return { code: 'STORE_UNAVAILABLE', status: 503, detail: 'The data store did not answer; nothing was changed', headers: { 'retry-after': RETRY_AFTER_SECONDS }, cause: error }
  }
  if (error instanceof DuplicateKeyError) return duplicateKey(error)
  if (error instanceof UnstorableTextError) {
    return { code: 'FIELD_INVALID_TEXT', status: 400, detail: error.message, cause: error }
  }
  if (error instanceof StoreOutcomeUnknownError) {
    return {
      code: 'WRITE_OUTCOME_UNKNOWN',
      status: 503,
      detail: 'The data store did not confirm the write: it may or may not have been stored. Retry with the same Idempotency-Key to apply it exactly once',
      headers: { 'retry-after': RETRY_AFTER_SECONDS },
      cause: error
    }
  }
  if (error instanceof HandlerTimeoutError) return handlerTimeout(error, request)
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return body('UNSUPPORTED_MEDIA_TYPE', `Content-Type ${describe(request.headers['content-type'])} is not accepted here; send application/json`, error)
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return body('JSON_EXPECTED', 'The request body is empty', error)
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return body('MALFORMED_JSON', 'The request body is not valid JSON or has a forbidden __proto__ / constructor.prototype member', error)
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return body('BODY_TOO_LARGE', `The request body is larger than the limit of ${request.routeOptions.bodyLimit ?? 0} bytes`, error)
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { ...body('CLIENT_ERROR', error.message, error), status: 400 }
  }
  const status = error.statusCode ?? 500
  if (status < 500 && error instanceof SyntaxError) return body('MALFORMED_JSON', error.message, error)
  // @fastify/static refuses a path that would leave its folder with 403: we say no more than "not here".
  if (status === 404 || status === 403) return { ...routeNotFound(request), cause: error }
  if (status === 405) return { code: 'METHOD_NOT_ALLOWED', status, detail: `Method ${request.method} is not allowed here`, cause: error }
  if (status === 406) return { code: 'NOT_ACCEPTABLE', status, detail: error.message, cause: error }
  if (status === 413) return { code: 'BODY_TOO_LARGE', status, detail: error.message, cause: error }
  if (status === 415) return { code: 'UNSUPPORTED_MEDIA_TYPE', status, detail: error.message, cause: error }
  if (status >= 400 && status < 500) {
    // A 400 without a code comes from a body parser.
    return { code: 'CLIENT_ERROR', status, detail: error.message, subject: status === 400 && error.code === undefined ? 'body' : undefined, cause: error }
  }
  return serverFault(error, request)
}

/** A fault the server did not expect: logged, and answered without internals. */
function serverFault (error: Error, request: FastifyRequest): Classified {
  if (request.method === 'POST') {
    // Spec: a create that could not be stored is a 500 saying so.
    return { code: 'RECORD_NOT_CREATED', status: 500, detail: 'The record could not be stored; nothing was created', cause: error, unexpected: true }
  }
  return { code: 'INTERNAL', status: 500, detail: `The server could not complete the request; quote trace id ${request.id} when reporting it`, cause: error, unexpected: true }
}

/**
 * A request without an answer in time: 408 when its body had not even
 * arrived, else 503 PROCESSING_TIMEOUT, which does not claim that nothing
 * changed (a write may still complete; WRITE_OUTCOME_UNKNOWN is the store's
 * own word for that, PROCESSING_TIMEOUT the server's time limit).
 */
function handlerTimeout (error: HandlerTimeoutError, request: FastifyRequest): Classified {
  const ms = error.ms
  if (!request.raw.complete) {
    return { code: 'REQUEST_TIMEOUT', status: 408, detail: `The request body did not arrive within ${ms} ms; the connection is closed`, headers: { connection: 'close' }, cause: error }
  }
  const read = request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS'
  const detail = read
    ? `The request was not finished within ${ms} ms; retry later`
    : `The request was not finished within ${ms} ms; the change may or may not have been applied: retry with the same Idempotency-Key, or read the record before retrying`
  return { code: 'PROCESSING_TIMEOUT', status: 503, detail, headers: { 'retry-after': RETRY_AFTER_SECONDS }, cause: error }
}

/** No route matches the path. */
export function routeNotFound (request: FastifyRequest): Classified {
  return { code: 'ROUTE_NOT_FOUND', status: 404, detail: `No resource at ${request.method} ${pathOnly(request.url)}` }
}

/** The path exists but not for this method; `allow` lists the methods it serves. */
export function methodNotAllowed (request: FastifyRequest, allow: string): Classified {
  return { code: 'METHOD_NOT_ALLOWED', status: 405, detail: `Method ${request.method} is not allowed here; allowed: ${allow}`, headers: { allow }, args: { allow } }
}

/** Accept names no media type the resource has. */
export function notAcceptable (available: readonly string[]): Classified {
  return { code: 'NOT_ACCEPTABLE', status: 406, detail: `This resource is available as: ${available.join(', ')}` }
}

function body (code: CoreErrorCode, detail: string, cause: Error): Classified {
  return { code, status: CATALOGUE[code].status, detail, subject: 'body', cause }
}

function describe (value: string | undefined): string {
  return value === undefined ? '(none)' : `"${value.slice(0, 100)}"`
}

export function pathOnly (url: string): string {
  const q = url.indexOf('?')
  return q === -1 ? url : url.slice(0, q)
}

/** A declared collection's unique key, already held by another record (issue 29): 409 naming the key and the record. */
function duplicateKey (error: DuplicateKeyError): Classified {
  const fields = error.fields.join(', ')
  const holder = error.holder === undefined ? 'another record' : `/${error.collection}/${String(error.holder)}`
  const detail = `${holder} already holds this ${fields} (a unique key of ${error.collection}); nothing was written`
  return { code: 'DUPLICATE_KEY', status: 409, detail, errors: [{ code: 'DUPLICATE_KEY', field: fields, detail }], subject: 'body', cause: error }
}

/** The stores' refusals of a write through references (src/domain/references.ts), as the collections' catalogue codes. */
function referenceFailure (error: Error): (AppError & FastifyError) | undefined {
  if (error instanceof DanglingReferenceError) {
    const detail = `body.${error.field} names ${error.target}/${String(error.id)}, which does not exist`
    return new AppError('REFERENCE_NOT_FOUND', detail, { errors: [{ code: 'REFERENCE_NOT_FOUND', field: error.field, detail }] }) as AppError & FastifyError
  }
  if (error instanceof RecordReferencedError) {
    const record = `${error.collection}/${String(error.id)}`
    return new AppError('RECORD_REFERENCED', error.message, { errors: [{ code: 'RECORD_REFERENCED', field: record, detail: error.message }] }) as AppError & FastifyError
  }
  return undefined
}
