import { Type, type Static } from '@sinclair/typebox'
import { option } from './option.js'
import { oneOf, size } from './readers.js'

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

/** How the server listens, logs, limits bodies and shuts down (the top level of Config). */
export const serverOptions = Type.Object({
  // 0 asks the system for a free port.
  port: option(Type.Integer({ minimum: 0, maximum: 65535 }), {
    default: 8080, flag: 'port', env: 'PORT', help: 'TCP port to listen on (default 8080; 0 picks a free one)'
  }),
  host: option(Type.String(), {
    default: '127.0.0.1', flag: 'host', env: 'HOST', help: 'interface to bind (default 127.0.0.1)'
  }),
  logLevel: option(Type.Union(LOG_LEVELS.map((level) => Type.Literal(level))), {
    default: 'info', flag: 'log-level', env: 'LOG_LEVEL', read: oneOf(LOG_LEVELS), help: `log level: ${LOG_LEVELS.join(', ')} (default info)`
  }),
  // One structured log line per finished request (off costs nothing on the hot path).
  accessLog: option(Type.Boolean(), {
    default: false, flag: 'access-log', env: 'RQS_ACCESS_LOG', help: 'log one line per finished request (default off)'
  }),
  // Largest accepted request body in bytes.
  bodyLimit: option(Type.Integer({ minimum: 1 }), {
    default: 1024 * 1024, flag: 'body-limit', env: 'RQS_BODY_LIMIT', read: size, help: 'largest request body, e.g. 1048576, 512kb, 1mb (default 1mb)'
  }),
  // How long graceful shutdown waits for in-flight requests before closing sockets.
  shutdownTimeoutMs: option(Type.Integer({ minimum: 0 }), {
    default: 10_000, flag: 'shutdown-timeout', env: 'RQS_SHUTDOWN_TIMEOUT_MS', help: 'ms to wait for in-flight requests on SIGTERM (default 10000)'
  })
})

export type ServerConfig = Static<typeof serverOptions>
