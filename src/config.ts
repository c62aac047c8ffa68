import { fileURLToPath } from 'node:url'
import { normalisePublicUrl } from './http/public-url.js'

/**
 * The one typed configuration object. Flags and environment variables are both
 * read through the option table below, so `--help`, the parser and the docs
 * never disagree.
 */
export interface Config {
  host: string
  port: number
  logLevel: LogLevel
  /** One structured log line per finished request (off costs nothing on the hot path). */
  accessLog: boolean
  /** Largest accepted request body in bytes. */
  bodyLimit: number
  /** How long graceful shutdown waits for in-flight requests before closing sockets. */
  shutdownTimeoutMs: number
  /** Public origin (and path prefix) for absolute links in answers; undefined: relative links. Never taken from Host. */
  publicUrl?: string
  students: StudentsConfig
  addresses: AddressesConfig
  albums: AlbumsConfig
  versioning: VersioningConfig
  store: StoreConfig
  /** Time and connection limits (issue 10); 0 turns one off. */
  connections: ConnectionLimits
}

/** Bounded time for every phase of a request and a cap on connections (src/http/timeouts.ts). */
export interface ConnectionLimits {
  /** ms for the request line and headers to arrive. */
  headersTimeoutMs: number
  /** ms for the body to arrive once the headers are in (408 in the service's shape). */
  bodyTimeoutMs: number
  /** ms from routing to the answer, body included (503 PROCESSING_TIMEOUT). */
  handlerTimeoutMs: number
  /** ms an idle keep-alive connection stays open. */
  keepAliveTimeoutMs: number
  /** Most open connections per process; beyond, new ones are closed at once. */
  maxConnections: number
}

export interface VersioningConfig {
  /** `rqs` in `application/vnd.rqs.v2+json`. */
  vendor: string
  /** Serve versions by Accept header (media type versioning). */
  mediaType: boolean
  /** Also mount every REST service under /v1/… and /v2/… (URI versioning). */
  uri: boolean
  /** Versions announced as deprecated (Deprecation, Sunset and Link headers). */
  deprecated: number[]
  /** When the deprecation took or takes effect (default: start-up). */
  deprecatedSince?: Date
  /** When deprecated versions stop being served. */
  sunset?: Date
}

export interface StudentsConfig {
  enabled: boolean
  /** Base path the student records service is mounted under, e.g. `/students`. */
  base: string
  /** Folder whose files are served under `{base}/assets/`. */
  assetsDir: string
}

export interface AddressesConfig {
  enabled: boolean
  /** Base path the address book is mounted under; its collection is `{base}/addresses`. */
  base: string
}

export interface AlbumsConfig {
  enabled: boolean
  /** Prefix of the album query service: '' serves `/graphql` and `/graphiql`. */
  base: string
  /** JSON file replacing the built-in list of three albums (validated at start-up). */
  albumsFile?: string
  /** Deepest selection nesting a document may have (introspection included). */
  maxDepth: number
  /** Most field selections a document may make once fragments are expanded (the cost). */
  maxFields: number
  /** Most aliased fields a document may have. */
  maxAliases: number
  /** Largest GraphQL document (the `query` text) in UTF-8 bytes. */
  maxDocumentBytes: number
  /** Whether `__schema` / `__type` queries are allowed (turn off in production if wanted). */
  introspection: boolean
  /** How many distinct documents keep their parsed, validated and compiled form. */
  documentCacheSize: number
  /** Folder of the GraphiQL bundle that `npm run build` writes (no flag: tests point it elsewhere). */
  graphiqlDir: string
}

export const STORE_KINDS = ['memory', 'sqlite', 'postgres'] as const
export type StoreKind = (typeof STORE_KINDS)[number]

