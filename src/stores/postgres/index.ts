import pg from 'pg'
import { ensureForeignKeys, PostgresReferences } from './references.js'
import { referenceTables } from '../references.js'
import { type CollectionImport, type KeyedWrite, type RecordStores, type StoredRecord, type StoreOptions, StoreUnavailableError, type UnitOfWork } from '../../domain/index.js'
import { POSTGRES_MIGRATIONS } from './schema.js'
import { migrate } from './migrate.js'
import { PostgresRecordStore } from './records.js'
import { layoutOf } from './layout.js'
import { ensureCollections } from './registry.js'
import { isUnavailable, rethrow } from './errors.js'
import { PostgresKeptWrites } from './kept-writes.js'
import { PostgresWrites } from './transaction.js'
import { PostgresChangeLog } from './changes.js'
import { PostgresListener } from './listener.js'
import { PostgresWebhookStore } from './webhooks.js'
import { PostgresSchema } from './schema-changes.js'
import { importStagedAll, type ImportPart } from './import.js'
import { ensureSchemaFollowing, PostgresSchemaFollower } from './schema-follow.js'
import { ReadBudget } from '../read-budget.js'

export interface PostgresOptions extends StoreOptions {
  url: string
  /** Most connections this instance opens. */
  poolSize: number
  /** Keep retrying an unreachable database for this long at start-up (ms); 0 fails at once. */
  startupWaitMs: number
  /**
   * A query with no answer after this long fails and its connection is
   * dropped: 503, "nothing changed" for a read or a write known not to have
   * committed, "outcome unknown" for a sent write. The server cancels a
   * statement itself a little earlier (statement_timeout), which makes the
   * outcome known whenever the network still works. Default 30 s.
   */
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
/** int8 as BigInt (int64 ids are 64-bit), set on this pool only, not on pg globally. */
const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? (value: string) => BigInt(value) : pg.types.getTypeParser(oid, format)
}

/**
 * Connects a pool, applies migrations and returns the PostgreSQL stores. The
 * pool drops a connection that failed and opens a new one on the next query,
 * so the stores recover by themselves once the database is back.
 */
export async function openPostgresStores (options: PostgresOptions): Promise<RecordStores> {
  const queryTimeoutMs = options.queryTimeoutMs ?? 30_000
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    // Fail a request (→ 503) rather than hang while the database is unreachable,
    // even when the network drops packets instead of refusing connections.
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    query_timeout: queryTimeoutMs,
    // Server-side bounds: a statement is cancelled by the server before the
    // client gives up on it (a known failure rather than an unknown outcome),
    // and a transaction whose client fell silent is rolled back, freeing its locks.
    statement_timeout: serverStatementTimeout(queryTimeoutMs),
    idle_in_transaction_session_timeout: queryTimeoutMs,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: 'rqs',
    types
  } as pg.PoolConfig)
  // An idle connection that dies (server restart, network cut) is removed by
  // the pool; without a listener the 'error' event would crash the process.
  pool.on('error', () => {})
  // A checked-out connection that dies between two queries of a transaction emits
  // 'error' on itself, not on the pool: its next query fails (and is reported),
  // so the event itself needs only a listener, or the process would crash.
  pool.on('connect', (client) => { client.on('error', () => {}) })

  const declarations = options.collections ?? []
  const layouts = declarations.map(layoutOf)
  let sequences = new Map<string, string | null>()
  const deadline = Date.now() + options.startupWaitMs
  for (;;) {
    try {
      // The registry is brought in step with the declarations in the migration's transaction (see ./registry.ts).
      await migrate(pool, POSTGRES_MIGRATIONS, async (client) => {
        await ensureCollections(client, layouts, describe(options.url))
        await ensureForeignKeys(client, layouts, describe(options.url))
        await ensureSchemaFollowing(client)
        const rows = (await client.query<{ name: string, id_sequence: string | null }>('SELECT name, id_sequence FROM rqs_collections')).rows
        sequences = new Map(rows.map((r) => [r.name, r.id_sequence]))
      }, layouts)
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
  // Shared with the schema changes, which add and remove collections while the server runs.
  const declared = new Map(declarations.map((d) => [d.name, d]))
  const kept = new PostgresKeptWrites(pool, options.idempotencyRetentionMs, options.clock)
  const writes = new PostgresWrites(pool, kept)
  // One listening connection for the instance: the schema follower's channel from the start, the feed's while it has subscribers.
  const listener = new PostgresListener({ url: options.url, connectTimeoutMs: options.connectTimeoutMs ?? 5000, log: options.log })
  const changes = new PostgresChangeLog(pool, {
    listener,
    retentionMs: options.changesRetentionMs,
    clock: options.clock,
    log: options.log,
    declarations: declared
  })
  const references = new PostgresReferences(pool, layouts)
  const targets = referenceTables(declarations, (d) => layoutOf(d).sql)
  // Other instances' changes of collections: a write that meets a newer declaration makes this one follow at once.
  const collections = new Map<string, PostgresRecordStore>()
  const following = new PostgresSchemaFollower({ pool, listener, collections, declarations: declared })
  const stale = (): void => { following.stale() }
  const budget = new ReadBudget(options.readBudgetMs ?? 0)
  for (const d of declarations) collections.set(d.name, new PostgresRecordStore(pool, writes, kept, d, sequences.get(d.name) ?? null, references, targets.get(d.name), stale, budget))
  // A collection created or changed while the server runs takes part in the references as those declared at start do.
  const schema = new PostgresSchema({
    pool,
    where: describe(options.url),
    collections,
    declarations: declared,
    references,
    open: (d, sequence) => {
      const all = [...[...declared.values()].filter((held) => held.name !== d.name), d]
      return new PostgresRecordStore(pool, writes, kept, d, sequence, references, referenceTables(all, (held) => layoutOf(held).sql).get(d.name), stale, budget)
    }
  })
  const webhooks = new PostgresWebhookStore(pool)
  return {
    collections,
    schema: Object.assign(schema, { shared: following }),
    changes,
    webhooks,
    // One connection in BEGIN … COMMIT; a keyed unit claims its key first and keeps its answer before COMMIT.
    atomically: async <R>(work: (unit: UnitOfWork) => Promise<R>, keyed?: KeyedWrite<R>) => await writes.transaction(
      async (client) => await work({ collections: new Map([...collections].map(([name, store]) => [name, store.writesIn(client)])) }),
      keyed
    ),
    importAllOf: async (parts) => await importStagedAll(pool, parts.map((part) => importPartOf(collections, part))),
    ping: async () => {
      try { await pool.query('SELECT 1') } catch (err) { rethrow(err) }
    },
    poolStats: () => ({ max: options.poolSize, open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: async () => {
      if (closed) return
      closed = true
      await following.close()
      await changes.close()
      await listener.close()
      await webhooks.close()
      await pool.end()
    }
  }
}

/** A part of an import of several as the collection's store stages and applies it. */
function importPartOf (collections: ReadonlyMap<string, PostgresRecordStore>, part: CollectionImport): ImportPart<StoredRecord> {
  const store = collections.get(part.collection)
  if (store === undefined) throw new TypeError(`no collection "${part.collection}" to import into`)
  return store.importPart(part.source, part.onApplied)
}

/** A little under the client's timeout: 80 %, at most 1 s less. */
export function serverStatementTimeout (queryTimeoutMs: number): number {
  return Math.max(1, queryTimeoutMs - Math.min(1000, Math.floor(queryTimeoutMs / 5)))
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
