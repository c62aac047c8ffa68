import type { FastifyBaseLogger } from 'fastify'

/** The limits that cut a connection or request short (see ./timeouts.ts). */
export type BoundKind =
  | 'headers-timeout' // request line and headers not complete in time (408, closed)
  | 'body-timeout' // body not complete in time (408 in the service's shape, closed)
  | 'handler-timeout' // no answer in time (503 PROCESSING_TIMEOUT)
  | 'socket-idle' // nothing moved on a busy connection (a client that stops reading): closed
  | 'connection-dropped' // over --max-connections: closed at once
  | 'malformed-request' // not HTTP the parser accepts (400/431, closed)

/** How often counts are written while limits keep firing. */
const FLUSH_MS = 1000

/**
 * Counts every time a limit cuts a connection or request short and writes
 * the counts to the log, one warn line per kind and second while it happens:
 * `{"bound":"headers-timeout","count":312,"msg":"…"}`. A flood of a thousand
 * sockets costs a few log lines, not a thousand, and still shows in the log.
 */
export class BoundLog {
  #log: FastifyBaseLogger | undefined
  readonly #counts = new Map<BoundKind, number>()
  /** Totals since start (tests and diagnostics). */
  readonly totals = new Map<BoundKind, number>()
  #timer: NodeJS.Timeout | undefined

  attach (log: FastifyBaseLogger): void {
    this.#log = log
  }

  count (kind: BoundKind): void {
    this.#counts.set(kind, (this.#counts.get(kind) ?? 0) + 1)
    this.totals.set(kind, (this.totals.get(kind) ?? 0) + 1)
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => { this.flush() }, FLUSH_MS)
      this.#timer.unref()
    }
  }

  /** Writes the pending counts now. */
  flush (): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    for (const [bound, count] of this.#counts) {
      this.#log?.warn({ bound, count }, 'connections or requests cut short by a limit')
    }
    this.#counts.clear()
  }
}
