import { Type, type Static } from '@sinclair/typebox'
import { ConfigError } from './errors.js'
import { option, type Reader } from './option.js'
import { duration } from './readers.js'

export const STORE_KINDS = ['memory', 'sqlite', 'postgres'] as const
export type StoreKind = (typeof STORE_KINDS)[number]

/** Where records live: in memory (the spec's default), an SQLite file (`path`) or PostgreSQL (`url`). */
const storeLocation = Type.Object({
  kind: Type.Union(STORE_KINDS.map((kind) => Type.Literal(kind))),
  path: Type.String(),
  url: Type.String()
})
type StoreLocation = Static<typeof storeLocation>

const MEMORY: StoreLocation = { kind: 'memory', path: '', url: '' }

/**
 * `memory`, `sqlite:PATH` or a `postgres://` / `postgresql://` URL. Messages
 * name the flag and its variable together (`--store / RQS_STORE`).
 */
function location (name: string): Reader<StoreLocation> {
  return (value) => {
    if (value === 'memory') return MEMORY
    if (value.startsWith('sqlite:')) {
      const path = value.slice('sqlite:'.length)
      if (path === '') throw new ConfigError(`${name}: sqlite: needs a file path, e.g. sqlite:./rqs.db`)
      return { kind: 'sqlite', path, url: '' }
    }
    if (value.startsWith('postgres://') || value.startsWith('postgresql://')) {
      try { new URL(value) } catch { throw new ConfigError(`${name}: not a valid PostgreSQL URL`) }
      return { kind: 'postgres', path: '', url: value }
    }
    throw new ConfigError(`${name} must be memory, sqlite:PATH or postgres://…, got "${value}"`)
  }
}

/** The store options as declared; `resolveStore` turns them into `config.store`. */
export const storeOptions = Type.Object({
  location: option(Type.Optional(storeLocation), {
    flag: 'store', value: 'location', env: 'RQS_STORE', read: location('--store / RQS_STORE'), help: 'where records live: memory (default), sqlite:PATH or postgres://user@host:port/db'
  }),
  databaseUrl: option(Type.Optional(storeLocation), {
    flag: 'database-url', value: 'url', env: 'DATABASE_URL', read: location('--database-url / DATABASE_URL'), help: 'PostgreSQL URL; used when --store is not given'
  }),
  // Most PostgreSQL connections one instance opens.
  poolSize: option(Type.Integer({ minimum: 1 }), {
    default: 10, flag: 'pg-pool-size', env: 'RQS_PG_POOL_SIZE', help: 'most PostgreSQL connections per instance (default 10)'
  }),
  // How long start-up keeps retrying an unreachable database; 0 fails at once.
  startupWaitMs: option(Type.Integer({ minimum: 0 }), {
    default: 0, flag: 'store-wait', value: 'duration', env: 'RQS_STORE_WAIT_MS', read: duration(), help: 'time to keep retrying an unreachable database at start-up, e.g. 30s or 2m (default 0: exit at once)'
  }),
  // How long SQLite and PostgreSQL keep changes for the change feed to replay (GET /events with Last-Event-ID).
  changesRetentionMs: option(Type.Integer({ minimum: 1000 }), {
    default: 24 * 60 * 60 * 1000, flag: 'changes-retention', value: 'duration', env: 'RQS_CHANGES_RETENTION', read: duration({ minimum: 1000 }),
    help: 'how long SQLite/PostgreSQL keep changes a feed client can resume from, e.g. 24h, 30m (default 24h)'
  })
})

type StoreOptions = Static<typeof storeOptions>

/** `config.store`: the chosen location and the connection settings. */
export type StoreConfig = StoreLocation & Omit<StoreOptions, 'location' | 'databaseUrl'>

/**
 * The store's own precedence: `--store`, then `RQS_STORE` (read as one option,
 * flag first), then `--database-url` / `DATABASE_URL`, then memory. Both are
 * always checked, so a bad DATABASE_URL is reported even when --store wins.
 */
export function resolveStore ({ location, databaseUrl, ...connection }: StoreOptions): StoreConfig {
  return { ...(location ?? databaseUrl ?? MEMORY), ...connection }
}
