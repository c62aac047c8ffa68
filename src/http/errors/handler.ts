import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { errorPage } from '../html/index.js'
import { MediaTypeChooser } from '../../lib/negotiate.js'
import { appendVary } from '../../lib/vary.js'
import { classifyError, methodNotAllowed, pathOnly, routeNotFound, type Classified } from './classify.js'
import type { ErrorCode } from './catalogue.js'
import { catalogueOf } from './error-catalogue.js'
import { negotiateLanguage } from './language.js'
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
    handleError: (error, request, reply) => {
      const classified = logged(classifyError(error, request), request)
      // Started but not finished: cut. Finished (a late error after a whole answer, e.g. the rest of a refused body): as before.
      return underway(reply) ? cut(reply) : render(classified, request, reply)
    },
    notFound: (request, reply) => {
      appendVary(reply, 'Accept')
      const error = routeNotFound(request)
      return browsing(request) ? sendPage(error, request, reply) : render(error, request, reply)
    },
    methodNotAllowed: (request, reply, allow) => render(methodNotAllowed(request, allow), request, reply)
  }
}

/**
 * An answer is underway when its headers are out, or when its body was
 * handed over already encoded: the compression hook set Content-Encoding on
 * the response with the stream, whose first bytes (and so the headers) may
 * not have come yet. An error answer written then would go out under that
 * Content-Encoding as plain text ("incorrect header check"), while the
 * stream might still write into it.
 */
function underway (reply: FastifyReply): boolean {
  const raw = reply.raw
  return !raw.writableEnded && (raw.headersSent || raw.hasHeader('content-encoding'))
}

/**
 * An answer whose headers are out (a stream, a compressed body) that an error
 * or a timeout stops: no error body can follow (it would land inside the
 * promised Content-Encoding or Content-Length), so the connection is closed
 * and the client sees a cut answer, never a corrupt one (issue 36, item 6).
 */
function cut (reply: FastifyReply): FastifyReply {
  reply.hijack()
  reply.raw.destroy()
  return reply
}

/** JSON first: a wildcard or a missing Accept keep the service's own shape; only a browser's Accept prefers the page. */
const pages = new MediaTypeChooser(['application/json', 'text/html'])

function browsing (request: FastifyRequest): boolean {
  return pages.prefers(request.headers.accept, 'text/html')
}

/**
 * A 404 opened in a browser: a page in the site's look with the ways home,
 * not the JSON a program gets (every other client keeps its service's shape).
 */
function sendPage (error: Classified, request: FastifyRequest, reply: FastifyReply): unknown {
  const lang = negotiateLanguage(request.headers['accept-language'])
  const { title, message } = catalogueOf(request.server).texts(lang, error.code)
  appendVary(reply, 'Accept-Language')
  return reply.code(error.status).header('content-language', lang).type('text/html; charset=utf-8')
    .send(errorPage({ status: error.status, title, message, code: error.code, path: pathOnly(request.url), lang }))
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
