import type pg from 'pg'
import { CHANGES_PRUNE_INTERVAL_MS, ChangePump, changeFromRow } from '../changes.js'
import { DEFAULT_CHANGES_RETENTION_MS, type CollectionDeclaration, type Change, type ChangeListener, type ChangeLog, type ChangeSubscription, type ChangeWindow, type RecordId } from '../../domain/index.js'
import { rethrow } from './errors.js'
import { ChangeSequencer } from './sequencer.js'
import { followedSomewhere, type Following, type PostgresListener } from './listener.js'
import { systemClock, type Clock } from '../../domain/index.js'

/** The channel the sequencer (migration 8, ./sequencer.ts) NOTIFYs after numbering changes. */
export const CHANGES_CHANNEL = 'rqs_changes'

/** The key (./listener.ts) a listening connection announces a followed feed with to every instance. */
export const FEED_FOLLOWED_LOCK = 1

/** The listening connection's name in pg_stat_activity (one per instance, ./listener.ts). */
export { LISTENER_APPLICATION_NAME } from './listener.js'

/**
 * How often a subscribed change log reads the table even without a
 * notification (ms). Notifications make the feed fast; this makes it complete
 * when one is lost (the listening connection checks itself, ./listener.ts).
 */
const CHECK_INTERVAL_MS = 10_000

interface Row {
  seq: bigint
  service: string
  kind: string
  record_id: bigint
  /** The id of a record of a collection with UUID ids (migration 7); null otherwise. */
  record_key: string | null
  record: Record<string, unknown> | null
  at: Date
}

const SINCE = { name: 'rqs-changes-since', text: 'SELECT seq, service, kind, record_id, record_key, record, at FROM rqs_changes WHERE seq > $1 ORDER BY seq LIMIT $2' }
// Seeks on the indexes of migration 10, newest first: integer ids by record_id, UUIDs by record_key.
const OF_RECORD = { name: 'rqs-changes-of-record', text: 'SELECT seq, service, kind, record_id, record_key, record, at FROM rqs_changes WHERE service = $1 AND record_id = $2 AND record_key IS NULL ORDER BY seq DESC LIMIT $3' }
const OF_KEYED_RECORD = { name: 'rqs-changes-of-keyed-record', text: 'SELECT seq, service, kind, record_id, record_key, record, at FROM rqs_changes WHERE service = $1 AND record_key = $2 ORDER BY seq DESC LIMIT $3' }
const WINDOW = {
  name: 'rqs-changes-window',
  text: 'SELECT COALESCE((SELECT min(seq) FROM rqs_changes), h.seq + 1) AS oldest, h.seq AS latest FROM rqs_change_head h'
}
// Oldest first, up to the first change still young enough ($1: the store clock's now
// minus the retention window): what is kept stays an unbroken run.
const PRUNE = {
  name: 'rqs-changes-prune',
  text: `DELETE FROM rqs_changes WHERE seq < COALESCE(
    (SELECT seq FROM rqs_changes WHERE at >= $1 ORDER BY seq LIMIT 1),
    (SELECT max(seq) + 1 FROM rqs_changes))`
}

export interface PostgresChangeLogOptions {
  /** The instance's listening connection (shared with the schema follower). */
  listener: PostgresListener
  retentionMs?: number
  clock?: Clock
  log?: { warn: (obj: object, msg: string) => void }
  /** The collections whose changes are read, by name: how each types its ids and fields. */
  declarations: ReadonlyMap<string, CollectionDeclaration>
}

/** The feed while someone subscribes: the pump, its channel on the listening connection, its periodic check. */
interface LiveFeed {
  pump: ChangePump
  following: Following
  checkTimer: NodeJS.Timeout
}

/**
 * The rqs_changes table, read through the pool. The triggers write changes
 * unnumbered; a ChangeSequencer numbers them after commit (migration 8), and
 * every read here numbers what has committed first, so a read sees every
 * change committed before it. While someone subscribes (and only then: an
 * instance nobody follows through it reads no change it is told of), the
 * instance's listening connection LISTENs on CHANGES_CHANNEL; every
 * notification (sent by whichever instance numbered changes) makes the
 * instance read the table from the last sequence number it delivered. A lost
 * connection is opened again, after which the table is read again, so
 * nothing committed meanwhile is missed. When the last subscriber leaves, the
 * channel is UNLISTENed; the next first subscriber starts from the latest
 * change then.
 */
export class PostgresChangeLog implements ChangeLog {
  readonly #pool: pg.Pool
  readonly #options: PostgresChangeLogOptions
  readonly #retentionMs: number
  readonly #clock: Clock
  readonly #pruneTimer: NodeJS.Timeout
  readonly #sequencer: ChangeSequencer
  #live: Promise<LiveFeed> | undefined
  #feedReads = 0
  #closed = false

