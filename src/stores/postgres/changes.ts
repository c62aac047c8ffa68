import pg from 'pg'
import { CHANGES_PRUNE_INTERVAL_MS, ChangePump, changeFromRow } from '../changes.js'
import { DEFAULT_CHANGES_RETENTION_MS, type CollectionDeclaration, type Change, type ChangeListener, type ChangeLog, type ChangeSubscription, type ChangeWindow, type RecordId } from '../../domain/index.js'
import { rethrow } from './errors.js'
import { ChangeSequencer } from './sequencer.js'
import { systemClock, type Clock } from '../../domain/index.js'

/** The channel the sequencer (migration 8, ./sequencer.ts) NOTIFYs after numbering changes. */
export const CHANGES_CHANNEL = 'rqs_changes'

/** The listening connection's name in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = 'rqs-changes'

/**
 * How often the change log reads the table even without a notification, and
 * checks that its listening connection still answers (ms). Notifications make
 * the feed fast; this makes it complete when a connection dies silently.
 */
const CHECK_INTERVAL_MS = 10_000
const FIRST_RECONNECT_MS = 100
const MAX_RECONNECT_MS = 5_000

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
  /** For the dedicated listening connection. */
  url: string
  connectTimeoutMs: number
  retentionMs?: number
  clock?: Clock
  log?: { warn: (obj: object, msg: string) => void }
  /** The collections whose changes are read, by name: how each types its ids and fields. */
  declarations: ReadonlyMap<string, CollectionDeclaration>
}

/**
 * The rqs_changes table, read through the pool. The triggers write changes
 * unnumbered; a ChangeSequencer numbers them after commit (migration 8), and
 * every read here numbers what has committed first, so a read sees every
 * change committed before it. Once someone subscribes, one dedicated
 * connection per instance LISTENs on CHANGES_CHANNEL; every notification
 * (sent by whichever instance numbered changes) makes the instance read the
 * table from the last sequence number it delivered. A lost connection is
 * opened again, after which the table is read again, so nothing committed
 * meanwhile is missed.
 */
export class PostgresChangeLog implements ChangeLog {
  readonly #pool: pg.Pool
  readonly #options: PostgresChangeLogOptions
  readonly #retentionMs: number
  readonly #clock: Clock
  readonly #pruneTimer: NodeJS.Timeout
  readonly #sequencer: ChangeSequencer
  #started: Promise<ChangePump> | undefined
  #checkTimer: NodeJS.Timeout | undefined
  #reconnectTimer: NodeJS.Timeout | undefined
  #listener: pg.Client | undefined
  /** A listening connection being opened. */
  #connecting: pg.Client | undefined
  #reconnectMs = FIRST_RECONNECT_MS
  #closed = false

