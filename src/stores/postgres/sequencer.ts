import type pg from 'pg'

/**
 * Numbers the committed changes of rqs_pending_changes (migration 8): calls
 * rqs_number_changes, which moves them into rqs_changes under the head's row
 * lock, in a short transaction of its own, and NOTIFYs the listeners of every
 * instance. Writes do not number their changes, so that concurrent commits
 * never wait for each other (issue 20); someone must number them after:
 *
 * - this instance, shortly after any of its connections went back to the
 *   pool (`hint`): a write may just have committed. Runs are throttled to one
 *   per HINT_INTERVAL_MS, so a busy instance numbers in batches and an
 *   instance that only reads costs at most that many trivial queries;
 * - a reader, before it reads (`drain` in since/window, and a subscribed
 *   instance every 10 s): what committed before the read is numbered and
 *   seen, even if the writer's instance died between its commit and its
 *   sequencer run (or the write was made outside rqs, e.g. in psql);
 * - `rqs import`, right after its commit (./import.ts).
 *
 * Several instances may run it at once: they queue on the head's row lock
 * and the later ones find less or nothing to number.
 */

/** Most changes one call numbers: bounds the sequencer's transaction after a big import. */
export const NUMBER_BATCH = 10_000

/** The shortest time between two runs started by hints (ms); a hint just after a run waits out the rest. */
export const HINT_INTERVAL_MS = 10

/**
 * How often (ms) an instance's sequencer vacuums rqs_pending_changes after
 * numbering. Each change's row there is deleted moments after its insert,
 * and the numbering reads the table in key order: left to autovacuum (which
 * wakes once a minute), a busy table would make every run step over up to a
 * minute's dead rows.
 */
export const VACUUM_INTERVAL_MS = 1000

const NUMBER = { name: 'rqs-number-changes', text: 'SELECT rqs_number_changes($1) AS n' }
// Another instance vacuuming it already: skip rather than wait.
const VACUUM = 'VACUUM (SKIP_LOCKED) rqs_pending_changes'

/** Numbers up to NUMBER_BATCH changes over `client`; returns how many. */
export async function numberChanges (client: pg.ClientBase | pg.Pool): Promise<number> {
  const result = await client.query<{ n: number }>({ ...NUMBER, values: [NUMBER_BATCH] })
  return result.rows[0]?.n ?? 0
}

/** Numbers until nothing committed is left (a call numbering a full batch may have left more). */
export async function drainChanges (client: pg.ClientBase | pg.Pool): Promise<number> {
  let total = 0
  for (;;) {
    const n = await numberChanges(client)
    total += n
    if (n < NUMBER_BATCH) return total
  }
}

export class ChangeSequencer {
  readonly #pool: pg.Pool
  readonly #numbered: () => void
  readonly #failed: (err: unknown) => void
  /** The connection a hinted run holds: its own release is no hint. */
  #client: pg.PoolClient | undefined
  #running: Promise<void> | undefined
  #timer: NodeJS.Timeout | undefined
  #hinted = false
  #lastStart = -Infinity
  #lastVacuum = -Infinity
  #vacuuming = false
  #closed = false

  /**
   * `numbered`: called after a run numbered changes (the instance's own pump
   * reads them at once instead of waiting for its NOTIFY). `failed`: a hinted
   * run failed; the next hint or reader tries again.
   */
  constructor (pool: pg.Pool, numbered: () => void, failed: (err: unknown) => void) {
    this.#pool = pool
    this.#numbered = numbered
    this.#failed = failed
    pool.on('release', this.#onRelease)
  }

  /** Numbers everything committed so far (readers call this before reading). */
  async drain (): Promise<void> {
    if (await drainChanges(this.#pool) > 0) this.#numbered()
  }

  /** Something may have committed: run soon (at most one run in flight, one per HINT_INTERVAL_MS). */
  hint (): void {
    if (this.#closed) return
    this.#hinted = true
    if (this.#running !== undefined || this.#timer !== undefined) return
    const wait = this.#lastStart + HINT_INTERVAL_MS - performance.now()
    if (wait <= 0) { this.#run(); return }
    this.#timer = setTimeout(() => { this.#timer = undefined; this.#run() }, wait)
    this.#timer.unref()
  }

  /** Stops hinted runs after numbering what a last hint left (a short-lived process's writes get numbered before it exits). */
  async close (): Promise<void> {
    this.#pool.off('release', this.#onRelease)
    clearTimeout(this.#timer)
    this.#timer = undefined
    await this.#running
    if (this.#hinted && !this.#closed) {
      this.#closed = true
      this.#hinted = false
      this.#run()
      await this.#running
    }
    this.#closed = true
  }

  readonly #onRelease = (_err: Error | undefined, client: pg.PoolClient): void => {
    if (client !== this.#client) this.hint()
  }

  #run (): void {
    this.#hinted = false
    this.#lastStart = performance.now()
    this.#running = this.#once().finally(() => {
      this.#running = undefined
      if (this.#hinted) this.hint()
    })
  }

  /** Vacuums the pending changes at most every VACUUM_INTERVAL_MS, beside the runs (not delaying them). */
  #vacuumSoon (): void {
    if (this.#vacuuming || this.#closed || performance.now() - this.#lastVacuum < VACUUM_INTERVAL_MS) return
    this.#vacuuming = true
    this.#lastVacuum = performance.now()
    this.#pool.query(VACUUM).catch(this.#failed).finally(() => { this.#vacuuming = false })
  }

  async #once (): Promise<void> {
    let client: pg.PoolClient | undefined
    let broken: Error | undefined
    try {
      client = await this.#pool.connect()
      this.#client = client
      if (await drainChanges(client) > 0) {
        this.#numbered()
        this.#vacuumSoon()
      }
    } catch (err) {
      broken = err as Error
      this.#failed(err)
    } finally {
      client?.release(broken)
      this.#client = undefined
    }
  }
}
