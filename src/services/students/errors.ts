import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { StoreUnavailableError } from '../../stores/errors.js'
import { fail, messages } from './envelope.js'
import { v1FieldRule } from './field-messages.js'
import { asTimeoutError } from '../../http/timeouts.js'

interface AjvIssue {
  keyword: string
  instancePath: string
  params: Record<string, unknown>
}

const FIELD_TEXT: Record<string, string> = {
  firstName: 'a non-empty string',
  lastName: 'a non-empty string',
  age: 'an integer from 0 to 2147483647',
  id: 'a non-negative integer'
}

/** "firstName is required; age must be an integer from 0 to 2147483647", in field order. */
export function describeValidation (issues: readonly AjvIssue[]): string | undefined {
  const parts = new Map<string, string>()
  for (const issue of issues) {
    if (issue.instancePath === '') {
      if (issue.keyword === 'required') {
        const field = String(issue.params.missingProperty)
        parts.set(field, `${field} is required`)
        continue
      }
      return undefined // the body itself is not a JSON object
    }
    const field = issue.instancePath.slice(1).split('/')[0] ?? ''
    if (!parts.has(field)) parts.set(field, `${field} ${v1FieldRule(issue) ?? `must be ${FIELD_TEXT[field] ?? 'valid'}`}`)
  }
  return [...parts.values()].join('; ')
}

const RETRY_AFTER_SECONDS = '5'

/**
 * Renders every error of the student service in its envelope. Input problems
 * are 4xx with a message a client can act on; only the unexpected is a 500,
 * and then without internals.
 */
export function studentErrorHandler (this: unknown, error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (error.validation !== undefined) {
    const text = error.validationContext === 'body' ? describeValidation(error.validation as AjvIssue[]) : undefined
    void reply.code(400).send(fail(text === undefined ? messages.jsonExpected : `Invalid student data: ${text}`))
    return
  }
  const timeout = asTimeoutError(error, request)
  if (timeout !== undefined) {
    void reply.code(timeout.statusCode).headers(timeout.options.headers ?? {}).send(fail(timeout.message))
    return
  }
  if (error instanceof StoreUnavailableError) {
    request.log.warn({ err: error }, 'store unavailable')
    void reply.code(503).header('retry-after', RETRY_AFTER_SECONDS).send(fail(messages.unavailable))
    return
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      void reply.code(400).send(fail(messages.jsonExpected))
      return
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      void reply.code(413).send(fail(messages.tooLarge(request.routeOptions.bodyLimit ?? 0)))
      return
  }
  const status = error.statusCode ?? 500
  if (error instanceof SyntaxError || (status === 400 && error.code === undefined)) {
    void reply.code(400).send(fail(messages.jsonExpected))
    return
  }
  if (status === 403 || status === 404) {
    // @fastify/static refuses paths that would leave the assets folder with 403; we say no more than "not here".
    void reply.code(404).send(fail(messages.noRoute(request.method, request.url)))
    return
  }
  if (status >= 400 && status < 500) {
    void reply.code(status).send(fail(error.message))
    return
  }
  request.log.error({ err: error }, 'unexpected error')
  const text = request.method === 'POST' ? messages.couldNotCreate : messages.couldNotProcess
  void reply.code(500).send(fail(text))
}