  constructor (pool: pg.Pool, options: PostgresChangeLogOptions) {
    this.#pool = pool
    this.#options = options
    this.#retentionMs = options.retentionMs ?? DEFAULT_CHANGES_RETENTION_MS
    this.#clock = options.clock ?? systemClock
    this.#pruneTimer = setInterval(() => { void this.prune() }, CHANGES_PRUNE_INTERVAL_MS).unref()
    this.#sequencer = new ChangeSequencer(pool, () => { if (!this.#closed) void this.#pumpIfStarted() }, (err) => {
      options.log?.warn({ err }, 'change log: numbering new changes failed; trying again at the next write or read')
    })
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
    this.#started ??= this.#start()
    try {
      return (await this.#started).subscribe(listener)
    } catch (err) {
      this.#started = undefined
      throw err
    }
  }

  /** Deletes the changes older than the retention window (also run once a minute). */
  async prune (): Promise<void> {
    try {
      await this.#pool.query({ ...PRUNE, values: [new Date(this.#clock.now() - this.#retentionMs)] })
    } catch (err) {
      this.#options.log?.warn({ err }, 'change log: pruning old changes failed; trying again in a minute')
    }
  }

  async close (): Promise<void> {
    this.#closed = true
    clearInterval(this.#pruneTimer)
    clearInterval(this.#checkTimer)
    clearTimeout(this.#reconnectTimer)
    await this.#sequencer.close()
    const clients = [this.#listener, this.#connecting]
    this.#listener = undefined
    this.#connecting = undefined
    await Promise.all(clients.map(async (client) => { if (client !== undefined) await endListener(client) }))
  }

  async #start (): Promise<ChangePump> {
    // Listen first, then read the position: a change committed in between is in both, and delivered once.
    await this.#listen()
    const pump = new ChangePump(async (after, limit) => await this.#read(after, limit), (await this.window()).latest, (err) => {
      this.#options.log?.warn({ err }, 'change feed: reading new changes failed; trying again at the next notification or check')
    })
    this.#checkTimer = setInterval(() => { void this.#check(pump) }, CHECK_INTERVAL_MS).unref()
    return pump
  }

  /** Opens the listening connection; on failure, schedules another attempt. */
  async #listen (): Promise<void> {
    const client = new pg.Client({
      connectionString: this.#options.url,
      connectionTimeoutMillis: this.#options.connectTimeoutMs,
      query_timeout: this.#options.connectTimeoutMs,
      keepAlive: true,
      keepAliveInitialDelayMillis: CHECK_INTERVAL_MS,
      application_name: LISTENER_APPLICATION_NAME
    })
    this.#connecting = client
    client.on('error', () => { this.#lost(client) })
    client.on('end', () => { this.#lost(client) })
    client.on('notification', () => { void this.#pumpIfStarted() })
    try {
      await client.connect()
      await client.query(`LISTEN ${CHANGES_CHANNEL}`)
    } catch (err) {
      this.#options.log?.warn({ err }, 'change feed: cannot LISTEN for changes; retrying')
      this.#lost(client)
      return
    }
    if (this.#connecting !== client) return // lost while connecting
    this.#connecting = undefined
    if (this.#closed) { await client.end().catch(() => {}); return }
    this.#listener = client
    this.#reconnectMs = FIRST_RECONNECT_MS
    // Whatever was committed while nobody listened (not awaited: #start may be waiting for this call).
    void this.#pumpIfStarted()
  }

  /** `client` failed or ended: forget it and, unless closing, open another after a growing pause. */
  #lost (client: pg.Client): void {
    if (client === this.#listener) {
      this.#listener = undefined
      this.#options.log?.warn({}, 'change feed: lost the LISTEN connection; reconnecting')
    } else if (client === this.#connecting) {
      this.#connecting = undefined
    } else {
      return // already forgotten
    }
    void endListener(client)
    if (this.#closed) return
    const delay = this.#reconnectMs
    this.#reconnectMs = Math.min(this.#reconnectMs * 2, MAX_RECONNECT_MS)
    this.#reconnectTimer = setTimeout(() => { void this.#listen() }, delay)
    this.#reconnectTimer.unref()
  }

  async #pumpIfStarted (): Promise<void> {
    const pump = await this.#started?.catch(() => undefined)
    await pump?.pump()
  }

  /** Reads the table in case a notification or a sequencer run was missed, and checks the listening connection answers. */
  async #check (pump: ChangePump): Promise<void> {
    // Numbers what no sequencer run has (its writer's instance ended between commit and run), then reads.
    void this.#sequencer.drain().catch((err: unknown) => {
      this.#options.log?.warn({ err }, 'change log: numbering new changes failed; trying again at the next write or read')
    }).then(async () => { await pump.pump() })
    const listener = this.#listener
    if (listener === undefined) return
    try {
      await listener.query('SELECT 1')
    } catch {
      this.#lost(listener)
    }
  }
}

/**
 * Ends a listening connection: politely, but a connection whose network froze
 * would wait for the server's goodbye forever (and keep the process from
 * exiting), so after a moment its socket is closed outright.
 */
async function endListener (client: pg.Client): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const gaveUp = new Promise<'timeout'>((resolve) => { timer = setTimeout(() => { resolve('timeout') }, 1000) })
  const outcome = await Promise.race([client.end().then(() => 'ended' as const, () => 'ended' as const), gaveUp])
  clearTimeout(timer)
  if (outcome === 'timeout') client.connection.stream.destroy()
}
