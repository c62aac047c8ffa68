import pg from 'pg'

/**
 * One listening connection per instance, shared by whatever follows a
 * channel (the change feed, the schema follower): it LISTENs on the channels
 * someone follows now, UNLISTENs a channel nobody follows any more (the
 * database then sends this connection nothing for it), and ends when no
 * channel is left. A connection lost (killed, network gone, silently dead:
 * a periodic `SELECT 1` finds out) is opened again after a growing pause,
 * and every channel's `reopened` is called once it listens again: whatever
 * was announced meanwhile is the follower's to read.
 *
 * A follower may also announce itself to the other instances (`lock`): the
 * connection holds a shared advisory lock of that key while the channel is
 * followed, which `followedSomewhere` sees from any connection. Being held by
 * the session, it goes with the connection: an instance that died announces
 * nothing.
 */

/** The listening connection's name in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = 'rqs-listen'

/** How often the connection is checked to answer (ms); a dead one is replaced. */
const CHECK_INTERVAL_MS = 2000
const FIRST_RECONNECT_MS = 100
const MAX_RECONNECT_MS = 5000

/** The first key of the advisory locks followers announce themselves with (`rqs\0`); the second is the follower's `lock`. */
export const FOLLOW_LOCK_CLASS = 0x72717300

const LOCK = 'SELECT pg_advisory_lock_shared($1::int, $2::int)'
const UNLOCK = 'SELECT pg_advisory_unlock_shared($1::int, $2::int)'
// Advisory locks of the two-integer form show as classid, objid and objsubid 2, per database.
const FOLLOWED = {
  name: 'rqs-followed-somewhere',
  text: `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND classid = $1::int::oid AND objid = $2::int::oid
    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())) AS followed`
}

/** Whether some connection to this database (any instance's listening one) announces a follower of `lock`. */
export async function followedSomewhere (client: pg.ClientBase | pg.Pool, lock: number): Promise<boolean> {
  const result = await client.query<{ followed: boolean }>({ ...FOLLOWED, values: [FOLLOW_LOCK_CLASS, lock] })
  return result.rows[0]?.followed === true
}

export interface ListenerOptions {
  url: string
  connectTimeoutMs: number
  log?: { warn: (obj: object, msg: string) => void }
}

export interface ChannelFollower {
  /** A notification on the channel. */
  notified: () => void
  /** The connection listens (again) after it was missing: what was announced meanwhile was missed. */
  reopened: () => void
  /** Announced to every instance while followed: a shared advisory lock (FOLLOW_LOCK_CLASS, lock) on the connection. */
  lock?: number
}

/** A channel followed: `stop` UNLISTENs it (and ends the connection when it was the last). */
export interface Following {
  stop: () => Promise<void>
}

export class PostgresListener {
  readonly #options: ListenerOptions
  readonly #channels = new Map<string, ChannelFollower>()
  #client: pg.Client | undefined
  /** The connection being opened, and the attempt's promise. */
  #connecting: { client: pg.Client, done: Promise<void> } | undefined
  #checkTimer: NodeJS.Timeout | undefined
  #reconnectTimer: NodeJS.Timeout | undefined
  #reconnectMs = FIRST_RECONNECT_MS
  /** The locks the connection (#client, or the one being opened) holds now, one each. */
  #locked = new Set<number>()
  #closed = false

  constructor (options: ListenerOptions) {
    this.#options = options
  }

  /** The channels LISTENed on now (for tests and diagnostics). */
  get channels (): string[] {
    return this.#client === undefined ? [] : [...this.#channels.keys()]
  }

