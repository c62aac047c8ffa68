import { Type, type Static } from '@sinclair/typebox'
import { option } from './option.js'
import { duration, host, oneOf, publicUrl, size, TIMER_MAX_MS } from './readers.js'

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

export const LOG_FORMATS = ['pretty', 'json'] as const
export type LogFormat = (typeof LOG_FORMATS)[number]

/** How the server listens, logs, limits bodies and shuts down (the top level of Config). */
export const serverOptions = Type.Object({
  // 0 asks the system for a free port.
  port: option(Type.Integer({ minimum: 0, maximum: 65535 }), {
    default: 8080, flag: 'port', short: 'p', value: 'n', env: 'PORT', help: 'TCP port to listen on (default 8080; 0 picks a free one)'
  }),
  // Its syntax only; a name that does not resolve is reported when the server listens.
  host: option(Type.String(), {
    default: '127.0.0.1', flag: 'host', short: 'H', value: 'address', env: 'HOST', read: host, help: 'address or host name to listen on; 0.0.0.0 for every interface (default 127.0.0.1)'
  }),
  logLevel: option(Type.Union(LOG_LEVELS.map((level) => Type.Literal(level))), {
    default: 'info', flag: 'log-level', value: 'level', env: 'LOG_LEVEL', read: oneOf(LOG_LEVELS), help: `log level: ${LOG_LEVELS.join(', ')} (default info)`
  }),
  // Unset: pretty when stdout is a terminal, JSON lines otherwise (the CLI decides).
  logFormat: option(Type.Optional(Type.Union(LOG_FORMATS.map((format) => Type.Literal(format)))), {
    flag: 'log-format', value: 'format', env: 'RQS_LOG_FORMAT', read: oneOf(LOG_FORMATS), help: 'pretty (readable lines) or json (one JSON object a line); default pretty on a terminal, json otherwise'
  }),
  // One structured log line per finished request (off costs nothing on the hot path).
  accessLog: option(Type.Boolean(), {
    default: false, flag: 'access-log', env: 'RQS_ACCESS_LOG', help: 'log one line per finished request: status, duration, bytes sent, request id (default off)'
  }),
  // Largest accepted request body in bytes.
  bodyLimit: option(Type.Integer({ minimum: 1 }), {
    default: 1024 * 1024, flag: 'body-limit', value: 'size', env: 'RQS_BODY_LIMIT', read: size, help: 'largest request body, e.g. 1048576, 512kb, 1mb (default 1mb)'
  }),
  // Where clients reach this server, for absolute links in error answers; unset: relative links (never from Host).
  publicUrl: option(Type.Optional(Type.String()), {
    flag: 'public-url', value: 'url', env: 'RQS_PUBLIC_URL', read: publicUrl, help: 'public URL of this server for links in error answers, e.g. https://api.example.com (default: relative links)'
  }),
  // How long graceful shutdown waits for in-flight requests before closing sockets.
  shutdownTimeoutMs: option(Type.Integer({ minimum: 0 }), {
    default: 10_000, flag: 'shutdown-timeout', value: 'duration', env: 'RQS_SHUTDOWN_TIMEOUT_MS', read: duration({ maximum: TIMER_MAX_MS }), help: 'time to wait for in-flight requests on SIGTERM, e.g. 30s or 500ms (default 10s)'
  }),
  // NDJSON files (as `rqs export` writes them) loaded into the store at start-up.
  seed: option(Type.Array(Type.String({ minLength: 1 })), {
    default: [], flag: 'seed', value: 'files', env: 'RQS_SEED', read: fileList, help: 'NDJSON files to load at start-up, comma-separated (as rqs export writes them)'
  })
})

/** `a.ndjson,b.ndjson` → the file names, empty entries dropped. */
function fileList (text: string): string[] {
  return text.split(',').map((f) => f.trim()).filter((f) => f !== '')
}

export type ServerConfig = Static<typeof serverOptions>
