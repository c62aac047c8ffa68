import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'

/**
 * Access logging: one line per finished request (Fastify's "request completed",
 * with method, url, status and time), not two. It costs about a tenth of a
 * simple read, so it is opt-in (--access-log).
 */
export class AccessLogController extends LogController {
  override incomingRequest (): void {}

  override requestCompleted (error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return
    const line = { method: request.method, url: request.url, statusCode: reply.statusCode, responseTime: reply.elapsedTime }
    if (error == null) request.log.info(line, 'request completed')
    else request.log.error({ ...line, err: error }, 'request errored')
  }
}
