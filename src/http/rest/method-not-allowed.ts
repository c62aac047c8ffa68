import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify'
import type { Access } from '../routes/index.js'

/**
 * The methods a route can be asked for; what a path does not serve among them answers 405.
 * CONNECT is routed like any method (./connect.ts), so a service path answers it 405 too.
 */
export const HTTP_METHODS: readonly HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT']

/** HTTP_METHODS that `app` can route: CONNECT only once src/http/connect.ts has added it. */
export function routableMethods (app: FastifyInstance): HTTPMethods[] {
  return HTTP_METHODS.filter((m) => app.supportedMethods.includes(m))
}

/**
 * Who may be told that a method is not allowed: one access for every method,
 * or `by-method` for records (GET and HEAD need `read`, the rest `write`, as
 * they would on the records' own routes), or nothing to take the scope's.
 */
export type OtherMethodsAccess = Access | 'by-method'

const READ_METHODS: readonly HTTPMethods[] = ['GET', 'HEAD']

/**
 * Registers the methods a path does not serve so that they answer 405 with an
 * `Allow` header (rather than Fastify's 404), and OPTIONS with 204 + Allow.
 * `reject` renders the 405 in the calling service's own error shape.
 */
export function routeOtherMethods (
  app: FastifyInstance,
  url: string,
  allowed: HTTPMethods[],
  reject: (request: FastifyRequest, reply: FastifyReply, allow: string) => unknown,
  access?: OtherMethodsAccess
): void {
  const withHead = allowed.includes('GET') && !allowed.includes('HEAD') ? [...allowed, 'HEAD' as const] : allowed
  const allow = [...withHead, 'OPTIONS'].join(', ')
  const others = routableMethods(app).filter((m) => !withHead.includes(m))
  const handler = (request: FastifyRequest, reply: FastifyReply): unknown => {
    reply.header('allow', allow)
    if (request.method === 'OPTIONS') return reply.code(204).send()
    return reject(request, reply, allow)
  }
  const route = (method: HTTPMethods[], rqs: Access | undefined): void => {
    if (method.length > 0) app.route({ method, url, handler, ...(rqs === undefined ? {} : { config: { rqs: { access: rqs } } }) })
  }
  if (access !== 'by-method') route(others, access)
  else {
    route(others.filter((m) => READ_METHODS.includes(m)), 'read')
    route(others.filter((m) => !READ_METHODS.includes(m)), 'write')
  }
}
