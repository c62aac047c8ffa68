import type { Clock } from '../../src/domain/index.js'

/**
 * A clock a test moves by hand (store option `clock`), so retention and
 * expiry are tested without waiting. It starts at the real time, because the
 * SQL stores' triggers stamp changes with the database's own clock, and stands
 * still until moved.
 */
export class FakeClock implements Clock {
  #now: number

  constructor (start = Date.now()) {
    this.#now = start
  }

  readonly now = (): number => this.#now

  advance (ms: number): void {
    this.#now += ms
  }

  set (ms: number): void {
    this.#now = ms
  }
}
