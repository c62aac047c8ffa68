import type { ServerResponse } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { RETRY_AFTER, streamOwner, type CredentialEnd, type StreamRegistry, type StreamSlot } from '../../http/streams/index.js'
import { JSON_UTF8 } from './negotiation.js'

/** The kind GraphQL subscriptions take their slots as, in the server's stream registry. */
export const GRAPHQL_STREAMS = 'graphql'

/**
 * Takes a slot for a subscription at `/graphql/stream` from the server's
 * stream budget (shared with the change feed: issue 36) before anything of
 * the stream is written. Refused, it answers 429 (this client holds its
 * share, with Retry-After) or 503 (the server is full) as GraphQL errors and
 * returns undefined. The slot goes back when the response closes, whatever
 * it was (a stream, or a request graphql-sse refused).
 */
export function takeStreamSlot (streams: StreamRegistry, request: FastifyRequest, reply: FastifyReply): StreamSlot | undefined {
  const slot = streams.reserve(GRAPHQL_STREAMS, streamOwner(request))
  if (typeof slot === 'string') {
    const [status, code, message] = slot === 'client-full'
      ? [429, 'TOO_MANY_CLIENT_SUBSCRIPTIONS', `This client already holds ${streams.maxStreamsPerClient} change-feed streams and GraphQL subscriptions together, the most one client may; close one or retry after ${RETRY_AFTER[slot]} s.`] as const
      : [503, 'TOO_MANY_SUBSCRIPTIONS', `The server already serves as many streams as it serves at once (${describeCap(streams)}); retry after ${RETRY_AFTER[slot]} s.`] as const
    // Like the feed's refusals, it closes its connection: a client asking again and again on kept-alive connections would hold them.
    void reply.code(status).header('retry-after', RETRY_AFTER[slot]).header('connection', 'close').type(JSON_UTF8)
      .send(JSON.stringify({ errors: [{ message, extensions: { code } }] }))
    return undefined
  }
  const res = reply.raw
  res.once('close', () => { slot.release() })
  // A client that half-closes its connection has gone (the server keeps half-open connections for
  // requests like `printf … | nc`, src/http/timeouts.ts): without this its slot would stay taken
  // until a ping failed. The change feed does the same (events/subscriber.ts).
  const socket = res.socket
  if (socket != null) {
    const gone = (): void => { res.destroy() }
    if (socket.readableEnded) gone()
    else {
      socket.once('end', gone)
      res.once('close', () => { socket.off('end', gone) })
    }
  }
  slot.attach((reason) => { endStream(res, reason) })
  return slot
}

function describeCap (streams: StreamRegistry): string {
  const ofKind = streams.maxOfKind(GRAPHQL_STREAMS)
  return ofKind < streams.maxStreams ? `${ofKind} GraphQL subscriptions, ${streams.maxStreams} streams in all` : `${streams.maxStreams} change-feed streams and GraphQL subscriptions together`
}

const END_MESSAGES: Record<CredentialEnd, string> = {
  revoked: 'The access token of this subscription was withdrawn; subscribe again with a valid token.',
  expired: 'The access token of this subscription expired; subscribe again with a new token.'
}

/**
 * Ends a subscription whose credential went, as graphql-sse ends one: a last
 * `next` event carrying the GraphQL error (UNAUTHENTICATED, `reason` revoked
 * or expired), then `complete`, then the end of the response (graphql-sse
 * writes whole events, so these never cut one). A response not yet streaming
 * (its document is still being prepared) is dropped.
 */
function endStream (res: ServerResponse, reason: CredentialEnd): void {
  if (res.writableEnded || res.destroyed) return
  if (!res.headersSent || res.statusCode !== 200) { res.destroy(); return }
  const error = { errors: [{ message: END_MESSAGES[reason], extensions: { code: 'UNAUTHENTICATED', reason } }] }
  res.end(`event: next\ndata: ${JSON.stringify(error)}\n\nevent: complete\ndata:\n\n`)
}
