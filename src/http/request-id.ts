import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'

const MAX_LENGTH = 128

/** True when an incoming X-Request-Id is safe to adopt: 1–128 of [A-Za-z0-9._:-]. */
function acceptable (value: string): boolean {
  if (value.length === 0 || value.length > MAX_LENGTH) return false
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    const ok = (c >= 48 && c <= 58) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 46 || c === 95
    if (!ok) return false
  }
  return true
}

/**
 * Fresh request ids: a random version-4 UUID drawn once per process, whose
 * last 48 bits count up from a random start. Each id is still a well-formed
 * UUID, unique within the process and (with 74 random bits besides the
 * counter) across processes, at a fraction of the cost of a randomUUID() per
 * request (issue 12). Request ids correlate log lines; they are not secrets.
 */
const PROCESS_PREFIX = randomUUID().slice(0, 24)
const COUNTER_SPAN = 2 ** 48
let counter = Math.floor(Math.random() * COUNTER_SPAN)

/** The next fresh request id (see PROCESS_PREFIX). */
export function freshRequestId (): string {
  counter = counter + 1 === COUNTER_SPAN ? 0 : counter + 1
  return PROCESS_PREFIX + counter.toString(16).padStart(12, '0')
}

/**
 * Fastify's genReqId: keep a well-formed X-Request-Id from a proxy or client
 * so one id follows a request across systems, otherwise make a fresh one.
 */
export function requestId (req: IncomingMessage): string {
  const incoming = req.headers['x-request-id']
  return typeof incoming === 'string' && acceptable(incoming) ? incoming : freshRequestId()
}

/** Tells the client the id its request is logged under. */
export function echoRequestId (request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id)
}

/** Echoes the request id on every answer (errors raised before routing echo it in ./mounts.ts). */
export const requestIdPlugin = fp(async function rqsRequestId (app: FastifyInstance) {
  app.addHook('onRequest', (request, reply, done) => {
    echoRequestId(request, reply)
    done()
  })
}, { name: 'rqs-request-id', fastify: '5.x' })
