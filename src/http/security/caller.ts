import type { FastifyRequest } from 'fastify'
import { ANONYMOUS_CALLER, type Caller } from '../../domain/index.js'
import { principalOf } from './auth.js'
import type { Principal } from './tokens.js'

/** The caller record rules see for a principal: its subject, roles, and whether it holds the admin scope. */
export function callerOfPrincipal (principal: Principal | undefined): Caller {
  if (principal === undefined) return ANONYMOUS_CALLER
  return { sub: principal.sub ?? principal.name, roles: principal.roles ?? [], admin: principal.scopes.has('admin') }
}

/**
 * Who sent a request, as record rules see it (docs/rules.md). A request
 * without a valid token (public reads, or a server without authentication)
 * is anonymous: no subject, no roles.
 */
export function callerOf (request: FastifyRequest): Caller {
  return callerOfPrincipal(principalOf(request))
}
