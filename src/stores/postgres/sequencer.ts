import type pg from 'pg'

/**
 * Numbers the committed changes of rqs_pending_changes (migration 8): calls
 * rqs_number_changes, which moves them into rqs_changes under the head's row
 * lock, in a short transaction of its own, and NOTIFYs the listeners of every
 * instance. Writes do not number their changes, so that concurrent commits
 * never wait for each other (issue 20); someone must number them after:
 *
 * - this instance, shortly after any of its connections went back to the
 *   pool (`hint`): a write may just have committed. Only while some instance's
 *   feed is followed (ChangeSequencer below): nobody following, nobody waits
 *   for the numbers. Runs are throttled to one per HINT_INTERVAL_MS, so a busy
 *   instance numbers in batches;
 * - a reader, before it reads (`drain` in since/window, and a subscribed
 *   instance every 10 s): what committed before the read is numbered and
 *   seen, even if the writer's instance died between its commit and its
 *   sequencer run (or the write was made outside rqs, e.g. in psql);
 * - `rqs import`, right after its commit (./import.ts);
 * - the change log's prune, once a minute, so that changes nobody read stay
 *   pending a minute at most (./changes.ts).
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

/**
 * How often (ms), at most, an instance that writes but has no subscriber of
 * its own asks whether another instance's feed is followed (the listening
 * connections' shared advisory lock, ./listener.ts): that long at most, a
 * subscriber on another instance waits for this one's first changes.
 */
export const FOLLOWED_CHECK_MS = 1000

export interface SequencerOptions {
  /**
   * Whether some instance's feed is followed now (any instance, this one
   * included). Asked only while this instance writes and has no subscriber of
   * its own. A failure leaves the last answer standing and is asked again a
   * second later: counting it as followed would start a run after every
   * statement while the database is away, each holding a connection of the
   * pool that the requests need (numbering late is always correct).
   */
  followed?: () => Promise<boolean>
}

/**
 * Numbers eagerly (a run after each write, ./hint) only while the feed is
 * followed somewhere: by this instance (`follow(true)`, told by the change
 * log) or by another one (`followed`, asked at most every
 * FOLLOWED_CHECK_MS while this instance writes). Nobody following, the
 * changes stay pending, durable since their writes' commits, and whoever
 * reads the log later numbers them first (`drain`), in the same key order an
 * eager run would have used: the feed stays gapless and ordered, it is only
 * numbered later.
 */
export class ChangeSequencer {
  readonly #pool: pg.Pool
  readonly #numbered: () => void
  readonly #failed: (err: unknown) => void
  readonly #followed: (() => Promise<boolean>) | undefined
  /** The connection a hinted run holds: its own release is no hint. */
  #client: pg.PoolClient | undefined
  #running: Promise<void> | undefined
  #timer: NodeJS.Timeout | undefined
  #hinted = false
  #lastStart = -Infinity
  #lastVacuum = -Infinity
  #vacuuming: Promise<void> | undefined
  /** Followed through this instance's change log. */
  #here = false
  /** Followed elsewhere, as last asked (#lastAsked); undefined while asking the first time. */
  #elsewhere = false
  #lastAsked = -Infinity
  #asking: Promise<void> | undefined
  #askTimer: NodeJS.Timeout | undefined
  /** Written while nobody was known to follow: to number if someone turns out to. */
  #unnumbered = false
  #closing = false

