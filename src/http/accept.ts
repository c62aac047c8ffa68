import Negotiator from 'negotiator'
import type { FastifyRequest } from 'fastify'

const JSON_TYPES = ['application/json']

/**
 * True when the client accepts `application/json`. The common headers (none,
 * `* / *`, `application/json`) are answered without parsing; anything else
 * goes through negotiator so q-values and wildcards count.
 */
export function acceptsJson (request: FastifyRequest): boolean {
  const accept = request.headers.accept
  if (accept === undefined || accept === '*/*' || accept === 'application/json') return true
  return new Negotiator({ headers: { accept } }).mediaType(JSON_TYPES) !== undefined
}
