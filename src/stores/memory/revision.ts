/**
 * A count of the writes to one memory collection: every set or delete of a
 * record moves `current` on. Only a store whose every write this process
 * sees can offer one (the memory store; never a database other processes
 * write), so an answer built at one revision stays exact while `current`
 * still names it. The HTTP layer keeps serialised lists by it
 * (src/http/query/kept-list.ts).
 */
export class Revision {
  #current = 0

  get current (): number {
    return this.#current
  }

  /** Called by every write, inside it. */
  advance (): void {
    this.#current++
  }
}
