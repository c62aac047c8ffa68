import { getIntrospectionQuery } from 'graphql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultConfig } from '../../../src/options.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { graphql } from './helpers.js'

/** A document `depth` levels deep, through introspection (albums alone is only 2 deep). */
function deepQuery (depth: number): string {
  // __schema (1) › types (2) › fields (3) › type (4) › fields (5) › ... › name (depth)
  const middle = Array.from({ length: depth - 3 }, (_, i) => i % 2 === 0 ? 'fields' : 'type')
  return `{ __schema { types { ${middle.map((f) => `${f} { `).join('')}name${' }'.repeat(middle.length)} } } }`
}

describe('query limits (depth, fields, aliases, size) and the introspection switch', () => {
  const limits = { maxDepth: 6, maxFields: 12, maxAliases: 3, maxDocumentBytes: 600 }
  let server: RunningServer
  beforeAll(async () => { server = await startServer({ albums: limits }) })
  afterAll(async () => { await server.close() })

  async function rejected (query: string, code: string, accept = 'application/graphql-response+json'): Promise<void> {
    const res = await graphql(server.origin, query, undefined, { accept })
    expect(res.status).toBe(400)
    expect(res.body.data).toBeUndefined()
    expect(res.body.errors).toHaveLength(1)
    expect(res.body.errors[0].extensions).toEqual({ code })
  }

  it('depth: at the limit runs, one deeper is QUERY_TOO_DEEP', async () => {
    const ok = await graphql(server.origin, deepQuery(6))
    expect(ok.body.errors).toBeUndefined()
    await rejected(deepQuery(7), 'QUERY_TOO_DEEP')
  })

  it('depth counts through named and inline fragments', async () => {
    await rejected(`{ __schema { types { ...F } } } fragment F on __Type { fields { type { ... on __Type { fields { type { name } } } } } }`, 'QUERY_TOO_DEEP')
  })

  it('fields: each selected field costs 1, fragments counted once per use', async () => {
    const twelve = '{ a: albums { title artist recordNo } b: albums { title artist recordNo } albums { title artist recordNo } }' // 3 × (1 + 3)
    expect((await graphql(server.origin, twelve)).body.errors).toBeUndefined()
    await rejected('{ a: albums { title artist recordNo } b: albums { title artist recordNo } albums { title artist recordNo } __typename }', 'QUERY_TOO_COMPLEX')
    await rejected('{ albums { ...F ...F ...F ...F } } fragment F on Album { title artist recordNo }', 'QUERY_TOO_COMPLEX')
  })

  it('a fragment "bomb" is refused without expanding it (bounded work)', async () => {
    // 2^8 title selections once expanded, in a document of some 400 bytes.
    const fragments = Array.from({ length: 8 }, (_, i) => `fragment F${i} on Album { ...F${i + 1} ...F${i + 1} }`).join(' ')
    await rejected(`{ albums { ...F0 } } ${fragments} fragment F8 on Album { title }`, 'QUERY_TOO_COMPLEX')
  })

  it('aliases: at the limit runs, one more is TOO_MANY_ALIASES', async () => {
    expect((await graphql(server.origin, '{ a: albums { t: title } b: albums { title } }')).body.errors).toBeUndefined()
    await rejected('{ a: albums { t: title } b: albums { title } c: __typename }', 'TOO_MANY_ALIASES')
  })

  it('size: a document over the byte limit is QUERY_TOO_LARGE, counted in UTF-8 bytes', async () => {
    const padded = (n: number, ch: string): string => `{ albums { title } } # ${ch.repeat(n)}`
    expect((await graphql(server.origin, padded(600 - 23, 'x'))).body.errors).toBeUndefined()
    await rejected(padded(600 - 22, 'x'), 'QUERY_TOO_LARGE')
    await rejected(padded(300, 'é'), 'QUERY_TOO_LARGE') // 323 characters but 623 bytes
  })

  it('under application/json a limit error is still an errors array with its code (status 200)', async () => {
    const res = await graphql(server.origin, deepQuery(9))
    expect(res.status).toBe(200)
    expect(res.body.errors[0].extensions.code).toBe('QUERY_TOO_DEEP')
  })

  it('the limits hold over GET as well', async () => {
    const res = await fetch(`${server.origin}/graphql?query=${encodeURIComponent(deepQuery(9))}`, { headers: { accept: 'application/graphql-response+json' } })
    expect(res.status).toBe(400)
    expect(((await res.json()) as any).errors[0].extensions.code).toBe('QUERY_TOO_DEEP')
  })

  it('the default limits let GraphiQL\'s full introspection query through', async () => {
    const defaults = await startServer()
    try {
      const query = getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true, schemaDescription: true, specifiedByUrl: true, directiveIsRepeatable: true })
      const res = await graphql(defaults.origin, query)
      expect(res.body.errors).toBeUndefined()
      expect(res.body.data.__schema.queryType.name).toBe('Query')
      expect(defaultConfig().albums).toMatchObject({ maxDepth: 20, maxFields: 500, maxAliases: 30, maxDocumentBytes: 16384, introspection: true })
    } finally {
      await defaults.close()
    }
  })

  describe('introspection switched off', () => {
    let closed: RunningServer
    beforeAll(async () => { closed = await startServer({ albums: { introspection: false } }) })
    afterAll(async () => { await closed.close() })

    it.each([
      ['__schema', '{ __schema { queryType { name } } }'],
      ['__type', '{ __type(name: "Album") { name } }'],
      ['__schema in a fragment', '{ ...F } fragment F on Query { __schema { types { name } } }']
    ])('%s is INTROSPECTION_DISABLED', async (_what, query) => {
      const res = await graphql(closed.origin, query, undefined, { accept: 'application/graphql-response+json' })
      expect(res.status).toBe(400)
      expect(res.body.errors[0].extensions.code).toBe('INTROSPECTION_DISABLED')
      expect(res.body.errors[0].message).toMatch(/introspection has been disabled/)
    })

    it('queries and __typename still work', async () => {
      const res = await graphql(closed.origin, '{ __typename albums(titleFilter: "Pet") { __typename title } }')
      expect(res.body).toEqual({ data: { __typename: 'Query', albums: [{ __typename: 'Album', title: 'Pet Sounds' }] } })
    })

    it('the schema as SDL is not served either: 404, and the API description no longer lists it (issue 19)', async () => {
      const sdl = await request(`${closed.origin}/graphql/schema.graphql`)
      expect(sdl.status).toBe(404)
      expect(sdl.text).not.toContain('type Query')
      const described = await request(`${closed.origin}/openapi.json`)
      expect(Object.keys(described.body.paths)).not.toContain('/graphql/schema.graphql')
      // With introspection on (the default) it is there.
      expect(Object.keys((await request(`${server.origin}/openapi.json`)).body.paths)).toContain('/graphql/schema.graphql')
    })
  })
})
