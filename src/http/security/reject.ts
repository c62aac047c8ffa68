import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, type ErrorCode } from '../errors/index.js'
import type { MountTable } from '../rest/index.js'
export interface Refusal {
  /** For developers, English; the v1 envelope's body and the GraphQL error's message. */
  detail: string
  /** Extra response headers (WWW-Authenticate, Retry-After, ...). */
  headers?: Record<string, string>
}

/** Refuses a request with a catalogue code, in its service's error shape. */
export type Reject = (request: FastifyRequest, reply: FastifyReply, code: ErrorCode, refusal: Refusal) => FastifyReply

/**
 * The one way the security plugins refuse a request: counted by /metrics
 * (when it is on) and sent as an AppError through the error pipeline of the
 * route that matched, so each service words it in its own shape (the v1
 * envelope, problem details, GraphQL errors). A request no route matched
 * goes, like any other error before routing, to the mount its path is under.
 */
export function rejecter (table: MountTable): Reject {
  return (request, reply, code, { detail, headers }) => {
    request.server.rqsMetrics?.countRejection(code)
    const error = new AppError(code, detail, { headers }) as AppError & FastifyError
    if (request.is404) {
      void table.frameworkErrors(error, request, reply)
      return reply
    }
    return reply.send(error)
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Set by src/http/metrics.ts when --metrics is on. */
    rqsMetrics?: {
      countRejection: (code: ErrorCode) => void
      /** An overload refusal, by the limit passed (eventLoopDelay, heapUsedBytes, rssBytes, ...). */
      countOverload: (reason: string) => void
      /** A webhook delivery attempt (src/services/webhooks): its outcome and duration. */
      countWebhookAttempt: (outcome: 'delivered' | 'retry' | 'failed', seconds: number) => void
    }
  }
}
