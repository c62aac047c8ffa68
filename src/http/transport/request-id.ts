import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { HeaderObject } from '../routes/index.js'

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
/** Two-digit hex of every byte: Number#toString(16) of a 48-bit number costs as much as randomUUID(). */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'))
const SPAN = 0x1000000
/** The 48-bit counter as two 24-bit halves (small integers, cheap to split into bytes). */
let high = Math.floor(Math.random() * SPAN)
let low = Math.floor(Math.random() * SPAN)

/** The next fresh request id (see PROCESS_PREFIX). */
export function freshRequestId (): string {
  if (++low === SPAN) {
    low = 0
    high = (high + 1) % SPAN
  }
  return PROCESS_PREFIX + HEX[high >> 16]! + HEX[(high >> 8) & 255]! + HEX[high & 255]! + HEX[low >> 16]! + HEX[(low >> 8) & 255]! + HEX[low & 255]!
}

/**
 * Fastify's genReqId: keep a well-formed X-Request-Id from a proxy or client
 * so one id follows a request across systems, otherwise make a fresh one.
 */
export function requestId (req: IncomingMessage): string {
  const incoming = req.headers['x-request-id']
  return typeof incoming === 'string' && acceptable(incoming) ? incoming : freshRequestId()
}

/** Tells the client the id its request is logged under (into the reply's header object when given one: the same header). */
export function echoRequestId (request: FastifyRequest, reply: FastifyReply, headers?: HeaderObject): void {
  if (headers !== undefined) headers['x-request-id'] = request.id
  else reply.header('x-request-id', request.id)
}

/**
 * Echoes the request id on every answer (errors raised before routing echo it in ./mounts.ts). The
 * server does it in the request limits' hook instead (requestLimitsPlugin's `onRequest`: one hook
 * less a request); this plugin is for a server without them.
 */
export const requestIdPlugin = fp(async function rqsRequestId (app: FastifyInstance) {
  app.addHook('onRequest', (request, reply, done) => {
    echoRequestId(request, reply)
    done()
  })
}, { name: 'rqs-request-id', fastify: '5.x' })
