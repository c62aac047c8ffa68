import type { FastifyReply } from 'fastify'
import vary from 'vary'

/**
 * Adds a field to the reply's Vary header without dropping what another part
 * of the app put there (the `vary` package does the list arithmetic). Given the
 * reply's header object (the server's start finds it), a first Vary is one store
 * into it: what `reply.header` would write, without a lookup through getHeader.
 */
export function appendVary (reply: FastifyReply, field: string, headers?: Record<string, unknown>): void {
  if (headers !== undefined && headers.vary === undefined && !reply.raw.hasHeader('vary')) {
    headers.vary = field
    return
  }
  const current = reply.getHeader('vary')
  if (current === undefined) {
    reply.header('vary', field)
    return
  }
  reply.header('vary', vary.append(Array.isArray(current) ? current.join(', ') : String(current), field))
}
