/**
 * The idempotency contract (Idempotency-Key): a keyed write and its answer
 * are committed together. Stores keep the answer as the HTTP layer built it
 * and hand it back unchanged: to a store it is opaque (a status, the
 * headers that describe the result, and the body's bytes as text).
 */

/**
 * The answer a write gave, as the HTTP layer sent it: kept under the
 * request's Idempotency-Key and sent again, unchanged, to a retry.
 */
export interface KeptAnswer {
  status: number
  /** The headers that describe the result (Location, ETag). */
  headers: Record<string, string>
  /** The serialised body ('' for none). */
  body: string
}

/** A kept write: the fingerprint of the request that made it, and its answer. */
export interface KeptWrite {
  fingerprint: string
  answer: KeptAnswer
}

/**
 * Passed to a write to make it idempotent. Inside the write's own transaction
 * the store checks `key`: when it is already kept, nothing is written and the
 * write throws IdempotencyKeyUsedError with the kept write; otherwise it
 * writes, builds `answer(result)` and keeps it under `key` in the same
 * transaction, so the record and its answer are committed together or not at all.
 */
export interface KeyedWrite<R> {
  key: string
  /** Identifies the request (method, path, version, body); a retry must match it. */
  fingerprint: string
  /** The answer for this result; undefined when the write changed nothing (then nothing is kept). Synchronous. */
  answer: (result: R) => KeptAnswer | undefined
}

/** Record stores that keep answers of keyed writes. */
export interface KeptWrites {
  /** The write kept under `key` within the retention window, if any. Optional: test doubles may leave it out. */
  keptWrite?: (key: string) => Promise<KeptWrite | undefined>
}

