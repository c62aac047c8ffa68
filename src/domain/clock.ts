/**
 * Where a store reads the time: when an Idempotency-Key expires, which
 * changes are old enough to prune, when a change happened (memory). The
 * system clock unless the store's options name another, so a test can move
 * time instead of waiting for it.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch, as Date.now(). */
  now: () => number
}

export const systemClock: Clock = { now: () => Date.now() }
