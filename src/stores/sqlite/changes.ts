import type { Database, Statement } from 'better-sqlite3'
import { CHANGES_PRUNE_INTERVAL_MS, ChangePump, changeFromRow } from '../changes.js'
import { DEFAULT_CHANGES_RETENTION_MS, type Change, type CollectionDeclaration, type ChangeListener, type ChangeLog, type ChangeSubscription, type ChangeWindow, type RecordId } from '../../domain/index.js'
import { rethrow } from './errors.js'
import { systemClock, type Clock } from '../../domain/index.js'

/** How often a process with subscribers looks for new changes (ms): the feed's latency bound across processes. */
export const SQLITE_CHANGES_POLL_MS = 50

interface Row {
  seq: bigint
  service: string
  kind: string
  /** An integer, or text for UUID ids (the column's affinity keeps text that is no number as text). */
  record_id: bigint | string
  record: string | null
  at: bigint
}

/**
 * The rqs_changes table (filled by each collection's triggers, see ./collections.ts). Several
 * processes may share the file and SQLite has no notifications between them,
 * so while anyone listens (only then) this process looks every SQLITE_CHANGES_POLL_MS
 * whether the file changed (PRAGMA data_version: another connection committed;
 * total_changes(): this connection wrote), two reads of counters that touch no
 * table, and reads the table only then, from the last sequence number it
 * delivered: its own writes and every other process's arrive the same way. Changes older than
 * the retention window are deleted once a minute, oldest first, so what is
 * kept is always an unbroken run of sequence numbers.
 */
export class SqliteChangeLog implements ChangeLog {
  readonly #since: Statement<[bigint, number], Row>
  readonly #window: Statement<[], { oldest: bigint, latest: bigint }>
  readonly #ofRecord: Statement<[string, bigint | string, number], Row>
  readonly #prune: Statement<[number]>
  readonly #retentionMs: number
  readonly #clock: Clock
  readonly #onError: (err: unknown) => void
  #pump: ChangePump | undefined
  #feedReads = 0
  #poll: NodeJS.Timeout | undefined
  /** Whether the file changed since the last look: data_version (other connections' commits) and total_changes() (this one's writes). */
  readonly #dataVersion: Statement<[], number>
  readonly #totalChanges: Statement<[], number>
  /** The counters at the last read of the table; '' forces a read (at the start, and after a failed one). */
  #seen = ''
  readonly #pruneTimer: NodeJS.Timeout

  readonly #declarations: ReadonlyMap<string, CollectionDeclaration>

  /** `declarations` types each change's id and fields by its collection (see changeFromRow). */
  constructor (db: Database, declarations: ReadonlyMap<string, CollectionDeclaration>, retentionMs = DEFAULT_CHANGES_RETENTION_MS, clock: Clock = systemClock, onError: (err: unknown) => void = () => {}) {
    this.#declarations = declarations
    this.#retentionMs = retentionMs
    this.#clock = clock
    this.#onError = (err) => {
      this.#seen = '' // read again at the next look: a failed read delivered nothing
      onError(err)
    }
    this.#dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck()
    this.#totalChanges = db.prepare<[], number>('SELECT total_changes()').pluck()
    this.#since = db.prepare<[bigint, number], Row>('SELECT seq, service, kind, record_id, record, at FROM rqs_changes WHERE seq > ? ORDER BY seq LIMIT ?').safeIntegers(true)
    // A seek on the index of migration 8 (service, record_id, seq), newest first.
    this.#ofRecord = db.prepare<[string, bigint | string, number], Row>('SELECT seq, service, kind, record_id, record, at FROM rqs_changes WHERE service = ? AND record_id = ? ORDER BY seq DESC LIMIT ?').safeIntegers(true)
    this.#window = db.prepare<[], { oldest: bigint, latest: bigint }>(`
      SELECT COALESCE((SELECT MIN(seq) FROM rqs_changes), latest + 1) AS oldest, latest
      FROM (SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'rqs_changes'), 0) AS latest)`).safeIntegers(true)
    // Oldest first, up to the first change still young enough: the rest stays an unbroken run.
    this.#prune = db.prepare<[number]>(`DELETE FROM rqs_changes WHERE seq < COALESCE(
      (SELECT seq FROM rqs_changes WHERE at >= ? ORDER BY seq LIMIT 1), (SELECT MAX(seq) + 1 FROM rqs_changes))`)
    this.#pruneTimer = setInterval(() => { this.prune() }, CHANGES_PRUNE_INTERVAL_MS).unref()
  }

  async since (after: number, limit: number): Promise<Change[]> {
    return this.#read(after, limit)
  }

  async ofRecord (collection: string, id: RecordId, limit: number): Promise<Change[]> {
    try {
      return this.#ofRecord.all(collection, typeof id === 'string' ? id : BigInt(id), limit).map((row) => this.#change(row))
    } catch (err) { return rethrow(err) }
  }

  async window (): Promise<ChangeWindow> {
    try {
      const { oldest, latest } = this.#window.get() as { oldest: bigint, latest: bigint }
      return { oldest: Number(oldest), latest: Number(latest) }
    } catch (err) { return rethrow(err) }
  }

  /** How many reads of the table the feed made to deliver changes to subscribers (none while nobody subscribes). */
  get feedReads (): number {
    return this.#feedReads
  }

  async subscribe (listener: ChangeListener): Promise<ChangeSubscription> {
    if (this.#pump === undefined) {
      const pump = new ChangePump(async (after, limit) => { this.#feedReads++; return this.#read(after, limit) }, (await this.window()).latest, this.#onError)
      // Another subscribe may have started the feed while the position was read.
      this.#pump ??= pump
    }
    const pump = this.#pump
    const subscription = pump.subscribe(listener)
    if (this.#poll === undefined) {
      this.#seen = ''
      this.#poll = setInterval(() => {
        if (pump.listening && this.#changed()) void pump.pump()
      }, SQLITE_CHANGES_POLL_MS).unref()
    }
    return {
      position: subscription.position,
      unsubscribe: () => {
        subscription.unsubscribe()
        // The last one gone: no more looking; the next first subscriber starts from the latest change then.
        if (!pump.listening && this.#pump === pump) {
          clearInterval(this.#poll)
          this.#poll = undefined
          this.#pump = undefined
        }
      }
    }
  }

  /** True when the file changed since the last look (a pruning counts too: one needless read a minute). */
  #changed (): boolean {
    let now: string
    try { now = `${this.#dataVersion.get() ?? 0}:${this.#totalChanges.get() ?? 0}` } catch { return true }
    if (now === this.#seen) return false
    this.#seen = now
    return true
  }

  /** Deletes the changes older than the retention window (also run once a minute). */
  prune (): void {
    try { this.#prune.run(this.#clock.now() - this.#retentionMs) } catch (err) { this.#onError(err) }
  }

  close (): void {
    clearInterval(this.#pruneTimer)
    clearInterval(this.#poll)
  }

  #read (after: number, limit: number): Change[] {
    try {
      return this.#since.all(BigInt(after), limit).map((row) => this.#change(row))
    } catch (err) { return rethrow(err) }
  }

  #change (row: Row): Change {
    return changeFromRow({
      seq: Number(row.seq),
      service: row.service,
      kind: row.kind,
      recordId: row.record_id,
      fields: row.record === null ? null : JSON.parse(row.record) as Record<string, unknown>,
      at: new Date(Number(row.at))
    }, this.#declarations)
  }
}
