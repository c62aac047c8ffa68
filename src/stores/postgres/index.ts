import pg from 'pg'
import type { Stores } from '../types.js'
import { StoreUnavailableError } from '../errors.js'
import { POSTGRES_MIGRATIONS, type Migration } from './migrations.js'
import { PostgresStudentStore } from './students.js'
import { PostgresAddressStore } from './addresses.js'
import { isUnavailable, rethrow } from './errors.js'

export interface PostgresOptions {
  url: string
  /** Most connections this instance opens. */
  poolSize: number
  /** Keep retrying an unreachable database for this long at start-up (ms); 0 fails at once. */
  startupWaitMs: number
  /** A query with no answer after this long fails (→ 503) and its connection is dropped. Default 30 s. */
  queryTimeoutMs?: number
  /** Opening a connection, or waiting for a free one, fails (→ 503) after this long. Default 5 s. */
  connectTimeoutMs?: number
  /** Where start-up retries are reported (the server's logger). */
  log?: StoreLog
}

/** The part of a pino logger the stores use. */
export interface StoreLog {
  warn: (obj: object, msg: string) => void
}

const INT8_OID = 20
/** int8 as BigInt (address ids are 64-bit), set on this pool only, not on pg globally. */
const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? (value: string) => BigInt(value) : pg.types.getTypeParser(oid, format)
}

/** Any 64-bit key for pg_advisory_xact_lock, the same in every rqs instance ("rqs-mig" in ASCII). */
const MIGRATION_LOCK_KEY = '32212886842337639'

/**
 * Connects a pool, applies migrations and returns the PostgreSQL stores. The
 * pool drops a connection that failed and opens a new one on the next query,
 * so the stores recover by themselves once the database is back.
 */
export async function openPostgresStores (options: PostgresOptions): Promise<Stores> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    // Fail a request (→ 503) rather than hang while the database is unreachable,
    // even when the network drops packets instead of refusing connections.
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    query_timeout: options.queryTimeoutMs ?? 30_000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: 'rqs',
    types
  } as pg.PoolConfig)
  // An idle connection that dies (server restart, network cut) is removed by
  // the pool; without a listener the 'error' event would crash the process.
  pool.on('error', () => {})

  const deadline = Date.now() + options.startupWaitMs
  for (;;) {
    try {
      await migrate(pool, POSTGRES_MIGRATIONS)
      break
    } catch (err) {
      const remaining = deadline - Date.now()
      if (isUnavailable(err) && remaining > 0) {
        options.log?.warn({ err, database: describe(options.url), remainingMs: remaining }, 'PostgreSQL unreachable; retrying (--store-wait)')
        await new Promise((resolve) => setTimeout(resolve, Math.min(1000, remaining)))
        continue
      }
      await pool.end().catch(() => {})
      if (isUnavailable(err)) {
        throw new StoreUnavailableError(`cannot reach PostgreSQL at ${describe(options.url)}: ${(err as Error).message}`, { cause: err })
      }
      throw err
    }
  }

  let closed = false
  return {
    students: new PostgresStudentStore(pool),
    addresses: new PostgresAddressStore(pool),
    ping: async () => {
      try { await pool.query('SELECT 1') } catch (err) { rethrow(err) }
    },
    poolStats: () => ({ max: options.poolSize, open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: async () => {
      if (closed) return
      closed = true
      await pool.end()
    }
  }
}

/**
 * Applies the missing steps in one transaction under an advisory lock, each
 * recorded in rqs_migrations. A second instance starting at the same moment
 * waits for the lock, then finds the steps applied. Refuses a database
 * written by a newer rqs rather than guess at its schema.
 */
export async function migrate (pool: pg.Pool, migrations: readonly Migration[]): Promise<void> {
  const client = await pool.connect()
  let failed: Error | undefined
  try {
    await client.query('BEGIN')
    await client.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`)
    await client.query('CREATE TABLE IF NOT EXISTS rqs_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())')
    const applied = new Set((await client.query<{ version: number }>('SELECT version FROM rqs_migrations')).rows.map((r) => r.version))
    const newest = Math.max(0, ...migrations.map((m) => m.version))
    const ahead = [...applied].filter((v) => v > newest)
    if (ahead.length > 0) throw new Error(`the database has schema version ${Math.max(...ahead)}, newer than this rqs knows (${newest}); upgrade rqs`)
    for (const m of migrations) {
      if (applied.has(m.version)) continue
      await client.query(m.sql)
      await client.query('INSERT INTO rqs_migrations (version, name) VALUES ($1, $2)', [m.version, m.name])
    }
    await client.query('COMMIT')
  } catch (err) {
    failed = err as Error
    await client.query('ROLLBACK').catch(() => {})
    throw err
  } finally {
    client.release(failed !== undefined && isUnavailable(failed) ? failed : undefined)
  }
}

/** host:port/database of a URL, without credentials, for messages. */
export function describe (url: string): string {
  try {
    const u = new URL(url)
    return `${u.hostname}:${u.port === '' ? '5432' : u.port}${u.pathname}`
  } catch {
    return 'the configured URL'
  }
}
