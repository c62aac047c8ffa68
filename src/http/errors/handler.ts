import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { classifyError, methodNotAllowed, routeNotFound, type Classified } from './classify.js'
import type { ErrorCode } from './catalogue.js'
import { renderProblem } from './problem.js'

/** Renders a classified error in one service's shape (v1 envelope, problem details, GraphQL errors). */
export type ErrorRenderer = (error: Classified, request: FastifyRequest, reply: FastifyReply) => unknown

export type ErrorHandler = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => unknown

/**
 * The error pipeline for a renderer, as Fastify's three hooks want it: an
 * error handler (classify, log, render), a not-found handler and the 405
 * answer for routeOtherMethods. A service writes only the renderer.
 */
export interface ErrorPipeline {
  render: ErrorRenderer
  handleError: ErrorHandler
  notFound: (request: FastifyRequest, reply: FastifyReply) => unknown
  methodNotAllowed: (request: FastifyRequest, reply: FastifyReply, allow: string) => unknown
}

export function errorPipeline (render: ErrorRenderer): ErrorPipeline {
  return {
    render,
    handleError: (error, request, reply) => render(logged(classifyError(error, request), request), request, reply),
    notFound: (request, reply) => render(routeNotFound(request), request, reply),
    methodNotAllowed: (request, reply, allow) => render(methodNotAllowed(request, allow), request, reply)
  }
}

/** Problem details for everything: the default outside the services, and the REST services' own shape from v2 on. */
export const problems = errorPipeline(renderProblem)

const WARNINGS: Partial<Record<ErrorCode, string>> = {
  STORE_UNAVAILABLE: 'store unavailable',
  WRITE_OUTCOME_UNKNOWN: 'write outcome unknown',
  PROCESSING_TIMEOUT: 'request not answered in time'
}

/** Faults the server did not expect are logged with the request id; an outage is a warning. */
function logged (error: Classified, request: FastifyRequest): Classified {
  if (error.unexpected === true) request.log.error({ err: error.cause }, 'unexpected error')
  // Refusals by design (overload, rate limits) are counted in the metrics, not logged one by one.
  else if (WARNINGS[error.code] !== undefined) request.log.warn({ err: error.cause, url: request.url, method: request.method }, WARNINGS[error.code])
  return error
}
