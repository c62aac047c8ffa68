import type { Database, Statement } from 'better-sqlite3'
import { IdempotencyKeyUsedError, DEFAULT_IDEMPOTENCY_RETENTION_MS, type KeptWrite, type KeyedWrite, systemClock, type Clock } from '../../domain/index.js'
interface KeptRow {
  fingerprint: string
  status: number
  headers: string
  body: string
}

/** Expired keys are deleted at most this often (ms). */
const PURGE_INTERVAL_MS = 60_000

/**
 * Idempotency-Key answers in the rqs_idempotency table. `run` is called
 * inside a write's BEGIN IMMEDIATE transaction: the file's write lock makes
 * check, write and keep one step for every process sharing the file.
 */
export class SqliteKeptWrites {
  readonly #find: Statement<[string, number], KeptRow>
  readonly #keep: Statement<[string, string, number, string, string, number]>
  readonly #purge: Statement<[number]>
  readonly #retentionMs: number
  readonly #clock: Clock
  #lastPurge = 0

  constructor (db: Database, retentionMs = DEFAULT_IDEMPOTENCY_RETENTION_MS, clock: Clock = systemClock) {
    this.#retentionMs = retentionMs
    this.#clock = clock
    this.#find = db.prepare('SELECT fingerprint, status, headers, body FROM rqs_idempotency WHERE key = ? AND created_at > ?')
    // An expired row under the same key is replaced.
    this.#keep = db.prepare('INSERT OR REPLACE INTO rqs_idempotency (key, fingerprint, status, headers, body, created_at) VALUES (?, ?, ?, ?, ?, ?)')
    this.#purge = db.prepare('DELETE FROM rqs_idempotency WHERE created_at <= ?')
  }

  find (key: string): KeptWrite | undefined {
    const row = this.#find.get(key, this.#clock.now() - this.#retentionMs)
    return row === undefined ? undefined : toKept(row)
  }

  /** Runs a synchronous `write` (inside the caller's transaction), keyed when `keyed` is given. */
  run<R> (keyed: KeyedWrite<R> | undefined, write: () => R): R {
    if (keyed === undefined) return write()
    this.claim(keyed)
    const result = write()
    this.keep(keyed, result)
    return result
  }

  /** Inside the caller's transaction: throws IdempotencyKeyUsedError when the key is kept already. */
  claim (keyed: Pick<KeyedWrite<unknown>, 'key'>): void {
    const now = this.#clock.now()
    if (now - this.#lastPurge > PURGE_INTERVAL_MS) {
      this.#lastPurge = now
      this.#purge.run(now - this.#retentionMs)
    }
    const kept = this.find(keyed.key)
    if (kept !== undefined) throw new IdempotencyKeyUsedError(kept)
  }

  /** Inside the caller's transaction: keeps the answer `keyed` builds from `result` (nothing, when it builds none). */
  keep<R> (keyed: KeyedWrite<R>, result: R): void {
    const answer = keyed.answer(result)
    if (answer !== undefined) {
      this.#keep.run(keyed.key, keyed.fingerprint, answer.status, JSON.stringify(answer.headers), answer.body, this.#clock.now())
    }
  }
}

function toKept (row: KeptRow): KeptWrite {
  return { fingerprint: row.fingerprint, answer: { status: row.status, headers: JSON.parse(row.headers) as Record<string, string>, body: row.body } }
}
