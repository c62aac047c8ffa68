import type { Socket } from 'node:net'
import { LogController, type FastifyReply, type FastifyRequest, type onResponseHookHandler } from 'fastify'

/** Who sent a request, when authentication proved it (http/security's `principalOf`, handed down: transport imports no layer above it). */
export type PrincipalOf = (request: FastifyRequest) => { readonly name: string } | undefined

/**
 * Access logging: one line per finished request (Fastify's "request completed"),
 * not two: method, url, status, duration in ms (`responseTime`), bytes sent and,
 * as on every request's line, the request id (`reqId`); with authentication on,
 * the principal (a token's name or a JWT's `sub`, never the token). It costs about a tenth
 * of a simple read, so it is opt-in (--access-log).
 */
export class AccessLogController extends LogController {
  /** What each connection had sent when its previous answer was logged. */
  readonly #logged = new WeakMap<Socket, number>()
  readonly #principalOf: PrincipalOf

  constructor (options: ConstructorParameters<typeof LogController>[0], principalOf: PrincipalOf) {
    super(options)
    this.#principalOf = principalOf
  }

  override incomingRequest (): void {}

  override requestCompleted (error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return
    const line = { method: request.method, url: request.url, statusCode: reply.statusCode, responseTime: reply.elapsedTime, bytes: this.#bytesSent(request.raw.socket), principal: this.#principalOf(request)?.name }
    if (error == null) request.log.info(line, 'request completed')
    else request.log.error({ ...line, err: error }, 'request errored')
  }

  /**
   * Bytes this answer put on the connection: status line, headers and body as
   * sent (compressed, when it was), like nginx's `$bytes_sent`. A connection
   * answers its requests one after another, so the answer's share is what the
   * socket wrote since the previous answer finished. Undefined for `inject()`.
   */
  #bytesSent (socket: Socket | null | undefined): number | undefined {
    const written = socket?.bytesWritten
    if (socket == null || typeof written !== 'number') return undefined
    const before = this.#logged.get(socket) ?? 0
    this.#logged.set(socket, written)
    return written - before
  }
}

/**
 * Added as a server-wide onResponse hook when the access log is on: Fastify,
 * given no logger of its own (./server-logger.ts), times a response and calls
 * the controller's requestCompleted only on routes with onResponse hooks.
 */
export const timeForAccessLog: onResponseHookHandler = function timeForAccessLog (_request, _reply, done) { done() }
