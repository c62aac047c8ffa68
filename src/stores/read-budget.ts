import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import { StoreTimeoutError } from '../domain/index.js'

/** How long reads may run back to back before other requests get a turn (ms). */
const SLICE_MS = 10

/**
 * The time one read of a store may take (`--read-budget`; 0: no bound),
 * given to the stores when they open, as PostgreSQL's statement_timeout is
 * given to a session: each read (a page, a count, an aggregate, one batch of
 * a stream) starts its own clock. No asynchronous context carries it, so no
 * request pays for it: an AsyncLocalStorage once used on Node 20 slows every
 * later request of the process (see docs/decisions.md, "The read budget is
 * the store's, per read"). A whole request stays bounded by the handler
 * timeout.
 */
export class ReadBudget {
  static readonly NONE = new ReadBudget(0)

  constructor (readonly ms: number) {}

  /** When a read starting now must end (Date.now() scale); Infinity when reads are not bounded. */
  start (): number {
    return this.ms > 0 ? Date.now() + this.ms : Infinity
  }

  /** Throws StoreTimeoutError once `end` (from start()) has passed. */
  check (end: number): void {
    if (end !== Infinity && Date.now() >= end) throw this.spent()
  }

  spent (cause?: unknown): StoreTimeoutError {
    return new StoreTimeoutError(this.ms, `A read took longer than its budget of ${this.ms} ms (--read-budget)`, cause === undefined ? undefined : { cause })
  }
}

/**
 * For a synchronous store (SQLite): whether its reads have held the event
 * loop for a slice. A GraphQL document's many lists run back to back, each a
 * statement, in one turn of the loop (their promises resolve as microtasks);
 * /healthz would wait for all of them. The first read of a turn marks the
 * slice's start and asks the loop to clear the mark at its next turn; a read
 * past the slice waits for that turn. A short request never waits, not even
 * a microtask. One per database file: every collection's reads share it.
 */
export class LoopShare {
  #sliceStart: number | undefined

  /** Undefined when the read may go on at once; else a promise of the loop's next turn. */
  due (): Promise<void> | undefined {
    const now = Date.now()
    if (this.#sliceStart === undefined) {
      this.#sliceStart = now
      setImmediate(() => { this.#sliceStart = undefined })
      return undefined
    }
    return now - this.#sliceStart < SLICE_MS ? undefined : yieldToEventLoop()
  }
}
