import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Stores } from '../stores/types.js'

const StatusSchema = { type: 'object', properties: { status: { type: 'string' } } } as const

/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the
 * store answers too), so a load balancer stops sending traffic while the
 * database is unreachable and resumes by itself.
 */
export const healthPlugin = fp(async function rqsHealth (app: FastifyInstance, opts: { stores: Stores }) {
  const { stores } = opts
  app.get('/healthz', { schema: { response: { 200: StatusSchema } } }, async () => ({ status: 'ok' }))
  app.get('/readyz', { schema: { response: { 200: StatusSchema, 503: StatusSchema } } }, async (request, reply) => {
    try {
      await stores.ping()
      return { status: 'ready' }
    } catch (err) {
      request.log.warn({ err }, 'not ready: store unavailable')
      return reply.code(503).header('retry-after', '5').send({ status: 'unavailable' })
    }
  })
}, { name: 'rqs-health', fastify: '5.x' })
