import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../helpers/server.js'
import { MAX_TOKENS, nestingLimit, nestsDeeperThan } from '../../src/services/albums/document-limits.js'

/**
 * Issue 10, defect 2: list and object literals, directive arguments and inline
 * fragments nested thousands deep overflowed graphql-js's recursive parser
 * (500, sometimes with "Maximum call stack size exceeded" in the answer). The
 * document is now scanned for nesting first: a GraphQL error with the
 * catalogue code NESTING_TOO_DEEP, as every request error of this service
 * (400 under application/graphql-response+json, 200 under application/json).
 */
let server: RunningServer
beforeAll(async () => { server = await startServer() })
afterAll(async () => { await server.close() })

const GRAPHQL_RESPONSE = 'application/graphql-response+json'
const wrap = (open: string, inner: string, close: string, n: number): string => open.repeat(n) + inner + close.repeat(n)

const hostile: Record<string, string> = {
  'a list literal 7 000 deep': `{ albums(titleFilter: ${wrap('[', '"x"', ']', 7000)}) { title } }`,
  'an object literal 2 000 deep': `{ albums(titleFilter: ${wrap('{a:', '1', '}', 2000)}) { title } }`,
  'a directive argument 3 000 deep': `{ albums @include(if: ${wrap('[', 'true', ']', 3000)}) { title } }`,
  'inline fragments 1 000 deep': `{ albums { ${wrap('...on Album{', ' title ', '}', 1000)} } }`,
  'a variable type 5 000 deep': `query ($v: ${wrap('[', 'String', ']', 5000)}) { albums { title } }`,
  'selections 3 000 deep': wrap('{ a ', '', '}', 3000),
  'unbalanced: 10 000 opening brackets': '{ albums(titleFilter: ' + '['.repeat(10_000)
}

describe('deeply nested GraphQL documents (issue 10, defect 2)', () => {
  for (const [name, query] of Object.entries(hostile)) {
    it(`${name}: NESTING_TOO_DEEP, never a 5xx or an internal message`, async () => {
      for (const accept of [GRAPHQL_RESPONSE, 'application/json']) {
        const res = await request(`${server.origin}/graphql`, { method: 'POST', json: { query }, headers: { accept } })
        expect(res.status, accept).toBe(accept === GRAPHQL_RESPONSE ? 400 : 200)
        expect(res.body).toEqual({ errors: [{ message: expect.stringMatching(/deeper than \d+ levels/), extensions: { code: 'NESTING_TOO_DEEP' } }] })
      }
    })
  }

  it('the same over GET', async () => {
    const query = `{ albums(titleFilter: ${wrap('[', '"x"', ']', 1900)}) { title } }`
    const get = await request(`${server.origin}/graphql?query=${encodeURIComponent(query)}`, { headers: { accept: GRAPHQL_RESPONSE } })
    expect(get.status).toBe(400)
    expect(get.body.errors[0].extensions.code).toBe('NESTING_TOO_DEEP')
  })

  it('documents nested as deep as real ones still run', async () => {
    const query = `{ albums(titleFilter: ${wrap('[', '"x"', ']', 3)}) { title } } { albums { ${wrap('... on Album {', ' title ', '}', 60)} } }`
    const res = await request(`${server.origin}/graphql`, { method: 'POST', json: { query: `{ albums { ${wrap('... on Album {', ' title ', '}', 60)} } }` }, headers: { accept: GRAPHQL_RESPONSE } })
    expect(res.status).toBe(200)
    expect(res.body.data.albums).toHaveLength(3)
    expect(nestsDeeperThan(query, 128)).toBe(false)
  })

  it('brackets inside strings, block strings and comments do not count', () => {
    const text = `{ albums(titleFilter: "${'['.repeat(500)}\\"${'{'.repeat(500)}") { title } } # ${'('.repeat(500)}\n"""${'['.repeat(500)} \\""" ${'{'.repeat(500)}"""`
    expect(nestsDeeperThan(text, 4)).toBe(false)
    expect(nestsDeeperThan('{ a { b { c } } }', 2)).toBe(true)
    expect(nestsDeeperThan('{ a { b { c } } }', 3)).toBe(false)
  })

  it('the limit stays between 128 and 512 levels whatever --graphql-max-depth says', () => {
    expect(nestingLimit(20)).toBe(128)
    expect(nestingLimit(200)).toBe(264)
    expect(nestingLimit(1_000_000)).toBe(512)
  })

  it(`a document of more than ${MAX_TOKENS} tokens is refused as QUERY_TOO_LARGE before it is parsed further`, async () => {
    const query = `{ albums { ${'title '.repeat(MAX_TOKENS)} } }`
    const res = await request(`${server.origin}/graphql`, { method: 'POST', json: { query }, headers: { accept: GRAPHQL_RESPONSE } })
    expect(res.status).toBe(400)
    expect(res.body.errors[0].extensions.code).toBe('QUERY_TOO_LARGE')
  })

  it('the shape limits are checked before the standard rules, whose field-overlap check is quadratic', async () => {
    // 2 700 copies of one field fit in 16 KB; graphql-js compared them pairwise (~300 ms) before the limit said no.
    const query = `{ albums { ${'title '.repeat(2700)} nope } }`
    const res = await request(`${server.origin}/graphql`, { method: 'POST', json: { query }, headers: { accept: GRAPHQL_RESPONSE } })
    expect(res.status).toBe(400)
    expect(res.body.errors.map((e: any) => e.extensions.code)).toEqual(['QUERY_TOO_COMPLEX'])
  })

  it('a JSON body nested deeper than 64 levels is a 400 NESTING_TOO_DEEP whatever the Accept', async () => {
    const body = `{"query":"{ albums { title } }","variables":{"v":${wrap('[', '1', ']', 20_000)}}}`
    for (const accept of [GRAPHQL_RESPONSE, 'application/json']) {
      const res = await request(`${server.origin}/graphql`, { method: 'POST', body, headers: { accept, 'content-type': 'application/json' } })
      expect(res.status).toBe(400)
      expect(res.body.errors[0].extensions.code).toBe('NESTING_TOO_DEEP')
    }
  })
})