/** Where records live: in memory (the spec's default), an SQLite file, or PostgreSQL. */
export interface StoreConfig {
  kind: StoreKind
  /** SQLite database file (kind sqlite). */
  path: string
  /** PostgreSQL connection URL (kind postgres). */
  url: string
  /** Most PostgreSQL connections one instance opens. */
  poolSize: number
  /** How long start-up keeps retrying an unreachable database, in ms; 0 fails at once. */
  startupWaitMs: number
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

export const DEFAULT_ASSETS_DIR = fileURLToPath(new URL('../public', import.meta.url))
/** src/ and dist/ are siblings, so this is <package>/dist/graphiql under tsx and node alike. */
export const DEFAULT_GRAPHIQL_DIR = fileURLToPath(new URL('../dist/graphiql', import.meta.url))

export function defaultConfig(): Config {
  return {
    host: '127.0.0.1',
    port: 8080,
    logLevel: 'info',
    accessLog: false,
    bodyLimit: 1024 * 1024,
    shutdownTimeoutMs: 10_000,
    students: { enabled: true, base: '/students', assetsDir: DEFAULT_ASSETS_DIR },
    addresses: { enabled: true, base: '/' },
    versioning: { vendor: 'rqs', mediaType: true, uri: true, deprecated: [] },
    albums: {
      enabled: true,
      base: '',
      maxDepth: 20,
      maxFields: 500,
      maxAliases: 30,
      maxDocumentBytes: 16 * 1024,
      introspection: true,
      documentCacheSize: 1000,
      graphiqlDir: DEFAULT_GRAPHIQL_DIR
    },
    store: { kind: 'memory', path: '', url: '', poolSize: 10, startupWaitMs: 0 },
    connections: { headersTimeoutMs: 10_000, bodyTimeoutMs: 30_000, handlerTimeoutMs: 60_000, keepAliveTimeoutMs: 5_000, maxConnections: 4096 }
  }
}

/** Thrown for a flag or environment value that cannot be used; the CLI exits with code 2. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

type OptionType = 'string' | 'boolean' | 'integer' | 'bytes' | 'path' | 'base' | 'date' | 'versions' | 'token'

export interface OptionSpec {
  /** Long flag name without dashes. */
  flag: string
  env?: string
  type: OptionType
  description: string
  apply: (config: Config, value: OptionValue) => void
  /** Extra check after parsing; throw ConfigError with a message naming the flag. */
  choices?: readonly string[]
}

/**
 * Every option `rqs serve` understands. Services add theirs here so that one
 * table drives parsing, validation and `--help`.
 */
