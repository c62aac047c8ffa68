import type { FastifyRequest } from 'fastify'
import { principalOf } from '../security/auth.js'
import type { StreamOwner } from './registry.js'

/** Whose budget a stream counts against: the principal of its token, else the client's address (`--trust-proxy` decides which). */
export function streamOwner (request: FastifyRequest): StreamOwner {
  const principal = principalOf(request)
  return principal === undefined ? { client: `address ${request.ip}` } : { client: `${principal.kind} ${principal.name}`, principal }
}

/**
 * Seconds to wait after a refused stream: a client at its own limit has to
 * let one of its streams end first; a full server frees slots as streams
 * end (a feed stream at the latest at its maximum age).
 */
export const RETRY_AFTER = { 'client-full': '30', 'server-full': '10' } as const
