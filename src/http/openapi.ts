import fastifySwagger from '@fastify/swagger'
import fastifySwaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { PACKAGE_VERSION } from '../version.js'

export interface OpenApiOptions {
  /** The newest representation's media type, named in the document's text. */
  newestType: string
  /** Tags of the services' operations, from their descriptors. */
  tags: ReadonlyArray<{ name: string, description: string }>
}

export const OPENAPI_PATH = '/openapi.json'
export const API_DOCS_PATH = '/docs/api'

/**
 * The OpenAPI 3.1 document, generated from the same JSON schemas that
 * validate and serialise every route (so it cannot drift), at /openapi.json,
 * and Swagger UI at /docs/api — served from the package, no CDN.
 *
 * Documented: routes with tags. Left out: the header-negotiated twins of the
 * /v2 routes (same path as v1, told apart only by Accept; described in the
 * document's text instead), 405/OPTIONS helpers, and the pages themselves.
 */
export const openApiPlugin = fp(async function rqsOpenApi (app: FastifyInstance, opts: OpenApiOptions) {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'rqs — Record and Query Services',
        version: PACKAGE_VERSION,
        description: [
          'Student records and address book (REST, JSON) and album query (GraphQL at /graphql).',
          '',
          `Versions: send \`Accept: ${opts.newestType}\` (media type versioning) or use the \`/v1/…\`, \`/v2/…\` paths`,
          '(URI versioning). Plain `application/json` gets v1. See /docs/versioning.md.'
        ].join('\n')
      },
      tags: opts.tags.map((t) => ({ ...t }))
    },
    hideUntagged: true,
    transform: ({ schema, url, route }) => {
      const constraint = (route.constraints as { apiVersion?: string } | undefined)?.apiVersion
      const hidden = constraint !== undefined && constraint !== '1'
      return { schema: hidden ? { ...schema, hide: true } : schema, url }
    }
  })
  await app.register(fastifySwaggerUi, { routePrefix: API_DOCS_PATH, uiConfig: { docExpansion: 'list', deepLinking: true } })
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger())
}, { name: 'rqs-openapi', fastify: '5.x' })