export const OPTIONS: OptionSpec[] = [
  { flag: 'port', env: 'PORT', type: 'integer', description: 'TCP port to listen on (default 8080; 0 picks a free one)', apply: (c, v) => { c.port = v as number } },
  { flag: 'host', env: 'HOST', type: 'string', description: 'interface to bind (default 127.0.0.1)', apply: (c, v) => { c.host = v as string } },
  { flag: 'log-level', env: 'LOG_LEVEL', type: 'string', choices: LOG_LEVELS, description: `log level: ${LOG_LEVELS.join(', ')} (default info)`, apply: (c, v) => { c.logLevel = v as LogLevel } },
  { flag: 'access-log', env: 'RQS_ACCESS_LOG', type: 'boolean', description: 'log one line per finished request (default off)', apply: (c, v) => { c.accessLog = v as boolean } },
  { flag: 'body-limit', env: 'RQS_BODY_LIMIT', type: 'bytes', description: 'largest request body, e.g. 1048576, 512kb, 1mb (default 1mb)', apply: (c, v) => { c.bodyLimit = v as number } },
  { flag: 'shutdown-timeout', env: 'RQS_SHUTDOWN_TIMEOUT_MS', type: 'integer', description: 'ms to wait for in-flight requests on SIGTERM (default 10000)', apply: (c, v) => { c.shutdownTimeoutMs = v as number } },
  { flag: 'public-url', env: 'RQS_PUBLIC_URL', type: 'string', description: 'public URL of this server for links in error answers, e.g. https://api.example.com (default: relative links)', apply: (c, v) => { c.publicUrl = publicUrl(v as string) } },
  { flag: 'students-base', env: 'RQS_STUDENTS_BASE', type: 'base', description: 'base path of the student records service (default /students)', apply: (c, v) => { c.students.base = v as string } },
  { flag: 'assets-dir', env: 'RQS_ASSETS_DIR', type: 'path', description: "folder served under {students-base}/assets/ (default the package's public/)", apply: (c, v) => { c.students.assetsDir = v as string } },
  { flag: 'no-students', type: 'boolean', description: 'do not mount the student records service', apply: (c, v) => { c.students.enabled = !(v as boolean) } },
  { flag: 'vendor', env: 'RQS_VENDOR', type: 'token', description: 'vendor name in media types application/vnd.<vendor>.v<N>+json (default rqs)', apply: (c, v) => { c.versioning.vendor = v as string } },
  { flag: 'no-media-type-versioning', env: 'RQS_NO_MEDIA_TYPE_VERSIONING', type: 'boolean', description: 'do not negotiate versions by Accept (plain JSON gets v1)', apply: (c, v) => { c.versioning.mediaType = !(v as boolean) } },
  { flag: 'no-uri-versioning', env: 'RQS_NO_URI_VERSIONING', type: 'boolean', description: 'do not mount the REST services under /v1/ and /v2/', apply: (c, v) => { c.versioning.uri = !(v as boolean) } },
  { flag: 'deprecate', env: 'RQS_DEPRECATE', type: 'versions', description: 'versions to announce as deprecated, e.g. 1 or 1,2', apply: (c, v) => { c.versioning.deprecated = v as unknown as number[] } },
  { flag: 'deprecated-since', env: 'RQS_DEPRECATED_SINCE', type: 'date', description: 'date of the deprecation (ISO 8601; default start-up)', apply: (c, v) => { c.versioning.deprecatedSince = v as unknown as Date } },
  { flag: 'sunset', env: 'RQS_SUNSET', type: 'date', description: 'date deprecated versions stop being served (ISO 8601)', apply: (c, v) => { c.versioning.sunset = v as unknown as Date } },
  { flag: 'addresses-base', env: 'RQS_ADDRESSES_BASE', type: 'base', description: 'base path of the address book; its collection is {base}/addresses (default /)', apply: (c, v) => { c.addresses.base = v as string } },
  { flag: 'no-addresses', type: 'boolean', description: 'do not mount the address book service', apply: (c, v) => { c.addresses.enabled = !(v as boolean) } },
  { flag: 'albums-base', env: 'RQS_ALBUMS_BASE', type: 'base', description: 'prefix of the album query service: {albums-base}/graphql, {albums-base}/graphiql (default none)', apply: (c, v) => { c.albums.base = v === '/' ? '' : v as string } },
  { flag: 'albums-file', env: 'RQS_ALBUMS_FILE', type: 'path', description: 'JSON array of {title, artist, recordNo} replacing the three built-in albums', apply: (c, v) => { c.albums.albumsFile = v as string } },
  { flag: 'no-albums', type: 'boolean', description: 'do not mount the album query service', apply: (c, v) => { c.albums.enabled = !(v as boolean) } },
  { flag: 'graphql-max-depth', env: 'RQS_GRAPHQL_MAX_DEPTH', type: 'integer', description: 'deepest selection nesting of a GraphQL document (default 20)', apply: (c, v) => { c.albums.maxDepth = v as number } },
  { flag: 'graphql-max-fields', env: 'RQS_GRAPHQL_MAX_FIELDS', type: 'integer', description: 'most field selections of a GraphQL document, fragments expanded (default 500)', apply: (c, v) => { c.albums.maxFields = v as number } },
  { flag: 'graphql-max-aliases', env: 'RQS_GRAPHQL_MAX_ALIASES', type: 'integer', description: 'most aliased fields of a GraphQL document (default 30)', apply: (c, v) => { c.albums.maxAliases = v as number } },
  { flag: 'graphql-max-document-size', env: 'RQS_GRAPHQL_MAX_DOCUMENT_SIZE', type: 'bytes', description: 'largest GraphQL document text, e.g. 16kb (default 16kb)', apply: (c, v) => { c.albums.maxDocumentBytes = v as number } },
  { flag: 'no-graphql-introspection', env: 'RQS_GRAPHQL_NO_INTROSPECTION', type: 'boolean', description: 'reject __schema and __type queries (GraphiQL then has no docs or completion)', apply: (c, v) => { c.albums.introspection = !(v as boolean) } },
  // database-url comes before store so that --store / RQS_STORE win over DATABASE_URL.
  { flag: 'database-url', env: 'DATABASE_URL', type: 'string', description: 'PostgreSQL URL; used when --store is not given', apply: (c, v) => { applyStore(c, v as string, '--database-url / DATABASE_URL') } },
  { flag: 'store', env: 'RQS_STORE', type: 'string', description: 'where records live: memory (default), sqlite:PATH or postgres://user@host:port/db', apply: (c, v) => { applyStore(c, v as string, '--store / RQS_STORE') } },
  { flag: 'pg-pool-size', env: 'RQS_PG_POOL_SIZE', type: 'integer', description: 'most PostgreSQL connections per instance (default 10)', apply: (c, v) => { c.store.poolSize = positive(v as number, '--pg-pool-size') } },
  { flag: 'store-wait', env: 'RQS_STORE_WAIT_MS', type: 'integer', description: 'ms to keep retrying an unreachable database at start-up (default 0: exit at once)', apply: (c, v) => { c.store.startupWaitMs = v as number } },
  { flag: 'headers-timeout', env: 'RQS_HEADERS_TIMEOUT_MS', type: 'integer', description: 'ms for a request line and headers to arrive, else 408 and close (default 10000; 0: none)', apply: (c, v) => { c.connections.headersTimeoutMs = v as number } },
  { flag: 'body-timeout', env: 'RQS_BODY_TIMEOUT_MS', type: 'integer', description: 'ms for a request body to arrive after its headers, else 408 and close (default 30000; 0: none)', apply: (c, v) => { c.connections.bodyTimeoutMs = v as number } },
  { flag: 'handler-timeout', env: 'RQS_HANDLER_TIMEOUT_MS', type: 'integer', description: 'ms from routing to the answer, body included, else 503 (default 60000; 0: none)', apply: (c, v) => { c.connections.handlerTimeoutMs = v as number } },
  { flag: 'keep-alive-timeout', env: 'RQS_KEEP_ALIVE_TIMEOUT_MS', type: 'integer', description: 'ms an idle keep-alive connection stays open (default 5000)', apply: (c, v) => { c.connections.keepAliveTimeoutMs = v as number } },
  { flag: 'max-connections', env: 'RQS_MAX_CONNECTIONS', type: 'integer', description: 'most open connections per process; more are closed at once (default 4096; 0: no cap)', apply: (c, v) => { c.connections.maxConnections = v as number } }
]

