import { LRUCache } from 'lru-cache'
import { IdempotencyKeyUsedError, DEFAULT_IDEMPOTENCY_RETENTION_MS, type KeptWrite, type KeyedWrite, systemClock, type Clock } from '../../domain/index.js'
/** Most keys the memory store keeps; the least recently used go first. */
export const MEMORY_KEPT_WRITES_MAX = 10_000

interface Entry {
  write: KeptWrite
  /** When it was kept, by the store's clock. */
  keptAt: number
}

/**
 * Idempotency-Key answers in memory: a bounded LRU map whose entries expire
 * after the retention window, measured on the store's clock (as the SQL
 * stores do). The memory stores' writes are synchronous, so the check, the
 * write and the keeping happen without a turn of the event loop in between:
 * two requests with one key cannot both write.
 */
export class MemoryKeptWrites {
  readonly #kept: LRUCache<string, Entry>
  readonly #retentionMs: number
  readonly #clock: Clock

  constructor (retentionMs = DEFAULT_IDEMPOTENCY_RETENTION_MS, max = MEMORY_KEPT_WRITES_MAX, clock: Clock = systemClock) {
    this.#kept = new LRUCache({ max })
    this.#retentionMs = retentionMs
    this.#clock = clock
  }

  /** The write kept under `key`, unless it expired (then it is forgotten). */
  find (key: string): KeptWrite | undefined {
    const entry = this.#kept.get(key)
    if (entry === undefined) return undefined
    if (this.#clock.now() - entry.keptAt < this.#retentionMs) return entry.write
    this.#kept.delete(key)
    return undefined
  }

  /** Runs a synchronous `write`, keyed when `keyed` is given. */
  run<R> (keyed: KeyedWrite<R> | undefined, write: () => R): R {
    if (keyed === undefined) return write()
    this.claim(keyed)
    const result = write()
    this.keep(keyed, result)
    return result
  }

  /** Throws IdempotencyKeyUsedError when the key is kept already. */
  claim (keyed: Pick<KeyedWrite<unknown>, 'key'>): void {
    const kept = this.find(keyed.key)
    if (kept !== undefined) throw new IdempotencyKeyUsedError(kept)
  }

  /** Keeps the answer `keyed` builds from `result` (nothing, when it builds none). */
  keep<R> (keyed: KeyedWrite<R>, result: R): void {
    const answer = keyed.answer(result)
    if (answer !== undefined) this.#kept.set(keyed.key, { write: { fingerprint: keyed.fingerprint, answer }, keptAt: this.#clock.now() })
  }
}
