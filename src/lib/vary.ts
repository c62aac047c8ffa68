import type { FastifyReply } from 'fastify'
import vary from 'vary'

/**
 * Adds a field to the reply's Vary header without dropping what another part
 * of the app put there (the `vary` package does the list arithmetic).
 */
export function appendVary (reply: FastifyReply, field: string): void {
  const current = reply.getHeader('vary')
  if (current === undefined) {
    reply.header('vary', field)
    return
  }
  reply.header('vary', vary.append(Array.isArray(current) ? current.join(', ') : String(current), field))
}