/** `memory`, `sqlite:PATH` or a `postgres://` / `postgresql://` URL. */
function applyStore (config: Config, value: string, name: string): void {
  if (value === 'memory') {
    config.store.kind = 'memory'
  } else if (value.startsWith('sqlite:')) {
    const path = value.slice('sqlite:'.length)
    if (path === '') throw new ConfigError(`${name}: sqlite: needs a file path, e.g. sqlite:./rqs.db`)
    config.store.kind = 'sqlite'
    config.store.path = path
  } else if (value.startsWith('postgres://') || value.startsWith('postgresql://')) {
    try { new URL(value) } catch { throw new ConfigError(`${name}: not a valid PostgreSQL URL`) }
    config.store.kind = 'postgres'
    config.store.url = value
  } else {
    throw new ConfigError(`${name} must be memory, sqlite:PATH or postgres://…, got "${value}"`)
  }
}

function publicUrl (value: string): string {
  const url = normalisePublicUrl(value)
  if (url === undefined) throw new ConfigError(`--public-url / RQS_PUBLIC_URL must be an http(s) URL such as https://api.example.com, got "${value}"`)
  return url
}

function positive (n: number, name: string): number {
  if (n < 1) throw new ConfigError(`${name} must be at least 1`)
  return n
}

const BYTE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }

type OptionValue = string | number | boolean | Date | number[]

