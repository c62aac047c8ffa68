import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify'
import { routesConnect } from './connect.js'

const COMMON_METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

/**
 * Registers the methods a path does not serve so that they answer 405 with an
 * `Allow` header (rather than Fastify's 404), and OPTIONS with 204 + Allow.
 * `reject` renders the 405 in the calling service's own error shape.
 */
export function routeOtherMethods (
  app: FastifyInstance,
  url: string,
  allowed: HTTPMethods[],
  reject: (request: FastifyRequest, reply: FastifyReply, allow: string) => unknown
): void {
  const withHead = allowed.includes('GET') && !allowed.includes('HEAD') ? [...allowed, 'HEAD' as const] : allowed
  const allow = [...withHead, 'OPTIONS'].join(', ')
  const others = COMMON_METHODS.filter((m) => !withHead.includes(m))
  if (routesConnect(app)) others.push('CONNECT')
  app.route({
    method: others,
    url,
    handler: (request, reply) => {
      reply.header('allow', allow)
      if (request.method === 'OPTIONS') return reply.code(204).send()
      return reject(request, reply, allow)
    }
  })
}
