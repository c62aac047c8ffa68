import type { FastifyReply, FastifyRequest } from 'fastify'
import { fail } from '../services/students/envelope.js'
import { JSON_UTF8, responseMediaType } from '../services/albums/negotiation.js'
import { CATALOGUE, type ErrorCode } from './errors/catalogue.js'
import { sendProblem } from './problem.js'
import type { ServiceLayout } from './service-layout.js'

export interface ShapedErrorOptions {
  /** For developers, English; the v1 envelope's body and the GraphQL error's message. */
  detail: string
  /** Extra response headers (WWW-Authenticate, Retry-After, ...). */
  headers?: Record<string, string>
}

/**
 * Answers a request with a catalogue error in the shape its client reads,
 * wherever in the request's life it is raised (a hook before routing
 * decisions included): the student service's v1 envelope
 * `{"isSuccessful":false,"body":"<detail>"}`, a GraphQL `{"errors":[...]}`
 * body with `extensions.code` at the GraphQL endpoint, RFC 9457 problem
 * details everywhere else. The status is the catalogue's.
 */
export function sendShapedError (layout: ServiceLayout, request: FastifyRequest, reply: FastifyReply, code: ErrorCode, options: ShapedErrorOptions): FastifyReply {
  const status = CATALOGUE[code].status
  switch (layout.errorShape(request)) {
    case 'envelope':
      if (options.headers !== undefined) reply.headers(options.headers)
      if (reply.getHeader('content-type') === undefined) reply.type(JSON_UTF8) // a negotiated vendor type stays
      return reply.code(status).header('x-request-id', request.id).send(JSON.stringify(fail(options.detail)))
    case 'graphql':
      if (options.headers !== undefined) reply.headers(options.headers)
      return reply.code(status).header('x-request-id', request.id).type(responseMediaType(request.headers.accept) ?? JSON_UTF8)
        .send(JSON.stringify({ errors: [{ message: options.detail, extensions: { code } }] }))
    case 'problem':
      return sendProblem(reply, code, options)
  }
}