function parseValue (spec: OptionSpec, raw: string | boolean, source: string): OptionValue {
  const name = source
  if (spec.type === 'boolean') {
    if (typeof raw === 'boolean') return raw
    const v = raw.trim().toLowerCase()
    if (['1', 'true', 'yes', 'on'].includes(v)) return true
    if (['0', 'false', 'no', 'off', ''].includes(v)) return false
    throw new ConfigError(`${name} must be true or false, got "${raw}"`)
  }
  if (typeof raw === 'boolean') throw new ConfigError(`${name} needs a value`)
  switch (spec.type) {
    case 'integer': {
      if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a non-negative integer, got "${raw}"`)
      const n = Number(raw)
      if (spec.flag === 'port' && n > 65535) throw new ConfigError(`${name} must be between 0 and 65535, got ${raw}`)
      if (!Number.isSafeInteger(n)) throw new ConfigError(`${name} is too large: "${raw}"`)
      return n
    }
    case 'bytes': {
      const m = /^(\d+)\s*(b|kb|mb|gb)?$/i.exec(raw.trim())
      if (m === null) throw new ConfigError(`${name} must be a size such as 1048576, 512kb or 1mb, got "${raw}"`)
      const n = Number(m[1]) * (BYTE_UNITS[(m[2] ?? '').toLowerCase()] ?? 1)
      if (n < 1 || !Number.isSafeInteger(n)) throw new ConfigError(`${name} must be at least 1 byte, got "${raw}"`)
      return n
    }
    case 'base': {
      if (!/^\/[A-Za-z0-9._~\-/]*$/.test(raw) || raw.includes('//')) {
        throw new ConfigError(`${name} must be a path such as /students, got "${raw}"`)
      }
      return normaliseBase(raw)
    }
    case 'date': {
      const d = new Date(raw)
      if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(d.getTime())) throw new ConfigError(`${name} must be an ISO 8601 date such as 2027-06-30, got "${raw}"`)
      return d
    }
    case 'versions': {
      const parts = raw.split(',').map((p) => p.trim().replace(/^v/i, ''))
      if (parts.some((p) => !/^[1-9]\d{0,2}$/.test(p))) throw new ConfigError(`${name} must list versions such as 1 or 1,2, got "${raw}"`)
      return parts.map(Number)
    }
    case 'token':
      if (!/^[a-z0-9][a-z0-9.-]{0,62}$/.test(raw)) throw new ConfigError(`${name} must be lower-case letters, digits, dots and dashes, got "${raw}"`)
      return raw
    case 'path':
    case 'string':
      if (raw === '') throw new ConfigError(`${name} must not be empty`)
      if (spec.choices !== undefined && !spec.choices.includes(raw)) {
        throw new ConfigError(`${name} must be one of ${spec.choices.join(', ')}, got "${raw}"`)
      }
      return raw
  }
}

/** `/students/` → `/students`; `/` stays `/`. */
export function normaliseBase (base: string): string {
  return base.length > 1 && base.endsWith('/') ? base.slice(0, -1) : base
}

/**
 * Builds a Config from parsed flag values and the environment. Flags win over
 * environment variables, which win over defaults.
 */
export function resolveConfig (flags: Record<string, string | boolean | undefined>, env: NodeJS.ProcessEnv): Config {
  const config = defaultConfig()
  for (const spec of OPTIONS) {
    const fromFlag = flags[spec.flag]
    if (fromFlag !== undefined) {
      spec.apply(config, parseValue(spec, fromFlag, `--${spec.flag}`))
    } else if (spec.env !== undefined && env[spec.env] !== undefined) {
      spec.apply(config, parseValue(spec, env[spec.env] as string, spec.env))
    }
  }
  return config
}

/** A Config for tests and embedding: defaults, then the given overrides (one level deep per section). */
export function makeConfig (overrides: DeepPartial<Config> = {}): Config {
  const config = defaultConfig() as unknown as Record<string, unknown>
  for (const [key, value] of Object.entries(overrides)) {
    const current = config[key]
    config[key] = isPlainObject(current) && isPlainObject(value) ? { ...current, ...value } : value
  }
  return config as unknown as Config
}

export type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? Partial<T[K]> : T[K] }

function isPlainObject (v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
