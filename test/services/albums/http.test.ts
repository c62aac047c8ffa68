import { serverAudits } from 'graphql-http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { ALL_ALBUMS, GRAPHQL_RESPONSE_JSON, graphql, graphqlGet, JSON_UTF8, SPEC_ONLY } from './helpers.js'

/** GraphQL over HTTP (the issue asks for its MUST and SHOULD levels) on a real listening server. */
describe('GraphQL over HTTP', () => {
  let server: RunningServer
  beforeAll(async () => { server = await startServer(SPEC_ONLY) })
  afterAll(async () => { await server.close() })

  describe('the graphql-http audit suite', () => {
    it('passes every MUST and SHOULD audit (MAY ones are reported, not required)', async () => {
      const audits = serverAudits({ url: `${server.origin}/graphql` })
      const results = await Promise.all(audits.map(async (audit) => await audit.fn()))
      const required = results.filter((r) => r.name.startsWith('MUST') || r.name.startsWith('SHOULD'))
      expect(required.length).toBeGreaterThan(20)
      const failures = required.flatMap((r) => r.status === 'ok' ? [] : [`${r.id} ${r.name}: ${r.reason}`])
      expect(failures).toEqual([])
      // The MAY audits pass too; listed so that a regression shows up.
      const mayFailures = results.filter((r) => r.name.startsWith('MAY') && r.status !== 'ok').map((r) => `${r.id} ${r.name}`)
      expect(mayFailures).toEqual([])
    })
  })

  describe('GET and POST', () => {
    const query = '{ albums(titleFilter: "Pet") { title } }'
    const expected = { data: { albums: [{ title: 'Pet Sounds' }] } }

    it('POST application/json answers the query', async () => {
      const res = await graphql(server.origin, query)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe(JSON_UTF8)
      expect(res.body).toEqual(expected)
    })

    it('GET with the query in the URL answers the same', async () => {
      const res = await graphqlGet(server.origin, { query })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe(JSON_UTF8)
      expect(res.body).toEqual(expected)
    })

    it('GET takes variables and operationName as URL parameters', async () => {
      const res = await graphqlGet(server.origin, {
        query: 'query A { albums { title } } query B($f: String) { albums(titleFilter: $f) { artist } }',
        operationName: 'B',
        variables: JSON.stringify({ f: 'Rum' })
      })
      expect(res.body).toEqual({ data: { albums: [{ artist: 'Fleetwood Mac' }] } })
    })

    it('GET with variables that are not JSON is a 400', async () => {
      const res = await graphqlGet(server.origin, { query: '{ albums { title } }', variables: '{nope' })
      expect(res.status).toBe(400)
      expect(res.body.errors[0].extensions.code).toBe('BAD_REQUEST')
    })

    it('GET without a query is a 400', async () => {
      const res = await request(`${server.origin}/graphql`)
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ errors: [{ message: 'Missing query', extensions: { code: 'BAD_REQUEST' } }] })
    })

    it('a mutation over GET is 405 with Allow: POST', async () => {
      const res = await graphqlGet(server.origin, { query: 'mutation { __typename }' })
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe('POST')
      expect(res.body.errors[0].extensions.code).toBe('METHOD_NOT_ALLOWED')
    })

    it.each(['PUT', 'PATCH', 'DELETE', 'OPTIONS'])('%s is 405 with Allow: GET, POST', async (method) => {
      const res = await request(`${server.origin}/graphql`, { method, json: { query: '{ albums { title } }' } })
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe('GET, POST')
      expect(res.body.errors[0].extensions.code).toBe('METHOD_NOT_ALLOWED')
    })

    it('HEAD is 405 with no body', async () => {
      const res = await request(`${server.origin}/graphql?query=%7B__typename%7D`, { method: 'HEAD' })
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe('GET, POST')
      expect(res.text).toBe('')
    })
  })

  describe('request bodies', () => {
    const post = async (body: string | undefined, contentType?: string): ReturnType<typeof request> =>
      await request(`${server.origin}/graphql`, { method: 'POST', body, headers: contentType === undefined ? {} : { 'content-type': contentType } })

    it('accepts application/json with and without charset=utf-8', async () => {
      for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset=UTF-8']) {
        const res = await post('{"query":"{ albums { recordNo } }"}', type)
        expect(res.status).toBe(200)
        expect(res.body).toEqual({ data: { albums: ALL_ALBUMS.map(({ recordNo }) => ({ recordNo })) } })
      }
    })

    it.each([
      ['text/plain', '{"query":"{ __typename }"}'],
      ['application/x-www-form-urlencoded', 'query=%7B__typename%7D'],
      ['application/graphql', '{ __typename }'],
      ['application/json; charset=latin1', '{"query":"{ __typename }"}']
    ])('other content types (%s) are 415', async (type, body) => {
      const res = await post(body, type)
      expect(res.status).toBe(415)
      expect(res.headers.get('content-type')).toBe(JSON_UTF8)
      expect(res.body.errors[0].extensions.code).toBe('UNSUPPORTED_MEDIA_TYPE')
    })

    it('a body without a content type is 415', async () => {
      const res = await post('{"query":"{ __typename }"}')
      expect(res.status).toBe(415)
    })

    it.each([
      ['malformed JSON', '{"query": "{ albums { title } }"', 'Unparsable JSON body'],
      ['an empty body', '', 'Missing body'],
      ['a JSON array (no batching)', '[{"query": "{ __typename }"}]', 'Missing query'],
      ['a JSON string', '"{ __typename }"', 'JSON body must be an object'],
      ['no query', '{"variables": {}}', 'Missing query'],
      ['a query that is not a string', '{"query": {"albums": true}}', 'Invalid query'],
      ['variables that are not an object', '{"query": "{ __typename }", "variables": [1]}', 'Invalid variables'],
      ['an operationName that is not a string', '{"query": "{ __typename }", "operationName": 5}', 'Invalid operationName'],
      ['extensions that are not an object', '{"query": "{ __typename }", "extensions": "x"}', 'Invalid extensions']
    ])('%s is a 400 with a coded error', async (_what, body, message) => {
      const res = await post(body, 'application/json')
      expect(res.status).toBe(400)
      expect(res.headers.get('content-type')).toBe(JSON_UTF8)
      expect(res.body).toEqual({ errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] })
    })

    it('a __proto__ key in the body or the variables changes nothing', async () => {
      const res = await post('{"query": "query ($f: String) { albums(titleFilter: $f) { title } }", "variables": {"__proto__": {"f": "Pet"}}, "__proto__": {"query": "{ __typename }"}}', 'application/json')
      expect(res.status).toBe(200)
      expect(res.body.data.albums).toHaveLength(3)
      expect(({} as Record<string, unknown>).f).toBeUndefined()
    })

    it('a body over the body limit is 413 in the GraphQL error shape', async () => {
      const small = await startServer({ bodyLimit: 1024 })
      try {
        const res = await graphql(small.origin, `{ albums { title } } # ${'x'.repeat(2000)}`)
        expect(res.status).toBe(413)
        expect(res.body.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE')
      } finally {
        await small.close()
      }
    })
  })

  describe('Accept and response media types', () => {
    const query = '{ albums(titleFilter: "Rum") { title } }'

    it.each([
      [undefined, JSON_UTF8],
      ['*/*', JSON_UTF8],
      ['application/*', JSON_UTF8],
      ['application/json', JSON_UTF8],
      ['application/json; charset=utf-8', JSON_UTF8],
      ['application/graphql-response+json', GRAPHQL_RESPONSE_JSON],
      ['application/graphql-response+json, application/json', GRAPHQL_RESPONSE_JSON],
      ['application/json, application/graphql-response+json', JSON_UTF8],
      ['application/json;q=0.5, application/graphql-response+json', GRAPHQL_RESPONSE_JSON],
      ['application/graphql-response+json;q=0.2, application/json;q=0.9', JSON_UTF8],
      ['text/html, application/graphql-response+json;q=0.8', GRAPHQL_RESPONSE_JSON],
      ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', JSON_UTF8] // a browser
    ])('Accept %j → %s', async (accept, type) => {
      const res = await graphql(server.origin, query, undefined, accept === undefined ? {} : { accept })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe(type)
      expect(res.headers.get('vary')).toBe('Accept')
      expect(res.body).toEqual({ data: { albums: [{ title: 'Rumours' }] } })
    })

    it.each(['text/html', 'application/xml', 'application/json; charset=latin1', 'application/json;q=0'])('Accept %j → 406 naming what is offered', async (accept) => {
      const res = await graphql(server.origin, query, undefined, { accept })
      expect(res.status).toBe(406)
      expect(res.headers.get('accept')).toContain('application/graphql-response+json')
      expect(res.headers.get('accept')).toContain('application/json')
      expect(res.body.errors[0].extensions.code).toBe('NOT_ACCEPTABLE')
    })

    describe('with application/graphql-response+json, request errors are 4xx', () => {
      const accept = { accept: 'application/graphql-response+json' }
      it.each([
        ['a syntax error', '{ albums {', undefined, 'GRAPHQL_PARSE_FAILED'],
        ['a validation error', '{ albums { year } }', undefined, 'GRAPHQL_VALIDATION_FAILED'],
        ['a variable that does not coerce', 'query ($f: String) { albums(titleFilter: $f) { title } }', { f: [1] }, 'BAD_USER_INPUT'],
        ['a mutation', 'mutation { __typename }', undefined, 'OPERATION_NOT_SUPPORTED']
      ])('%s → 400', async (_what, q, variables, code) => {
        const res = await graphql(server.origin, q, variables, accept)
        expect(res.status).toBe(400)
        expect(res.headers.get('content-type')).toBe(GRAPHQL_RESPONSE_JSON)
        expect(res.body.data).toBeUndefined()
        expect(res.body.errors[0].extensions.code).toBe(code)
      })

      it('and under application/json the same errors are 200 (the legacy rule)', async () => {
        const res = await graphql(server.origin, '{ albums { year } }')
        expect(res.status).toBe(200)
        expect(res.headers.get('content-type')).toBe(JSON_UTF8)
      })
    })
  })

  describe('the schema as SDL', () => {
    it('GET /graphql/schema.graphql is the SDL of the spec', async () => {
      const res = await request(`${server.origin}/graphql/schema.graphql`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8')
      const sdl = res.text.replace(/"""[\s\S]*?"""|"[^"\n]*"/g, '').replace(/\s+/g, ' ').trim()
      expect(sdl).toBe('type Query { albums(titleFilter: String): [Album] } type Album { title: String artist: String recordNo: Int }')
    })
  })
})
