import { Type } from '@sinclair/typebox'
import { HTML_PAGE, type ErrorShapeDoc, type OperationNotes } from '../../http/openapi/index.js'
/**
 * The album query service in the API description. GraphQL over HTTP reads
 * and checks its own requests (graphql-http), so the request side is
 * documented here rather than validated by Fastify; the answers are
 * described by the schemas below.
 */

const GraphQLError = Type.Object({
  message: Type.String(),
  locations: Type.Optional(Type.Array(Type.Object({ line: Type.Integer(), column: Type.Integer() }))),
  path: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Integer()]))),
  extensions: Type.Object({ code: Type.String({ description: 'A code of the error catalogue (GET /errors): GRAPHQL_PARSE_FAILED, QUERY_TOO_DEEP, BAD_REQUEST, …' }) }, { additionalProperties: true })
}, { title: 'GraphQLError' })

const Album = Type.Object({
  title: Type.Union([Type.String(), Type.Null()]),
  artist: Type.Union([Type.String(), Type.Null()]),
  recordNo: Type.Union([Type.Integer(), Type.Null()])
}, { title: 'Album', description: 'The fields a query selects (any subset, aliases allowed).' })

export const GraphQLResponse = Type.Object({
  data: Type.Optional(Type.Union([Type.Object({ albums: Type.Optional(Type.Union([Type.Array(Type.Partial(Album)), Type.Null()])) }, { additionalProperties: true }), Type.Null()])),
  errors: Type.Optional(Type.Array(GraphQLError, { minItems: 1 }))
}, { title: 'GraphQLResponse', additionalProperties: false, examples: [{ data: { albums: [{ title: 'Pet Sounds', artist: 'The Beach Boys', recordNo: 12 }] } }] })

const AnyObject = Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true })

const GraphQLRequest = Type.Object({
  query: Type.String({ description: 'The GraphQL document, e.g. `{ albums(titleFilter: "Sounds") { title artist } }`.' }),
  variables: Type.Optional(Type.Union([AnyObject, Type.Null()], { description: 'Values of the variables the document declares.' })),
  operationName: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  extensions: Type.Optional(Type.Union([AnyObject, Type.Null()]))
}, {
  title: 'GraphQLRequest',
  // Swagger UI's "Try it out" starts from this (not from `{"query": "string"}`).
  // A title fragment the built-in albums have (the filter is case-sensitive), so the example finds one.
  examples: [{ query: 'query Albums($title: String) { albums(titleFilter: $title) { title artist recordNo } }', variables: { title: 'Sounds' }, operationName: 'Albums' }]
})

const RESPONSE_TYPES = ['application/json', 'application/graphql-response+json']

/** `{errors:[{message, extensions:{code}}]}` under either GraphQL media type. */
export const graphqlShape: ErrorShapeDoc = {
  schema: GraphQLResponse,
  mediaTypes: RESPONSE_TYPES,
  status: (code, catalogue) => catalogue.status(code),
  example: (code, _path, catalogue) => ({ errors: [{ message: catalogue.texts('en', code).message, extensions: { code } }] })
}

const accept = {
  in: 'header',
  name: 'Accept',
  required: false,
  description: '`application/graphql-response+json` (requests that cannot run are 400) or `application/json` (the default: such errors come with 200); anything else is 406.',
  schema: { type: 'string', examples: RESPONSE_TYPES }
}

const queryAnswer = {
  description: 'The result: `data`, and `errors` for what failed. Under `application/json` a request that cannot run (syntax, validation, limits) is answered here too, with `errors` only.',
  content: Object.fromEntries(RESPONSE_TYPES.map((type) => [type, { schema: GraphQLResponse }]))
}

