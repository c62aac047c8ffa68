import type { Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyReply } from 'fastify'
import { DeadlineSweep } from './deadline-sweep.js'

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
 */
export class ConnectionSweep {
  readonly #periodMs: number
  readonly #check: (reply: FastifyReply, elapsedMs: number) => boolean
  readonly #sockets = new Set<Socket>()
  readonly #others: DeadlineSweep<FastifyReply>
  #timer: NodeJS.Timeout | undefined
  #now = 0

  constructor (periodMs: number, check: (reply: FastifyReply, elapsedMs: number) => boolean) {
    this.#periodMs = periodMs
    this.#check = check
    this.#others = new DeadlineSweep(periodMs, check)
  }

  /** Follows the server's connections from now on. */
  attach (server: Server): void {
    server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket)
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
    for (const socket of this.#sockets) {
      const response = inFlight(socket)
      const reply = response?.rqsReply
      if (reply == null) continue
      if (this.#check(reply, now - response!.rqsWatchStart! - this.#periodMs)) response!.rqsReply = null
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
