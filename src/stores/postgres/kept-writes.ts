import type { Pool, PoolClient } from 'pg'
import { IdempotencyKeyUsedError, DEFAULT_IDEMPOTENCY_RETENTION_MS, type KeptAnswer, type KeptWrite, type KeyedWrite, systemClock, type Clock } from '../../domain/index.js'
import { rethrow } from './errors.js'

interface KeptRow {
  fingerprint: string
  status: number
  headers: Record<string, string>
  body: string
}

/** Expired keys are deleted at most this often per instance (ms). */
const PURGE_INTERVAL_MS = 60_000

// Times come from the store's clock, not the database's now(): $n marked "cutoff" is
// now minus the retention window (a key kept at or before it has expired).
const FIND = {
  name: 'rqs-kept-find',
  text: `SELECT fingerprint, status, headers, body FROM rqs_idempotency
    WHERE key = $1 AND status > 0 AND created_at > $2`
}
// The primary key makes a second transaction with the same key wait here until
// the first commits (then it finds the key taken) or rolls back (then it claims it).
// An expired row under the key ($4: the cutoff) is taken over; $3 is now.
const CLAIM = {
  name: 'rqs-kept-claim',
  text: `INSERT INTO rqs_idempotency AS k (key, fingerprint, status, headers, body, created_at) VALUES ($1, $2, 0, '{}', '', $3)
    ON CONFLICT (key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, status = 0, headers = '{}', body = '', created_at = EXCLUDED.created_at
    WHERE k.created_at <= $4
    RETURNING true AS claimed`
}
const KEEP = { name: 'rqs-kept-keep', text: 'UPDATE rqs_idempotency SET status = $2, headers = $3, body = $4 WHERE key = $1' }
const RELEASE = { name: 'rqs-kept-release', text: 'DELETE FROM rqs_idempotency WHERE key = $1' }
const PURGE = { name: 'rqs-kept-purge', text: 'DELETE FROM rqs_idempotency WHERE created_at <= $1' }

/**
 * Idempotency-Key answers in the rqs_idempotency table, claimed and kept
 * inside the write's own transaction (see PostgresWrites.transaction), so
 * they survive restarts and hold across instances.
 */
export class PostgresKeptWrites {
  readonly #pool: Pool
  readonly #retentionMs: number
  readonly #clock: Clock
  #lastPurge = 0

  constructor (pool: Pool, retentionMs = DEFAULT_IDEMPOTENCY_RETENTION_MS, clock: Clock = systemClock) {
    this.#pool = pool
    this.#retentionMs = retentionMs
    this.#clock = clock
  }

  async find (key: string): Promise<KeptWrite | undefined> {
    let rows: KeptRow[]
    try {
      rows = (await this.#pool.query<KeptRow>({ ...FIND, values: [key, this.#cutoff(this.#clock.now())] })).rows
    } catch (err) { return rethrow(err) }
    return rows[0] === undefined ? undefined : toKept(rows[0])
  }

  /** Takes `keyed.key` for this transaction, or throws IdempotencyKeyUsedError with the kept write. */
  async claim (client: PoolClient, keyed: Pick<KeyedWrite<unknown>, 'key' | 'fingerprint'>): Promise<void> {
    const now = this.#clock.now()
    this.#purgeNowAndThen(now)
    const { rows } = await client.query({ ...CLAIM, values: [keyed.key, keyed.fingerprint, new Date(now), this.#cutoff(now)] })
    if (rows.length === 1) return
    const kept = (await client.query<KeptRow>({ ...FIND, values: [keyed.key, this.#cutoff(now)] })).rows[0]
    // Taken and not expired, so visible; should it have expired in between, the client simply retries.
    if (kept === undefined) throw new Error('Idempotency-Key taken but not readable')
    throw new IdempotencyKeyUsedError(toKept(kept))
  }

  /** Keeps the answer under the claimed key; a write that changed nothing keeps nothing. */
  async keep (client: PoolClient, keyed: Pick<KeyedWrite<unknown>, 'key'>, answer: KeptAnswer | undefined): Promise<void> {
    if (answer === undefined) await client.query({ ...RELEASE, values: [keyed.key] })
    else await client.query({ ...KEEP, values: [keyed.key, answer.status, answer.headers, answer.body] })
  }

  #purgeNowAndThen (now: number): void {
    if (now - this.#lastPurge < PURGE_INTERVAL_MS) return
    this.#lastPurge = now
    this.#pool.query({ ...PURGE, values: [this.#cutoff(now)] }).catch(() => {})
  }

  /** Kept at or before this, a key has expired. */
  #cutoff (now: number): Date {
    return new Date(now - this.#retentionMs)
  }
}

function toKept (row: KeptRow): KeptWrite {
  return { fingerprint: row.fingerprint, answer: { status: row.status, headers: row.headers, body: row.body } }
}
