import type Database from 'better-sqlite3'

interface Pending {
  write: () => unknown
  resolve: (value: unknown) => void
  reject: (err: unknown) => void
  /** A unit of work (exclusive): runs alone, in a turn of its own, in its own transaction. */
  unit?: () => Promise<unknown>
  /** Committed without waiting for the disk, if every write of its group may be (see `run`). */
  unsynced?: true
}

/** How a write is committed. */
export interface WriteOptions {
  /**
   * false: the write may be lost by a crash of the machine (never by a crash
   * of the process) if nothing synced after it, so its group's COMMIT does
   * not wait for the disk when every write of the group says so. For what is
   * redone when lost: the webhooks' leases, attempt outcomes and deliveries
   * queued from the change log (a lost one is attempted or queued again). WAL
   * frames reach the disk in order: the next synced commit syncs these too,
   * and a crash loses only a tail of commits, never one from the middle.
   */
  durable?: boolean
}

/**
 * Group commit for one connection (issue 20). Every write the stores make is
 * queued here; the writes queued during one turn of the event loop (a poll
 * phase's worth of requests, and whatever their handlers queue before the
 * check phase) run, in arrival order, inside one BEGIN IMMEDIATE … COMMIT:
 * one write lock, one WAL sync for the lot instead of one each.
 *
 * Each write runs in its own savepoint (the stores' better-sqlite3
 * transaction functions nest as SAVEPOINTs inside an open transaction), so
 * one that throws — a precondition, a used idempotency key, a constraint — is
 * undone alone and gets its own error, and the next write sees the file as
 * if it had run right after the ones before it. Nobody is answered before
 * COMMIT returns: an acknowledged write is synced (synchronous = FULL); a
 * group of `durable: false` writes alone commits with synchronous = NORMAL
 * instead (see WriteOptions). If the group cannot commit (or SQLite rolls the whole transaction back, as it
 * may on a full disk or an I/O error), every write of the group not already
 * failed gets that error: nothing of the group is acknowledged, nothing was
 * kept.
 *
 * The group runs synchronously on the event loop, as a single write did, so
 * nothing else touches the connection meanwhile.
 */
export class GroupCommit {
  readonly #db: Database.Database
  #queue: Pending[] = []
  #scheduled = false
  #paused = false
  /** A unit of work holds the connection's transaction. */
  #busy = false
  /** Units of work in the queue (none: a flush need not look for one). */
  #units = 0

  constructor (db: Database.Database) {
    this.#db = db
  }

  /** Runs `write` (synchronous, on this connection) in the next group; settles once the group committed. */
  async run<R> (write: () => R, options?: WriteOptions): Promise<R> {
    return await new Promise<R>((resolve, reject) => {
      const pending: Pending = { write, resolve: resolve as (value: unknown) => void, reject }
      if (options?.durable === false) pending.unsynced = true
      this.#queue.push(pending)
      if (!this.#scheduled) {
        this.#scheduled = true
        setImmediate(() => { this.#flush() })
      }
    })
  }

  /**
   * Queues a unit of work (RecordStores.atomically): `unit` opens its own
   * transaction and settles it within the turn it starts in (see runUnit).
   * It starts at the beginning of a turn of its own, after the writes queued
   * before it committed and before those queued after it, so no other
   * request's code runs while its transaction is open.
   */
  async exclusive<R> (unit: () => Promise<R>): Promise<R> {
    return await new Promise<R>((resolve, reject) => {
      this.#queue.push({ write: () => undefined, unit, resolve: resolve as (value: unknown) => void, reject })
      this.#units++
      this.#schedule()
    })
  }

  #schedule (): void {
    if (this.#scheduled || this.#busy) return
    this.#scheduled = true
    setImmediate(() => { this.#flush() })
  }

  /**
   * Holds the writes back (they queue; reads and the event loop go on) until
   * `resume`: the checkpointer needs a moment without writes to finish the
   * WAL, so that the next write starts it again from the top.
   */
  pause (): void {
    this.#paused = true
  }

  resume (): void {
    this.#paused = false
    if (this.#queue.length > 0 && !this.#scheduled) {
      this.#scheduled = true
      setImmediate(() => { this.#flush() })
    }
  }

  #flush (): void {
    this.#scheduled = false
    if (this.#paused || this.#busy) return
    const first = this.#queue[0]
    if (first?.unit !== undefined) {
      this.#queue.shift()
      this.#units--
      this.#busy = true
      first.unit().then(first.resolve, first.reject).finally(() => {
        this.#busy = false
        if (this.#queue.length > 0 && !this.#paused) this.#schedule()
      })
      return
    }
    // The writes up to the next unit of work; the unit and what follows it in a turn of their own.
    const until = this.#units === 0 ? -1 : this.#queue.findIndex((p) => p.unit !== undefined)
    const group = until < 0 ? this.#queue : this.#queue.slice(0, until)
    this.#queue = until < 0 ? [] : this.#queue.slice(until)
    if (this.#queue.length > 0) this.#schedule()
    const db = this.#db
    const outcomes: Array<{ ok: true, value: unknown } | { ok: false, err: unknown }> = []
    const unsynced = group.every((p) => p.unsynced === true)
    try {
      // NORMAL only for this group (the stores open the connection FULL). Not a prepared statement: SQLite applies this pragma as it compiles it.
      if (unsynced) db.exec('PRAGMA synchronous = NORMAL')
      db.exec('BEGIN IMMEDIATE')
    } catch (err) {
      if (unsynced) this.#resync()
      for (const p of group) p.reject(err)
      return
    }
    try {
      for (const p of group) {
        try {
          outcomes.push({ ok: true, value: p.write() })
        } catch (err) {
          outcomes.push({ ok: false, err })
          // SQLite ended the whole transaction (SQLITE_FULL, an I/O error …): what ran before it is gone too.
          if (!db.inTransaction) throw err
        }
      }
      db.exec('COMMIT')
    } catch (err) {
      if (db.open && db.inTransaction) {
        try { db.exec('ROLLBACK') } catch { /* the transaction is gone either way */ }
      }
      if (unsynced) this.#resync()
      group.forEach((p, i) => {
        const o = outcomes[i]
        p.reject(o !== undefined && !o.ok ? o.err : err)
      })
      return
    }
    if (unsynced) this.#resync()
    group.forEach((p, i) => {
      const o = outcomes[i]!
      if (o.ok) p.resolve(o.value)
      else p.reject(o.err)
    })
  }

  /** Back to synced commits; a connection that cannot even set it (closed) has no commit left to sync. */
  #resync (): void {
    try { this.#db.exec('PRAGMA synchronous = FULL') } catch { /* closed */ }
  }
}
