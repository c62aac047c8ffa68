import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { RecordStores } from '../../domain/index.js'
import { answer, SERVER_TAG } from '../openapi/index.js'
import type { RouteDeclaration } from '../routes/index.js'
const StatusSchema = { title: 'Health', type: 'object', properties: { status: { type: 'string', enum: ['ok', 'ready', 'unavailable'] } }, required: ['status'], additionalProperties: false } as const
const tags = [SERVER_TAG]
/** Asked by load balancers: no token, no rate limit. */
const probe: RouteDeclaration = { service: 'health', access: 'public', probe: true }
export const LIVENESS_PATH = '/healthz'
/**
 * The liveness answer, already JSON: a probe polled from the first moment
 * needs no serialiser compiled (the first compiled answer loads
 * fast-json-stringify and its ajv, most of what a start would otherwise pay
 * to say it is up). The schema above still documents it.
 */
const LIVE = '{"status":"ok"}'
const JSON_TYPE = 'application/json; charset=utf-8'
export const READINESS_PATH = '/readyz'

/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the
 * store answers too), so a load balancer stops sending traffic while the
 * database is unreachable and resumes by itself.
 */
export const healthPlugin = fp(async function rqsHealth (app: FastifyInstance, opts: { stores: RecordStores }) {
  const { stores } = opts
  app.get(LIVENESS_PATH, {
    config: { rqs: probe },
    compress: false, // tiny answers, polled often
    schema: { operationId: 'getLiveness', tags, summary: 'Liveness: 200 while the process runs', response: { 200: answer(StatusSchema, '`{"status":"ok"}`') } }
  }, async (_request, reply) => reply.type(JSON_TYPE).send(LIVE))
  app.get(READINESS_PATH, {
    config: { rqs: probe },
    compress: false,
    schema: {
      operationId: 'getReadiness',
      tags,
      summary: 'Readiness: 200 while the data store answers too (point load balancers here)',
      'x-rqs': { headers: { 503: ['Retry-After'] } },
      response: { 200: answer(StatusSchema, '`{"status":"ready"}`'), 503: answer(StatusSchema, '`{"status":"unavailable"}`: the data store does not answer.') }
    }
  }, async (request, reply) => {
    try {
      await stores.ping()
      return { status: 'ready' }
    } catch (err) {
      request.log.warn({ err }, 'not ready: store unavailable')
      return reply.code(503).header('retry-after', '5').send({ status: 'unavailable' })
    }
  })
}, { name: 'rqs-health', fastify: '5.x' })