  constructor (pool: pg.Pool, options: PostgresChangeLogOptions) {
    this.#pool = pool
    this.#options = options
    this.#retentionMs = options.retentionMs ?? DEFAULT_CHANGES_RETENTION_MS
    this.#clock = options.clock ?? systemClock
    this.#pruneTimer = setInterval(() => { void this.prune() }, CHANGES_PRUNE_INTERVAL_MS).unref()
    // Writes are numbered right after commit only while some instance's feed is followed; else by the next reader.
    this.#sequencer = new ChangeSequencer(pool, () => { if (!this.#closed) void this.#pumpIfLive() }, (err) => {
      options.log?.warn({ err }, 'change log: numbering new changes failed; trying again at the next write or read')
    }, { followed: async () => await followedSomewhere(pool, FEED_FOLLOWED_LOCK) })
  }

  /** How many reads of the table the feed made to deliver changes to subscribers (none while nobody subscribes). */
  get feedReads (): number {
    return this.#feedReads
  }

  async since (after: number, limit: number): Promise<Change[]> {
    try {
      await this.#sequencer.drain()
    } catch (err) { return rethrow(err) }
    return await this.#read(after, limit)
  }

  /**
   * The numbered changes after `after`. The pump reads with this alone: it
   * is woken after a sequencer run numbered changes (this instance's, or
   * another's NOTIFY), and its periodic check numbers first (#check).
   */
  async #read (after: number, limit: number): Promise<Change[]> {
    let rows: Row[]
    try {
      rows = (await this.#pool.query<Row>({ ...SINCE, values: [after, limit] })).rows
    } catch (err) { return rethrow(err) }
    return rows.map((row) => this.#change(row))
  }

  async ofRecord (collection: string, id: RecordId, limit: number): Promise<Change[]> {
    let rows: Row[]
    try {
      // Numbered first, as since() does: a change committed before this read is in it.
      await this.#sequencer.drain()
      const query = typeof id === 'string' ? OF_KEYED_RECORD : OF_RECORD
      rows = (await this.#pool.query<Row>({ ...query, values: [collection, typeof id === 'string' ? id : id.toString(), limit] })).rows
    } catch (err) { return rethrow(err) }
    return rows.map((row) => this.#change(row))
  }

  #change (row: Row): Change {
    return changeFromRow({ seq: Number(row.seq), service: row.service, kind: row.kind, recordId: row.record_key ?? row.record_id, fields: row.record, at: row.at }, this.#options.declarations)
  }

  async window (): Promise<ChangeWindow> {
    try {
      await this.#sequencer.drain()
      const row = (await this.#pool.query<{ oldest: bigint, latest: bigint }>(WINDOW)).rows[0] as { oldest: bigint, latest: bigint }
      return { oldest: Number(row.oldest), latest: Number(row.latest) }
    } catch (err) { return rethrow(err) }
  }

  async subscribe (listener: ChangeListener): Promise<ChangeSubscription> {
    const live = this.#live ??= this.#start()
    let feed: LiveFeed
    try {
      feed = await live
    } catch (err) {
      if (this.#live === live) this.#live = undefined
      throw err
    }
    const subscription = feed.pump.subscribe(listener)
    return {
      position: subscription.position,
      unsubscribe: () => {
        subscription.unsubscribe()
        if (!feed.pump.listening && this.#live === live) {
          this.#live = undefined
          this.#sequencer.follow(false)
          void this.#stop(feed)
        }
      }
    }
  }

  /**
   * Deletes the changes older than the retention window (also run once a
   * minute). Numbers what is pending first: nobody following, writes leave
   * their changes pending, and this keeps them from piling up unnumbered
   * (and unpruned) for longer than a minute.
   */
  async prune (): Promise<void> {
    try {
      await this.#sequencer.drain()
      await this.#pool.query({ ...PRUNE, values: [new Date(this.#clock.now() - this.#retentionMs)] })
    } catch (err) {
      this.#options.log?.warn({ err }, 'change log: pruning old changes failed; trying again in a minute')
    }
  }

  async close (): Promise<void> {
    this.#closed = true
    clearInterval(this.#pruneTimer)
    await this.#sequencer.close()
    const live = this.#live
    this.#live = undefined
    const feed = await live?.catch(() => undefined)
    if (feed !== undefined) await this.#stop(feed)
  }

  async #start (): Promise<LiveFeed> {
    let pump: ChangePump | undefined
    let woken = false
    // A notification while the position is read is not lost: the pump reads once it exists.
    const wake = (): void => { if (pump === undefined) woken = true; else void pump.pump() }
    // Listen first, then read the position: a change committed in between is in both, and delivered once.
    // `reopened`: whatever was committed while the connection was away, numbered first (without this
    // instance's lock meanwhile, the others may have left their writes unnumbered).
    const reopened = (): void => { if (pump === undefined) woken = true; else this.#check(pump) }
    // The lock tells the other instances to number their writes right after commit while this feed lives.
    const following = await this.#options.listener.follow(CHANGES_CHANNEL, { notified: wake, reopened, lock: FEED_FOLLOWED_LOCK })
    this.#sequencer.follow(true)
    try {
      pump = new ChangePump(async (after, limit) => { this.#feedReads++; return await this.#read(after, limit) }, (await this.window()).latest, (err) => {
        this.#options.log?.warn({ err }, 'change feed: reading new changes failed; trying again at the next notification or check')
      })
    } catch (err) {
      this.#sequencer.follow(false)
      await following.stop()
      throw err
    }
    const live = pump
    if (woken) void live.pump()
    const checkTimer = setInterval(() => { this.#check(live) }, CHECK_INTERVAL_MS).unref()
    return { pump, following, checkTimer }
  }

  async #stop (feed: LiveFeed): Promise<void> {
    clearInterval(feed.checkTimer)
    await feed.following.stop()
  }

  async #pumpIfLive (): Promise<void> {
    const feed = await this.#live?.catch(() => undefined)
    await feed?.pump.pump()
  }

  /** Numbers and reads the table in case a notification or a sequencer run was missed. */
  #check (pump: ChangePump): void {
    // Numbers what no sequencer run has (its writer's instance ended between commit and run), then reads.
    void this.#sequencer.drain().catch((err: unknown) => {
      this.#options.log?.warn({ err }, 'change log: numbering new changes failed; trying again at the next write or read')
    }).then(async () => { await pump.pump() })
  }
}
