/** One watched item: done once it needs no more watching (finished, or its deadline acted on). */
export interface Watch<T> {
  item: T | undefined
  /** When it was added, by the sweep's clock (ms). */
  readonly start: number
}

/**
 * Many deadlines with one timer (issue 12). A timer per request costs a
 * Timeout object, a timer-list insertion, a clock read and a listener to clear
 * it (≈ 2 µs of a 40 µs request); here a request costs an object and an array
 * push. Every `periodMs` the sweep reads the clock once and asks `check` about
 * each item with the time it has been watched; items that finished were
 * marked done (`finish`) and are dropped then. The timer runs only while
 * something is watched and does not keep the process alive.
 *
 * Precision: a watch's start is the clock of the last sweep (at most one
 * period early), so elapsed time is counted one period short: a deadline is
 * never acted on before it passes, and at most two periods after.
 */
export class DeadlineSweep<T> {
  readonly #periodMs: number
  readonly #check: (item: T, elapsedMs: number) => boolean
  #watches: Array<Watch<T>> = []
  #timer: NodeJS.Timeout | undefined
  #now = 0

  /** `check` returns true once the item needs no more watching. */
  constructor (periodMs: number, check: (item: T, elapsedMs: number) => boolean) {
    this.#periodMs = periodMs
    this.#check = check
  }

  watch (item: T): Watch<T> {
    if (this.#timer === undefined) {
      this.#now = Date.now()
      this.#timer = setInterval(() => { this.#sweep() }, this.#periodMs)
      this.#timer.unref()
    }
    const watch: Watch<T> = { item, start: this.#now }
    this.#watches.push(watch)
    return watch
  }

  /** The item finished: it is no longer held (and dropped at the next sweep). */
  static finish<T> (watch: Watch<T>): void {
    watch.item = undefined
  }

  /** Items currently held (finished ones until the next sweep). */
  get size (): number { return this.#watches.length }

  #sweep (): void {
    this.#now = Date.now()
    const watches = this.#watches
    let kept = 0
    // `check` may start new watches (pushed at the end), which this loop then keeps.
    for (let i = 0; i < watches.length; i++) {
      const watch = watches[i]!
      if (watch.item === undefined) continue
      if (this.#check(watch.item, this.#now - watch.start - this.#periodMs)) {
        watch.item = undefined
        continue
      }
      watches[kept++] = watch
    }
    watches.length = kept
    if (kept === 0) this.stop()
  }

  /** Stops the timer; watches added later start it again. */
  stop (): void {
    if (this.#timer !== undefined) clearInterval(this.#timer)
    this.#timer = undefined
  }
}