  /**
   * Follows `channel`: resolves once the connection LISTENs on it, or once
   * an attempt to open it failed (another is scheduled; `reopened` is called
   * when it succeeds).
   */
  async follow (channel: string, follower: ChannelFollower): Promise<Following> {
    // A channel followed again before the last follower's stop ran: the new follower takes it over (that stop does nothing).
    this.#channels.set(channel, follower)
    const stop = async (): Promise<void> => {
      if (this.#channels.get(channel) !== follower) return
      this.#channels.delete(channel)
      if (this.#channels.size === 0) { await this.#end(); return }
      const client = this.#client
      await client?.query(`UNLISTEN ${channel}`).catch(() => {}) // a dead connection listens to nothing
      if (follower.lock !== undefined && client !== undefined && client === this.#client && this.#locked.delete(follower.lock)) {
        await client.query(UNLOCK, [FOLLOW_LOCK_CLASS, follower.lock]).catch(() => {})
      }
    }
    if (this.#closed) return { stop }
    const client = this.#client
    if (client !== undefined) {
      try {
        await client.query(`LISTEN ${channel}`)
        await this.#announce(client, follower)
      } catch {
        this.#lost(client) // the new connection LISTENs on every channel, this one too
      }
    } else if (this.#connecting !== undefined) {
      await this.#connecting.done // its LISTENs read the channels after connecting: this one is among them
    } else {
      await this.#open()
    }
    return { stop }
  }

  async close (): Promise<void> {
    this.#closed = true
    this.#channels.clear()
    await this.#end()
  }

  async #open (): Promise<void> {
    const client = new pg.Client({
      connectionString: this.#options.url,
      connectionTimeoutMillis: this.#options.connectTimeoutMs,
      query_timeout: this.#options.connectTimeoutMs,
      keepAlive: true,
      keepAliveInitialDelayMillis: CHECK_INTERVAL_MS,
      application_name: LISTENER_APPLICATION_NAME
    })
    const done = this.#connect(client)
    this.#connecting = { client, done }
    await done
  }

  async #connect (client: pg.Client): Promise<void> {
    client.on('error', () => { this.#lost(client) })
    client.on('end', () => { this.#lost(client) })
    client.on('notification', (message) => { this.#channels.get(message.channel)?.notified() })
    try {
      await client.connect()
      // Every channel followed by now, including those that came while connecting.
      this.#locked = new Set()
      for (const [channel, follower] of this.#channels) {
        await client.query(`LISTEN ${channel}`)
        await this.#announce(client, follower)
      }
    } catch (err) {
      this.#options.log?.warn({ err }, 'cannot LISTEN for other instances\' changes; retrying')
      this.#lost(client)
      return
    }
    if (this.#connecting?.client !== client) return // lost while connecting
    this.#connecting = undefined
    if (this.#closed || this.#channels.size === 0) { await endQuietly(client); return }
    this.#client = client
    this.#reconnectMs = FIRST_RECONNECT_MS
    this.#checkTimer = setInterval(() => { void this.#check(client) }, CHECK_INTERVAL_MS).unref()
    // Whatever was announced while nobody listened here (not awaited: a follower's start may wait for this call).
    for (const follower of [...this.#channels.values()]) follower.reopened()
  }

  /** Takes the follower's lock on `client`, unless the connection holds it already (a channel followed again). */
  async #announce (client: pg.Client, follower: ChannelFollower): Promise<void> {
    if (follower.lock === undefined || this.#locked.has(follower.lock)) return
    this.#locked.add(follower.lock)
    await client.query(LOCK, [FOLLOW_LOCK_CLASS, follower.lock])
  }

  async #check (client: pg.Client): Promise<void> {
    try {
      await client.query('SELECT 1')
    } catch {
      this.#lost(client)
    }
  }

  /** `client` failed or ended: forget it and, while someone follows, open another after a growing pause. */
  #lost (client: pg.Client): void {
    if (client === this.#client) {
      this.#client = undefined
      clearInterval(this.#checkTimer)
      this.#options.log?.warn({}, 'lost the connection that LISTENs for other instances\' changes; reconnecting')
    } else if (client === this.#connecting?.client) {
      this.#connecting = undefined
    } else {
      return // already forgotten
    }
    void endQuietly(client)
    if (this.#closed || this.#channels.size === 0) return
    const delay = this.#reconnectMs
    this.#reconnectMs = Math.min(this.#reconnectMs * 2, MAX_RECONNECT_MS)
    clearTimeout(this.#reconnectTimer)
    this.#reconnectTimer = setTimeout(() => {
      if (this.#client === undefined && this.#connecting === undefined && this.#channels.size > 0 && !this.#closed) void this.#open()
    }, delay).unref()
  }

  /** Nobody follows any more (or closing): ends the connection, the one being opened too. */
  async #end (): Promise<void> {
    clearInterval(this.#checkTimer)
    clearTimeout(this.#reconnectTimer)
    const clients = [this.#client, this.#connecting?.client]
    this.#client = undefined
    this.#connecting = undefined
    this.#reconnectMs = FIRST_RECONNECT_MS
    this.#locked = new Set()
    await Promise.all(clients.map(async (client) => { if (client !== undefined) await endQuietly(client) }))
  }
}

/**
 * Ends a listening connection: politely, but a connection whose network froze
 * would wait for the server's goodbye forever (and keep the process from
 * exiting), so after a moment its socket is closed outright.
 */
async function endQuietly (client: pg.Client): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const gaveUp = new Promise<'timeout'>((resolve) => { timer = setTimeout(() => { resolve('timeout') }, 1000) })
  const outcome = await Promise.race([client.end().then(() => 'ended' as const, () => 'ended' as const), gaveUp])
  clearTimeout(timer)
  if (outcome === 'timeout') client.connection.stream.destroy()
}
