import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { onFirstUse } from '../../lib/first-use.js'
import { PACKAGE_VERSION } from '../../version.js'
import { declareRoutes } from '../routes/index.js'
import { catalogueOf } from '../errors/index.js'
import { SERVER_TAG } from './describe.js'
import { finishDocument, pacedBySlices, transformRoute, type OpenApiDocument, type SecurityFeatures } from './document.js'
import { collectRoutes } from './generate.js'
import { lazySwaggerUi } from './ui.js'
import { pacedJson } from './paced-json.js'
import { pacedYaml } from './paced-yaml.js'

export interface OpenApiOptions {
  /** The newest representation's media type, named in the document's text. */
  newestType: string
  /** Tags of the services' operations, from their descriptors. */
  tags: ReadonlyArray<{ name: string, description: string }>
  /** Authentication is on (issue 11): a bearer security scheme, so Swagger UI shows an Authorize button. */
  bearerAuth?: boolean
  /** The security features that are on: their refusals (401, 403, 429, 503) are listed where they can happen. */
  security?: SecurityFeatures
  /** Serve Swagger UI too (default); off for a server that only lends its document (a collection changed while the server runs). */
  ui?: boolean
}

/**
 * Something that changes the document while the server runs (collections
 * changed through the admin API): the document is made again from the
 * routes' whenever a follower's version moved, with each follower's patch.
 */
export interface DocumentFollower {
  version: () => number
  /**
   * Gets a copy whose `paths`, `components.schemas` and `tags` are its own
   * (entries may be added, replaced or removed); what they hold (path
   * items, schemas) is shared with the kept document and is not changed.
   */
  patch: (document: OpenApiDocument) => Promise<OpenApiDocument>
}

/**
 * The copy a follower patches. A deep copy (structuredClone) of the whole
 * document held the event loop for ≈ 0.45 s (seconds under load) at the
 * declaration limits, for maps whose entries a patch only adds or removes.
 */
function patchable (document: OpenApiDocument): OpenApiDocument {
  return {
    ...document,
    paths: { ...document.paths },
    components: { ...document.components, schemas: { ...document.components.schemas } },
    ...(document.tags === undefined ? {} : { tags: [...document.tags] })
  }
}

/**
 * What `make` made for the followers' versions now, kept as the promise
 * (requests that come while it is made wait for the same value) until a
 * version moves. A failure is not kept: the next request tries again.
 */
function keptPerVersion<T> (versions: () => string, make: () => Promise<T>): () => Promise<T> {
  let kept: { key: string, value: Promise<T> } | undefined
  return async () => {
    const key = versions()
    if (kept?.key !== key) {
      const made = { key, value: make() }
      kept = made
      made.value.catch(() => { if (kept === made) kept = undefined })
    }
    return await kept.value
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Keeps /openapi.json in step with what `follower` changes. */
    followOpenApi: (follower: DocumentFollower) => void
    /** The document of the routes, as @fastify/swagger makes it and finishDocument finishes it (without the followers' patches). */
    openApiDocument: () => Promise<OpenApiDocument>
  }
}

const BEARER_AUTH = {
  components: {
    securitySchemes: {
      bearerAuth: { type: 'http' as const, scheme: 'bearer', description: 'A static token (rqs token) or a JWT access token of the identity provider: read, write, metrics or admin scope' }
    }
  },
  security: [{ bearerAuth: [] }]
}

export const OPENAPI_PATH = '/openapi.json'
export const API_DOCS_PATH = '/docs/api'

/**
 * The OpenAPI 3.1 document, generated from the same JSON schemas that
 * validate and serialise every route (so it cannot drift), at /openapi.json,
 * and Swagger UI at /docs/api — served from the package, no CDN.
 *
 * Documented: every route with tags, with what ./openapi/document.ts adds
 * from the routes' `x-rqs` notes (errors, headers, preconditions) and their
 * mount (versions and media types). Left out: the 405/OPTIONS helpers (the
 * document says once what they answer) and the files of Swagger UI, GraphiQL
 * and /docs/.
 */
