import { createRequire } from 'node:module'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { onFirstUse } from '../../lib/first-use.js'
import type { OpenApiDocument } from './document.js'
import { SWAGGER_UI_OPTIONS } from './swagger-ui.js'

/**
 * Swagger UI at `prefix`, its package (and the YAML library it loads) taken
 * up with the first request there, not at start. Its pages are served by a
 * server of their own made then, never listening, to which the requests are
 * handed: it serves what @fastify/swagger-ui always served, the document it
 * shows being the one /openapi.json was made from.
 */
export async function lazySwaggerUi (app: FastifyInstance, prefix: string, documentOf: () => Promise<OpenApiDocument>): Promise<void> {
  const server = onFirstUse(async () => await uiServer(prefix, documentOf))
  const forward = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const answer = await (await server()).inject({ method: request.method as 'GET', url: request.url, headers: request.headers })
    // What the UI's server does not have is not found here, in rqs's own shape (not that server's).
    if (answer.statusCode === 404) { reply.callNotFound(); return reply }
    void reply.code(answer.statusCode)
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) void reply.header(name, value)
    }
    // An empty answer (a redirect) stays without a body, so without a content type.
    return await (answer.rawPayload.length === 0 ? reply.send() : reply.send(answer.rawPayload))
  }
  app.get(prefix, { schema: { hide: true } }, forward)
  app.get(`${prefix}/*`, { schema: { hide: true } }, forward)
}

const require = createRequire(import.meta.url)
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date'])

async function uiServer (prefix: string, documentOf: () => Promise<OpenApiDocument>): Promise<FastifyInstance> {
  const [{ fastifySwaggerUi }, document] = await Promise.all([import('@fastify/swagger-ui'), documentOf()])
  // As @fastify/swagger wrote it, with the YAML library Swagger UI loads anyway; only when asked.
  const yaml = onFirstUse(() => (createRequire(require.resolve('@fastify/swagger-ui'))('yaml') as { stringify: (value: unknown, options: object) => string }).stringify(document, { strict: false }))
  const server = Fastify({ routerOptions: { ignoreTrailingSlash: true } })
  // What @fastify/swagger-ui asks of @fastify/swagger: the document, as an object or YAML.
  await server.register(fp(async (instance) => {
    instance.decorate('swagger', ((opts?: { yaml?: boolean }) => opts?.yaml === true ? yaml() : document) as never)
  }, { name: '@fastify/swagger' }))
  await server.register(fastifySwaggerUi, { routePrefix: prefix, uiConfig: { docExpansion: 'list', deepLinking: true }, ...SWAGGER_UI_OPTIONS })
  await server.ready()
  return server
}
