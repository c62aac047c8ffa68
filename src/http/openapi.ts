import fastifySwagger from '@fastify/swagger'
import fastifySwaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { PACKAGE_VERSION } from '../version.js'

export const OPENAPI_PATH = '/openapi.json'
export const API_DOCS_PATH = '/docs/api'

const BEARER_AUTH = {
  components: {
    securitySchemes: {
      bearerAuth: { type: 'http' as const, scheme: 'bearer', description: 'A static token (rqs token) or a JWT access token of the identity provider: read, write or metrics scope' }
    }
  },
  security: [{ bearerAuth: [] }]
}

/**
 * The OpenAPI 3.1 document, generated from the same JSON schemas that
 * validate and serialise every route (so it cannot drift), at /openapi.json,
 * and Swagger UI at /docs/api — served from the package, no CDN.
 *
 * Documented: routes with tags. Left out: the header-negotiated twins of the
 * /v2 routes (same path as v1, told apart only by Accept; described in the
 * document's text instead), 405/OPTIONS helpers, and the pages themselves.
 */
export async function registerOpenApi (app: FastifyInstance, options: { bearerAuth?: boolean } = {}): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      // With authentication on, Swagger UI shows an Authorize button to paste a token into.
      ...(options.bearerAuth === true ? BEARER_AUTH : {}),
      info: {
        title: 'rqs — Record and Query Services',
        version: PACKAGE_VERSION,
        description: [
          'Student records and address book (REST, JSON) and album query (GraphQL at /graphql).',
          '',
          'Versions: send `Accept: application/vnd.rqs.v2+json` (media type versioning) or use the `/v1/…`, `/v2/…` paths',
          '(URI versioning). Plain `application/json` gets v1. See /docs/versioning.md.'
        ].join('\n')
      }
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
}