export const openApiPlugin = fp(async function rqsOpenApi (app: FastifyInstance, opts: OpenApiOptions) {
  // @fastify/swagger's options; the package loads, and the document is made, on the first request for it.
  const routes = collectRoutes(app)
  const swaggerOptions = {
    openapi: {
      openapi: '3.1.0',
      // With authentication on, Swagger UI shows an Authorize button to paste a token into.
      ...(opts.bearerAuth === true ? BEARER_AUTH : {}),
      info: {
        title: 'rqs — Record and Query Services',
        version: PACKAGE_VERSION,
        description: [
          '[← rqs home](/) · [documents](/docs/) · [error catalogue](/errors)',
          '',
          'Student records and address book (REST, JSON) and album query (GraphQL at /graphql).',
          '',
          `**Versions.** Send \`Accept: ${opts.newestType}\` (media type versioning) or use the \`/v1/…\`, \`/v2/…\` paths`,
          '(URI versioning). Plain `application/json` gets v1. At a service\'s base path each operation lists every version\'s',
          'answers side by side, told apart by their media types. See /docs/versioning.md.',
          '',
          '**Errors.** The student service\'s v1 answers errors in its envelope `{"isSuccessful": false, "body": "<message>"}`;',
          'everything else answers RFC 9457 problem details (`application/problem+json`) whose `errors[].error` is a code of the',
          'catalogue at /errors. Methods a path does not list answer 405 with `Allow`, in that path\'s error shape;',
          '`OPTIONS` answers 204 with `Allow`. `HEAD` works wherever `GET` does.',
          '',
          '**Address ids** are 64-bit: JSON integers written with every digit (up to 9223372036854775807). Parse them with',
          'a JSON reader that keeps integers beyond 2^53 exact (BigInt, int64), or they are rounded.'
        ].join('\n')
      },
      servers: [{ url: '/', description: 'The server that serves this document' }],
      tags: [...opts.tags.map((t) => ({ ...t })), { name: SERVER_TAG, description: 'The entry point, health checks, the error catalogue and this document.' }]
    },
    hideUntagged: true,
    convertConstToEnum: false,
    transform: transformRoute
  }
  // Made once per server (routes do not change once it listens), in slices that let other requests through.
  const baseDocument = onFirstUse(async () => finishDocument(await routes.generate(swaggerOptions), catalogueOf(app), opts.security))
  app.decorate('openApiDocument', baseDocument)
  // The document as sent: made once per server, and again when a follower's version moved
  // (collections changed while the server runs).
  const followers: DocumentFollower[] = []
  app.decorate('followOpenApi', (follower: DocumentFollower) => { followers.push(follower) })
  const versions = (): string => followers.map((f) => f.version()).join(',')
  const currentDocument = keptPerVersion(versions, async () => {
    let document = await baseDocument()
    // Each follower patches its own copy of the parts it changes (see DocumentFollower): the document of the routes stays as made.
    for (const follower of followers) document = await follower.patch(patchable(document))
    return document
  })
  const documentText = keptPerVersion(versions, async () => await pacedJson(await currentDocument(), pacedBySlices()))
  // Only when Swagger UI's /yaml is asked for.
  const documentYaml = keptPerVersion(versions, async () => await pacedYaml(await currentDocument(), pacedBySlices()))
  // Documents for every client and browser: no token.
  if (opts.ui !== false) {
    await app.register(async (ui) => {
      declareRoutes(ui, { service: 'openapi', access: 'public' })
      await lazySwaggerUi(ui, API_DOCS_PATH, { json: documentText, yaml: documentYaml })
    })
  }
  app.get(OPENAPI_PATH, {
    config: { rqs: { service: 'openapi', access: 'public' } },
    schema: {
      operationId: 'getOpenApiDocument',
      tags: [SERVER_TAG],
      summary: 'This OpenAPI 3.1 document',
      response: { 200: { type: 'object', additionalProperties: true, 'x-response-description': 'The OpenAPI document (generated from the routes\' schemas).' } }
    }
  }, async (_request, reply) => {
    const text = await documentText()
    return await reply.type('application/json; charset=utf-8').header('content-length', text.length).send(text.stream())
  })
}, { name: 'rqs-openapi', fastify: '5.x' })
