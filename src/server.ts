import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import type { Config } from './config.js'
import type { Stores } from './stores/types.js'
import { openStores } from './stores/index.js'
import { installValidators } from './http/validation.js'
import { requestId } from './http/request-id.js'
import { studentsService } from './services/students/routes.js'
import { albumsService } from './services/albums/routes.js'

/**
 * Access logging: one line per finished request (Fastify's "request completed",
 * with method, url, status and time), not two. It costs about a tenth of a
 * simple read, so it is opt-in (--access-log).
 */
class AccessLogController extends LogController {
  override incomingRequest (): void {}

  override requestCompleted (error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return
    const line = { method: request.method, url: request.url, statusCode: reply.statusCode, responseTime: reply.elapsedTime }
    if (error == null) request.log.info(line, 'request completed')
    else request.log.error({ ...line, err: error }, 'request errored')
  }
}

export interface ServerDependencies {
  /** Stores to use instead of opening the configured ones (tests inject failing or shared stores). */
  stores?: Stores
}

/**
 * Builds a ready (not yet listening) server for a Config. Safe to call many
 * times in one process: nothing here is global.
 */
export async function buildServer (config: Config, deps: ServerDependencies = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: config.logLevel },
    logController: new AccessLogController({ disableRequestLogging: !config.accessLog }),
    genReqId: requestId,
    requestIdHeader: false,
    bodyLimit: config.bodyLimit,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 },
    return503OnClosing: true,
    // Keep-alive sockets that are idle are closed at once on shutdown; busy ones finish their request.
    forceCloseConnections: 'idle'
  })
  installValidators(app)

  const stores = deps.stores ?? await openStores(config)
  if (deps.stores === undefined) app.addHook('onClose', async () => { await stores.close() })

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    done()
  })

  app.get('/healthz', { schema: { response: { 200: { type: 'object', properties: { status: { type: 'string' } } } } } }, async () => ({ status: 'ok' }))

  if (config.students.enabled) {
    await app.register(studentsService, {
      prefix: config.students.base === '/' ? '' : config.students.base,
      store: stores.students,
      assetsDir: config.students.assetsDir
    })
  }

  if (config.albums.enabled) {
    await app.register(albumsService, { prefix: config.albums.base, config: config.albums, base: config.albums.base })
  }

  await app.ready()
  return app
}
