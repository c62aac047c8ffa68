/**
 * Turns to read and send one page of backlog: one turn per event-loop
 * iteration, across every stream of the server, first come first served
 * (issue 19). Between two pages everything else that is waiting runs — a
 * request that arrived, a connection that drained — so a large replay, or
 * two hundred of them, cannot keep the event loop to itself. Without it a
 * replay from the memory store (whose reads resolve on a microtask) wrote
 * page after page without ever letting the loop go while the connection took
 * the bytes.
 */
export class ReplayTurns {
  readonly #waiting: Array<() => void> = []
  #scheduled = false

  /** Resolves when it is the caller's turn: at the earliest in the next iteration. */
  async next (): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#waiting.push(resolve)
      this.#schedule()
    })
  }

  /** How many are waiting for a turn. */
  get waiting (): number {
    return this.#waiting.length
  }

  #schedule (): void {
    if (this.#scheduled || this.#waiting.length === 0) return
    this.#scheduled = true
    // An immediate set from an immediate runs in the next iteration, after I/O has been polled.
    setImmediate(() => {
      this.#scheduled = false
      this.#waiting.shift()?.()
      this.#schedule()
    })
  }
}
