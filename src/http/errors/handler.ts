import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { StoreUnavailableError } from '../../stores/errors.js'
import { AppError, sendAppError, sendProblem } from '../problem.js'
import { validationFailures } from './validation.js'
import { asTimeoutError } from '../timeouts.js'

export interface ProblemErrorHandlerOptions {
  /** Seconds a client should wait after a 503 (the Retry-After header). Default 5. */
  retryAfterSeconds?: number
  /**
   * Service-specific mapping, tried first: return an AppError to render, or
   * undefined to fall through to the common rules.
   */
  map?: (error: FastifyError, request: FastifyRequest) => AppError | undefined
}

type ErrorHandler = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => FastifyReply

/**
 * A Fastify error handler (for `setErrorHandler`) that answers every error as
 * a problem: AppError as thrown; schema validation as VALIDATION_FAILED with
 * one entry per failure; Fastify's body errors as 400/413/415; a store outage
 * as 503 with Retry-After; other 4xx keep their status; anything else is a
 * 500 without internals (logged with the trace id).
 */
export function problemErrorHandler (options: ProblemErrorHandlerOptions = {}): ErrorHandler {
  const retryAfter = String(options.retryAfterSeconds ?? 5)
  return function handleError (error, request, reply) {
    const mapped = options.map?.(error, request)
    if (mapped !== undefined) return sendAppError(reply, mapped)
    if (error instanceof AppError) return sendAppError(reply, error)
    const timeout = asTimeoutError(error, request)
    if (timeout !== undefined) return sendAppError(reply, timeout)
    if (error.validation !== undefined) {
      const errors = validationFailures(error.validation, error.validationContext)
      if (errors.length === 1 && errors[0]?.code === 'JSON_EXPECTED') return sendProblem(reply, 'JSON_EXPECTED', { detail: errors[0].detail })
      return sendProblem(reply, 'VALIDATION_FAILED', { detail: errors.map((e) => e.detail).join('; '), errors })
    }
    if (error instanceof StoreUnavailableError) {
      request.log.warn({ err: error }, 'store unavailable')
      return sendProblem(reply, 'STORE_UNAVAILABLE', { detail: 'The data store did not answer; nothing was changed', headers: { 'retry-after': retryAfter } })
    }
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendProblem(reply, 'UNSUPPORTED_MEDIA_TYPE', { detail: `Content-Type ${describe(request.headers['content-type'])} is not accepted here; send application/json` })
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendProblem(reply, 'JSON_EXPECTED', { detail: 'The request body is empty' })
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return sendProblem(reply, 'MALFORMED_JSON', { detail: 'The request body is not valid JSON or has a forbidden __proto__ / constructor.prototype member' })
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendProblem(reply, 'BODY_TOO_LARGE', { detail: `The request body is larger than the limit of ${request.routeOptions.bodyLimit ?? 0} bytes` })
    }
    const status = error.statusCode ?? 500
    if (error instanceof SyntaxError && status < 500) {
      return sendProblem(reply, 'MALFORMED_JSON', { detail: error.message })
    }
    if (status === 404 || status === 403) return problemNotFound(request, reply)
    if (status === 405) return sendProblem(reply, 'METHOD_NOT_ALLOWED', { detail: `Method ${request.method} is not allowed here` })
    if (status === 406) return sendProblem(reply, 'NOT_ACCEPTABLE', { detail: error.message })
    if (status === 413) return sendProblem(reply, 'BODY_TOO_LARGE', { detail: error.message })
    if (status === 415) return sendProblem(reply, 'UNSUPPORTED_MEDIA_TYPE', { detail: error.message })
    if (status >= 400 && status < 500) return sendProblem(reply, 'CLIENT_ERROR', { detail: error.message, status })
    request.log.error({ err: error }, 'unexpected error')
    return sendProblem(reply, 'INTERNAL', { detail: `The server could not complete the request; quote trace id ${request.id} when reporting it` })
  }
}

/** A not-found handler (for `setNotFoundHandler`): 404 ROUTE_NOT_FOUND. */
export function problemNotFound (request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendProblem(reply, 'ROUTE_NOT_FOUND', { detail: `No resource at ${request.method} ${pathOnly(request.url)}` })
}

/** The `reject` callback for routeOtherMethods (src/http/method-not-allowed.ts): 405 with Allow set. */
export function methodNotAllowedProblem (request: FastifyRequest, reply: FastifyReply, allow: string): FastifyReply {
  return sendProblem(reply, 'METHOD_NOT_ALLOWED', { detail: `Method ${request.method} is not allowed here; allowed: ${allow}`, headers: { allow } })
}

function describe (value: string | undefined): string {
  return value === undefined ? '(none)' : `"${value.slice(0, 100)}"`
}

function pathOnly (url: string): string {
  const q = url.indexOf('?')
  return q === -1 ? url : url.slice(0, q)
}
