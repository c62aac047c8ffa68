import type { FastifyReply, FastifyRequest } from 'fastify'
import { appendVary } from '../../lib/vary.js'
import type { Failure } from './app-error.js'
import type { ErrorCode } from './catalogue.js'
import { pathOnly, type Classified } from './classify.js'
import { negotiateLanguage, type Language } from './language.js'
import { catalogueOf } from './error-catalogue.js'
import { errorsBase } from './links.js'

/**
 * RFC 9457 problem details, carrying the spec's detailed error objects as the
 * `errors` extension and the request id as `traceId`. Everything here runs
 * only when an error is rendered: successful requests never touch it.
 */

export const PROBLEM_CONTENT_TYPE = 'application/problem+json'

/** The spec's detailed error object. */
export interface ErrorEntry {
  /** Stable application code from the catalogue. */
  error: ErrorCode
  /** Short, user-facing, translated. */
  message: string
  /** For client developers; never translated. */
  detail: string
  /** The code's entry in the served error catalogue. */
  help: string
}

export interface Problem {
  type: string
  title: string
  status: number
  detail: string
  instance: string
  traceId: string
  errors: ErrorEntry[]
}

export interface ProblemOptions {
  /** For developers, not translated. Also the single entry's detail when `errors` is not given. */
  detail: string
  /** The entries of `errors`; default one entry with the problem's own code and detail. */
  errors?: Failure[]
  /** Extra response headers (Allow, Retry-After, ...). */
  headers?: Record<string, string>
  /** Overrides the catalogue status (only CLIENT_ERROR needs this). */
  status?: number
}

/** Builds the problem object for a request in a given language. */
export function buildProblem (request: FastifyRequest, code: ErrorCode, options: ProblemOptions, language: Language): Problem {
  const catalogue = catalogueOf(request.server)
  const base = errorsBase(request.server)
  const failures = options.errors ?? [{ code, detail: options.detail }]
  return {
    type: base + code,
    title: catalogue.texts(language, code).title,
    status: options.status ?? catalogue.status(code),
    detail: options.detail,
    instance: pathOnly(request.url),
    traceId: request.id,
    errors: failures.map((f) => ({
      error: f.code,
      message: fill(catalogue.texts(language, f.code).message, f.field),
      detail: f.detail,
      help: base + f.code
    }))
  }
}

/**
 * Answers the request with a problem for a catalogue code, translated by
 * Accept-Language. Returns the reply, so a route can `return sendProblem(...)`.
 */
export function sendProblem (reply: FastifyReply, code: ErrorCode, options: ProblemOptions): FastifyReply {
  const request = reply.request
  const language = negotiateLanguage(request.headers['accept-language'])
  const problem = buildProblem(request, code, options, language)
  if (options.headers !== undefined) reply.headers(options.headers)
  appendVary(reply, 'Accept-Language')
  return reply
    .code(problem.status)
    .header('content-type', PROBLEM_CONTENT_TYPE)
    .header('content-language', language)
    .send(JSON.stringify(problem))
}

/** The problem renderer of the error pipeline: a classified error as an RFC 9457 problem. */
export function renderProblem (error: Classified, _request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendProblem(reply, error.code, error)
}


function fill (message: string, field: string | undefined): string {
  return field === undefined ? message : message.replace('{field}', field)
}
