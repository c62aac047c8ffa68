import type { FastifyReply, FastifyRequest } from 'fastify'
import { CATALOGUE, type ErrorCode } from './errors/catalogue.js'
import { negotiateLanguage, type Language } from './language.js'
import { MESSAGES } from './messages/index.js'
import { errorsBase } from './public-url.js'

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

/** One thing that went wrong: a catalogue code, a developer detail and, for FIELD_* codes, the field. */
export interface Failure {
  code: ErrorCode
  detail: string
  /** Substituted for `{field}` in the translated message. */
  field?: string
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

/**
 * Throw from a route, hook or parser to answer with a problem; the error
 * handler from ./errors/handler.ts renders it.
 */
export class AppError extends Error {
  override name = 'AppError'
  readonly code: ErrorCode
  readonly statusCode: number
  readonly options: ProblemOptions

  constructor (code: ErrorCode, detail: string, options: Omit<ProblemOptions, 'detail'> = {}) {
    super(detail)
    this.code = code
    this.statusCode = options.status ?? CATALOGUE[code].status
    this.options = { ...options, detail }
  }
}

/** Builds the problem object for a request in a given language. */
export function buildProblem (request: FastifyRequest, code: ErrorCode, options: ProblemOptions, language: Language): Problem {
  const texts = MESSAGES[language]
  const base = errorsBase(request)
  const failures = options.errors ?? [{ code, detail: options.detail }]
  return {
    type: base + code,
    title: texts[code].title,
    status: options.status ?? CATALOGUE[code].status,
    detail: options.detail,
    instance: pathOf(request.url),
    traceId: request.id,
    errors: failures.map((f) => ({
      error: f.code,
      message: fill(texts[f.code].message, f.field),
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
    // Also set here because errors raised before routing (frameworkErrors) skip the onRequest hook.
    .header('x-request-id', request.id)
    .code(problem.status)
    .header('content-type', PROBLEM_CONTENT_TYPE)
    .header('content-language', language)
    .send(JSON.stringify(problem))
}

/** Renders an AppError (thrown anywhere) as its problem. */
export function sendAppError (reply: FastifyReply, error: AppError): FastifyReply {
  return sendProblem(reply, error.code, error.options)
}

function pathOf (url: string): string {
  const q = url.indexOf('?')
  return q === -1 ? url : url.slice(0, q)
}

function fill (message: string, field: string | undefined): string {
  return field === undefined ? message : message.replace('{field}', field)
}

/** Adds a token to Vary without dropping what another part of the app put there. */
export function appendVary (reply: FastifyReply, token: string): void {
  const current = reply.getHeader('vary')
  if (current === undefined || current === '') {
    reply.header('vary', token)
    return
  }
  const text = Array.isArray(current) ? current.join(', ') : String(current)
  const present = text.toLowerCase().split(',').some((t) => t.trim() === token.toLowerCase() || t.trim() === '*')
  if (!present) reply.header('vary', `${text}, ${token}`)
}
