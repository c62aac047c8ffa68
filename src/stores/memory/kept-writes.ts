import { LRUCache } from 'lru-cache'
import { IdempotencyKeyUsedError, DEFAULT_IDEMPOTENCY_RETENTION_MS, type KeptWrite, type KeyedWrite } from '../../domain/index.js'
/** Most keys the memory store keeps; the least recently used go first. */
export const MEMORY_KEPT_WRITES_MAX = 10_000

/**
 * Idempotency-Key answers in memory: a bounded LRU map whose entries expire
 * after the retention window. The memory stores' writes are synchronous, so
 * the check, the write and the keeping happen without a turn of the event
 * loop in between: two requests with one key cannot both write.
 */
export class MemoryKeptWrites {
  readonly #kept: LRUCache<string, KeptWrite>

  constructor (retentionMs = DEFAULT_IDEMPOTENCY_RETENTION_MS, max = MEMORY_KEPT_WRITES_MAX) {
    this.#kept = new LRUCache({ max, ttl: retentionMs })
  }

  find (key: string): KeptWrite | undefined {
    return this.#kept.get(key)
  }

  /** Runs a synchronous `write`, keyed when `keyed` is given. */
  run<R> (keyed: KeyedWrite<R> | undefined, write: () => R): R {
    if (keyed === undefined) return write()
    const kept = this.#kept.get(keyed.key)
    if (kept !== undefined) throw new IdempotencyKeyUsedError(kept)
    const result = write()
    const answer = keyed.answer(result)
    if (answer !== undefined) this.#kept.set(keyed.key, { fingerprint: keyed.fingerprint, answer })
    return result
  }
}
