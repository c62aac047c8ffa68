import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ErrorCode } from '../errors/catalogue.js'
import type { ServiceLayout } from '../service-layout.js'
import { sendShapedError, type ShapedErrorOptions } from '../shaped-error.js'

/** Refuses a request with a catalogue code, in its service's error shape. */
export type Reject = (request: FastifyRequest, reply: FastifyReply, code: ErrorCode, options: ShapedErrorOptions) => FastifyReply

/**
 * The one way the security plugins refuse a request: counted by /metrics
 * (when it is on) and rendered in the shape the client reads.
 */
export function rejecter (layout: ServiceLayout): Reject {
  return (request, reply, code, options) => {
    request.server.rqsMetrics?.countRejection(code)
    return sendShapedError(layout, request, reply, code, options)
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Set by src/http/metrics.ts when --metrics is on. */
    rqsMetrics?: { countRejection: (code: ErrorCode) => void }
  }
}