  /**
   * `numbered`: called after a run numbered changes (the instance's own pump
   * reads them at once instead of waiting for its NOTIFY). `failed`: a hinted
   * run failed; the next hint or reader tries again. Without
   * `options.followed` every write is numbered eagerly, as before.
   */
  constructor (pool: pg.Pool, numbered: () => void, failed: (err: unknown) => void, options: SequencerOptions = {}) {
    this.#pool = pool
    this.#numbered = numbered
    this.#failed = failed
    this.#followed = options.followed
    pool.on('release', this.#onRelease)
  }

  /** Whether writes are numbered right after they commit (someone follows the feed, here or elsewhere). */
  get eager (): boolean {
    return this.#followed === undefined || this.#here || this.#elsewhere
  }

  /** This instance's feed is followed (true) or no longer (false): its writes are numbered eagerly while it is. */
  follow (here: boolean): void {
    this.#here = here
    if (here && this.#unnumbered) this.hint()
  }

  /** Numbers everything committed so far (readers call this before reading). */
  async drain (): Promise<void> {
    if (await drainChanges(this.#pool) > 0) {
      this.#numbered()
      // Nobody following, readers and the prune do most numbering: they leave dead pending rows too.
      this.#vacuumSoon()
    }
  }

  /** Something may have committed: run soon (at most one run in flight, one per HINT_INTERVAL_MS), if someone follows. */
  hint (): void {
    if (this.#closing) return
    if (!this.eager) {
      this.#unnumbered = true
      this.#askSoon()
      return
    }
    // Followed elsewhere only: ask again now and then, to stop numbering eagerly once nobody is.
    if (!this.#here && this.#followed !== undefined) this.#askSoon()
    this.#unnumbered = false
    this.#hinted = true
    if (this.#running !== undefined || this.#timer !== undefined) return
    const wait = this.#lastStart + HINT_INTERVAL_MS - performance.now()
    if (wait <= 0) { this.#run(); return }
    this.#timer = setTimeout(() => { this.#timer = undefined; this.#run() }, wait)
    this.#timer.unref()
  }

  /**
   * Stops hinted runs after numbering what a last hint left (a short-lived
   * process's writes get numbered before it exits while someone follows),
   * and waits for whatever runs, so that the pool can end after it: no run,
   * vacuum or question starts on an ended pool.
   */
  async close (): Promise<void> {
    this.#closing = true
    this.#pool.off('release', this.#onRelease)
    clearTimeout(this.#timer)
    this.#timer = undefined
    clearTimeout(this.#askTimer)
    this.#askTimer = undefined
    // A run's end starts no other once closing; a last hint is numbered here, once.
    while (this.#running !== undefined) await this.#running
    if (this.#hinted) {
      this.#hinted = false
      this.#running = this.#once().finally(() => { this.#running = undefined })
      await this.#running
    }
    await this.#vacuuming
    await this.#asking
  }

  /**
   * A connection back in the pool: a write may have committed on it. One
   * released with an error is no hint: its statement failed, most often
   * because the database is away, and a run then would only take a
   * connection from the requests. Whatever did commit on it is numbered by
   * the next hint or reader.
   */
  readonly #onRelease = (err: Error | undefined, client: pg.PoolClient): void => {
    if (err == null && client !== this.#client) this.hint() // pg-pool passes null after a statement that succeeded
  }

  #run (): void {
    this.#hinted = false
    this.#lastStart = performance.now()
    this.#running = this.#once().finally(() => {
      this.#running = undefined
      if (this.#hinted && !this.#closing) this.hint()
    })
  }

  /** Asks whether the feed is followed elsewhere, at most every FOLLOWED_CHECK_MS; numbers what was left if it is. */
  #askSoon (): void {
    if (this.#asking !== undefined || this.#askTimer !== undefined || this.#closing) return
    const wait = this.#lastAsked + FOLLOWED_CHECK_MS - performance.now()
    if (wait > 0) {
      this.#askTimer = setTimeout(() => { this.#askTimer = undefined; this.#askSoon() }, wait)
      this.#askTimer.unref()
      return
    }
    const followed = this.#followed
    if (followed === undefined) return
    this.#lastAsked = performance.now()
    this.#asking = followed().catch((err: unknown) => {
      this.#failed(err)
      return this.#elsewhere
    }).then((elsewhere) => {
      this.#elsewhere = elsewhere
      this.#asking = undefined
      if (elsewhere && this.#unnumbered && !this.#closing) this.hint()
    })
  }

  /** Vacuums the pending changes at most every VACUUM_INTERVAL_MS, beside the runs (not delaying them). */
  #vacuumSoon (): void {
    if (this.#vacuuming !== undefined || this.#closing || performance.now() - this.#lastVacuum < VACUUM_INTERVAL_MS) return
    this.#lastVacuum = performance.now()
    this.#vacuuming = this.#pool.query(VACUUM).then(() => {}, this.#failed).finally(() => { this.#vacuuming = undefined })
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
