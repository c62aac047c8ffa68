import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { onFirstUse } from '../../lib/first-use.js'
import type { KeptText } from './paced-json.js'
import { SWAGGER_UI_OPTIONS } from './swagger-ui.js'

/** The document's texts Swagger UI serves beside its pages, as /openapi.json keeps them. */
export interface DocumentTexts {
  json: () => Promise<KeptText>
  yaml: () => Promise<KeptText>
}

/**
 * Swagger UI at `prefix`, its package taken up with the first request
 * there, not at start. Its pages are served by a server of their own made
 * then, never listening, to which the requests are handed: it serves what
 * @fastify/swagger-ui always served. Its copies of the document (`/json`,
 * `/yaml`) are answered here from the texts /openapi.json keeps, written
 * in slices: the package would serialise the whole document in one call.
 */
export async function lazySwaggerUi (app: FastifyInstance, prefix: string, texts: DocumentTexts): Promise<void> {
  const server = onFirstUse(async () => await uiServer(prefix))
  const forward = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    // The UI's server ignores a trailing slash, and so does this.
    const path = new URL(request.url, 'http://rqs').pathname.replace(/\/$/, '')
    const own = path === `${prefix}/json` ? { type: 'application/json; charset=utf-8', text: texts.json } : path === `${prefix}/yaml` ? { type: 'application/x-yaml', text: texts.yaml } : undefined
    if (own !== undefined) {
      const text = await own.text()
      return await reply.type(own.type).header('content-length', text.length).send(text.stream())
    }
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

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date'])

async function uiServer (prefix: string): Promise<FastifyInstance> {
  const { fastifySwaggerUi } = await import('@fastify/swagger-ui')
  const server = Fastify({ routerOptions: { ignoreTrailingSlash: true } })
  // What @fastify/swagger-ui asks of @fastify/swagger: only its /json and /yaml do, which lazySwaggerUi answers itself.
  await server.register(fp(async (instance) => {
    instance.decorate('swagger', (() => { throw new Error('the document is served from the texts /openapi.json keeps') }) as never)
  }, { name: '@fastify/swagger' }))
  await server.register(fastifySwaggerUi, { routePrefix: prefix, uiConfig: { docExpansion: 'list', deepLinking: true }, ...SWAGGER_UI_OPTIONS })
  await server.ready()
  return server
}
