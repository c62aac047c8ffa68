import type { FastifyServerOptions } from 'fastify'
import type { CoreConfig } from '../../config.js'
import { AccessLogController, type PrincipalOf } from './access-log.js'
import type { BoundLog } from './bound-log.js'
import { requestId } from './request-id.js'
import { serverLimitOptions } from './timeouts.js'

/** What the Fastify options take from the layers above transport, handed down by the composition root (src/server.ts). */
export interface ServerParts {
  /** Answers malformed URLs in the shape of the service the path is under (http/rest's MountTable). */
  frameworkErrors: NonNullable<FastifyServerOptions['frameworkErrors']>
  bounds: BoundLog
  /** Who sent a request, for the access log (http/security). */
  principalOf: PrincipalOf
}

/** What the Fastify instance is built with; each choice is explained where it is made. */
export function fastifyOptions (config: CoreConfig, { frameworkErrors, bounds, principalOf }: ServerParts): FastifyServerOptions {
  return {
    // Bounded time for every phase of a request, answered or closed and counted in the log (issue 10).
    ...serverLimitOptions(config.connections, bounds),
    // No logger: the server's (./server-logger.ts) is set as app.log once the instance is made.
    logController: new AccessLogController({ disableRequestLogging: !config.accessLog }, principalOf),
    // No childLoggerFactory: every request's logger is made when it first logs, by the request itself
    // (installLazyRequestLoggers, src/server.ts), so Fastify makes and checks none per request.
    genReqId: requestId,
    requestIdHeader: false,
    bodyLimit: config.bodyLimit,
    trustProxy: config.security.trustProxy,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 },
    return503OnClosing: true,
    // No timer per plugin: every plugin is the server's own and none waits on the network, and arming and
    // clearing one for each of the hundreds a start with many collections registers cost a tenth of it.
    // A plugin that never finishes leaves the start unfinished (no "listening" line) instead of failing it.
    pluginTimeout: 0,
    // Keep-alive sockets that are idle are closed at once on shutdown; busy ones finish their request.
    forceCloseConnections: 'idle',
    // Malformed URLs and over-long path parameters: the service the path belongs to answers.
    frameworkErrors
  }
}
