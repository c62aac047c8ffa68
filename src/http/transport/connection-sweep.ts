import type { Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyReply } from 'fastify'
import { DeadlineSweep } from './deadline-sweep.js'

/**
 * Connections on which nothing moves: node:http's own idle limit
 * (`server.timeout`) re-arms a socket timer on every request, and again when
 * it ends, for the keep-alive limit; measured here instead, per sweep, by the
 * bytes a connection has read and written. `onIdle` is given a connection
 * silent for `ms` (within a period), once per sweep until it is closed.
 */
export interface IdleLimit {
  ms: number
  onIdle: (socket: Socket) => void
}

/** What a connection had read and written at the last sweep that saw it change, and when. */
interface Traffic {
  moved: number
  since: number
}

/** A response being watched: the reply it belongs to (null once it needs no more watching) and its start. */
type WatchedResponse = ServerResponse & { rqsReply?: FastifyReply | null, rqsWatchStart?: number }

/** The response node:http is sending on a connection, if any (no public accessor; cleared when it finishes). */
function inFlight (socket: Socket): WatchedResponse | null | undefined {
  return (socket as Socket & { _httpMessage?: WatchedResponse | null })._httpMessage
}

/**
 * The request limits' deadlines, found through the server's connections
 * instead of a list of requests. A request costs two fields set on its
 * response, and nothing when it finishes: node:http detaches a finished
 * response from its socket, so the sweep no longer sees it, and no hook or
 * 'finish' listener is needed to say it is done (a list of requests needs
 * one, or it holds every finished request until the next sweep).
 *
 * Every `periodMs` the sweep reads the clock once and asks `check` about the
 * response each open connection is sending, with the time it has been
 * watched; `check` returns true once it needs no more watching. A pipelined
 * request's response waits for the one before it and is seen once attached,
 * with its own start. Requests on sockets the server did not accept itself
 * (`inject()`, a TLS socket wrapping the accepted one) go to a DeadlineSweep
 * that drops them when `check` says they are done. Same precision as
 * DeadlineSweep: never acted on before the deadline, at most two periods after.
 * With an IdleLimit it also closes the connections on which nothing moved.
 */
export class ConnectionSweep {
  readonly #periodMs: number
  readonly #check: (reply: FastifyReply, elapsedMs: number) => boolean
  readonly #idle: IdleLimit | undefined
  readonly #sockets = new Map<Socket, Traffic>()
  readonly #others: DeadlineSweep<FastifyReply>
  #timer: NodeJS.Timeout | undefined
  #now = 0

  /** `idle`: also closes connections on which nothing moved for that long (see IdleLimit). */
  constructor (periodMs: number, check: (reply: FastifyReply, elapsedMs: number) => boolean, idle?: IdleLimit) {
    this.#periodMs = periodMs
    this.#check = check
    this.#idle = idle
    this.#others = new DeadlineSweep(periodMs, check)
  }

  /** Follows the server's connections from now on. */
  attach (server: Server): void {
    server.on('connection', (socket: Socket) => {
      this.#sockets.set(socket, { moved: 0, since: Date.now() })
      socket.once('close', () => { this.#sockets.delete(socket) })
      if (this.#timer === undefined) {
        this.#now = Date.now()
        this.#timer = setInterval(() => { this.#sweep() }, this.#periodMs)
        this.#timer.unref()
      }
    })
  }

  /** Watches a request from now until it needs no more watching. */
  watch (reply: FastifyReply): void {
    const socket = reply.request.raw.socket as Socket | null
    if (socket !== null && this.#sockets.has(socket)) {
      const response = reply.raw as WatchedResponse
      response.rqsWatchStart = this.#now
      response.rqsReply = reply
    } else {
      this.#others.watch(reply)
    }
  }

  #sweep (): void {
    const now = this.#now = Date.now()
    const idle = this.#idle
    for (const [socket, traffic] of this.#sockets) {
      const response = inFlight(socket)
      const reply = response?.rqsReply
      if (reply != null && this.#check(reply, now - response!.rqsWatchStart! - this.#periodMs)) response!.rqsReply = null
      if (idle === undefined || socket.destroyed) continue
      // Bytes read, and bytes handed to the connection to write (not those a client that stopped reading leaves queued).
      const moved = socket.bytesRead + (socket as Socket & { _bytesDispatched: number })._bytesDispatched
      if (moved !== traffic.moved) {
        traffic.moved = moved
        traffic.since = now
      } else if (now - traffic.since >= idle.ms) {
        idle.onIdle(socket)
      }
    }
    if (this.#sockets.size === 0) this.#stopTimer()
  }

  #stopTimer (): void {
    if (this.#timer !== undefined) clearInterval(this.#timer)
    this.#timer = undefined
  }

  /** Stops both timers; the next connection, or request on another socket, starts them again. */
  stop (): void {
    this.#stopTimer()
    this.#others.stop()
  }
}
