import Fastify, { type FastifyBaseLogger } from 'fastify'
import type { CoreConfig } from '../../config.js'

/**
 * The server's logger: the pino logger Fastify makes from these options (its
 * serializers for req, res and err, the level, the stream), made apart from
 * the server's own Fastify instance, which is given none and gets this one as
 * `app.log` (src/server.ts). A Fastify instance given a logger arms two
 * listeners and two clock reads on every response ('finish', 'error') just to
 * call its request-completed log, which rqs leaves off unless the access log
 * is on; without one it does so only for the routes that have onResponse
 * hooks. Every line is logged as before: app.log is this logger, and every
 * request's logger is its child (./request-logger.ts).
 */
export function serverLogger (config: Pick<CoreConfig, 'logLevel'>, logStream?: { write: (line: string) => void }): FastifyBaseLogger {
  // An instance that never listens nor registers anything: only its logger is kept.
  return Fastify({ logger: { level: config.logLevel, ...(logStream === undefined ? {} : { stream: logStream }) } }).log
}