/** Codes any GraphQL request can meet. */
const QUERY_CODES = ['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'QUERY_TOO_DEEP', 'QUERY_TOO_COMPLEX', 'QUERY_TOO_COSTLY', 'TOO_MANY_ALIASES', 'QUERY_TOO_LARGE', 'INTROSPECTION_DISABLED', 'BAD_REQUEST', 'BAD_USER_INPUT', 'NOT_ACCEPTABLE'] as const

export const graphqlGetSchema = {
  operationId: 'queryAlbumsByGet',
  tags: ['albums'],
  summary: 'Run a GraphQL query given in the URL (queries only)',
  description: 'A mutation over GET is 405. A browser (Accept preferring `text/html`) is redirected to GraphiQL.',
  response: { 200: queryAnswer, 303: { type: 'null', description: 'See Other: a browser is sent to GraphiQL.' } },
  'x-rqs': {
    errorShape: graphqlShape,
    errors: [...QUERY_CODES, 'OPERATION_NOT_SUPPORTED', 'METHOD_NOT_ALLOWED'],
    headers: { 303: ['Location'] },
    document: {
      parameters: [
        { in: 'query', name: 'query', required: true, description: 'The GraphQL document.', schema: { type: 'string' }, example: '{ albums { title recordNo } }' },
        { in: 'query', name: 'variables', required: false, description: 'JSON object of variables.', schema: { type: 'string' } },
        { in: 'query', name: 'operationName', required: false, description: 'Which operation of the document to run.', schema: { type: 'string' } },
        accept
      ]
    }
  } satisfies OperationNotes
}

export const graphqlPostSchema = {
  operationId: 'queryAlbums',
  tags: ['albums'],
  summary: 'Run a GraphQL query (`albums(titleFilter: String): [Album]`)',
  response: { 200: queryAnswer },
  'x-rqs': {
    errorShape: graphqlShape,
    errors: [...QUERY_CODES, 'OPERATION_NOT_SUPPORTED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'UNSUPPORTED_CONTENT_ENCODING'],
    document: {
      parameters: [accept],
      requestBody: { required: true, content: { 'application/json': { schema: GraphQLRequest } } }
    }
  } satisfies OperationNotes
}

export const sdlSchema = {
  operationId: 'getAlbumSchema',
  tags: ['albums'],
  summary: 'The album schema as GraphQL SDL',
  response: { 200: { description: 'The schema in GraphQL SDL.', content: { 'text/plain': { schema: { type: 'string' } } } } }
}

export const graphiqlSchema = {
  operationId: 'getGraphiQL',
  tags: ['albums'],
  summary: 'GraphiQL, the interactive editor for the album query service',
  response: {
    200: { description: 'The GraphiQL page.', content: { 'text/html': HTML_PAGE } },
    503: { description: 'The GraphiQL bundle is not built (`npm run build`); GraphQL itself works.', content: { 'text/html': HTML_PAGE } }
  }
}

/** The tag of the album service's operations. */
export const ALBUM_TAGS = [{ name: 'albums', description: 'The album query service: GraphQL over HTTP, its schema and GraphiQL.' }]

/** What graphql-sse answers itself when a stream cannot start (no catalogue code: the protocol's own words), and the stream budget's refusals (with their code). */
const StreamRefusal = Type.Object({
  errors: Type.Array(Type.Object({ message: Type.String() }, { additionalProperties: true }), { minItems: 1 })
}, { title: 'GraphQLStreamRefusal', additionalProperties: false })

const streamRefused = (description: string): Record<string, unknown> => ({ description, content: { 'application/json': { schema: StreamRefusal } } })

/** The example subscription: every change of the student records (a built-in collection, so it runs on any server that has them). */
export const SUBSCRIPTION_EXAMPLE = 'subscription { studentsChanged { seq kind id record { firstName lastName } } }'

/** How to watch the stream from a shell: Swagger UI's "Try it out" would wait for an end that does not come. */
function streamCurl (method: 'GET' | 'POST'): string {
  return method === 'GET'
    ? `curl -N -H 'Accept: text/event-stream' --get --data-urlencode 'query=${SUBSCRIPTION_EXAMPLE}' http://localhost:8080/graphql/stream`
    : `curl -N -H 'Accept: text/event-stream' -H 'Content-Type: application/json' -d '{"query": "${SUBSCRIPTION_EXAMPLE}"}' http://localhost:8080/graphql/stream`
}

/** The subscription stream, one route per method (graphql-sse's distinct connections mode). */
export function streamSchema (method: 'GET' | 'POST'): Record<string, unknown> {
  const subscriptionQuery = { query: SUBSCRIPTION_EXAMPLE }
  return {
    operationId: method === 'GET' ? 'subscribeByGet' : 'subscribe',
    tags: ['albums'],
    summary: 'Run a GraphQL subscription over Server-Sent Events (graphql-sse, distinct connections mode)',
    description: 'Send `Accept: text/event-stream` and a subscription (`<collection>Changed`, e.g. `' + SUBSCRIPTION_EXAMPLE + '`); each change is a `next` event, in order, from every instance sharing the store. `after` (a change\'s `seq`) resumes after it. Queries and mutations go to /graphql. Needs the read scope.\n\n' +
      'The stream does not end, so "Try it out" is off here. Watch it with curl (then create a student in another window):\n\n```\n' + streamCurl(method) + '\n```',
    response: {
      200: { description: 'The event stream: `next` events with `{data}` or `{errors}`, then `complete`.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
      400: streamRefused('The request is not a GraphQL request graphql-sse can run.'),
      404: streamRefused('Without `Accept: text/event-stream`, graphql-sse looks for a reserved stream (single connection mode, which this server does not offer).'),
      405: streamRefused('Not a method graphql-sse takes.'),
      429: streamRefused('`TOO_MANY_CLIENT_SUBSCRIPTIONS`: this client already holds as many streams (GraphQL subscriptions and change-feed streams together) as one client may; retry after `Retry-After` seconds. Refused before the stream starts.'),
      503: streamRefused('`TOO_MANY_SUBSCRIPTIONS`: the server already serves as many streams as it serves at once; retry after `Retry-After` seconds. Refused before the stream starts.')
    },
    'x-rqs': {
      headers: { 429: ['Retry-After'], 503: ['Retry-After'] },
      document: method === 'POST'
        // Its own example: the schema's is a query, which a stream refuses (OPERATION_NOT_SUPPORTED).
        ? { requestBody: { required: true, content: { 'application/json': { schema: GraphQLRequest, example: subscriptionQuery } } } }
        : {
            parameters: [
              { in: 'query', name: 'query', required: true, description: 'The GraphQL subscription.', schema: { type: 'string' }, example: SUBSCRIPTION_EXAMPLE },
              { in: 'query', name: 'variables', required: false, description: 'JSON object of variables.', schema: { type: 'string' } },
              { in: 'query', name: 'operationName', required: false, description: 'Which operation of the document to run.', schema: { type: 'string' } }
            ]
          }
    }
  }
}
