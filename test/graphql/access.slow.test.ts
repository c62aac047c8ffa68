import { serverAudits } from 'graphql-http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../helpers/server.js'
import { bearer, security, writeTokensFile, type TokensFile } from '../http/security/helpers.js'
import { gql, subscribe } from './helpers.js'

/** Scopes, limits and the GraphQL-over-HTTP audits with the collections in the schema (issue 23). */

describe('scopes, as for REST', () => {
  let tokens: TokensFile<'reader' | 'writer'>
  let server: RunningServer
  const create = 'mutation { createStudent(input: {firstName: "Ada", lastName: "Lovelace", age: 36}) { record { id } } }'

  beforeAll(async () => {
    tokens = await writeTokensFile({ reader: ['read'], writer: ['read', 'write'] })
    server = await startServer({ security: security({ authTokensFile: tokens.path, authFailureLimit: { max: 1000, windowMs: 60_000 } }) })
  })
  afterAll(async () => {
    await server.close()
    await tokens.remove()
  })

  it('a query needs read: without a token the request is refused before it runs', async () => {
    const res = await gql(server.origin, '{ students { totalCount } }')
    expect(res.status).toBe(401)
    expect(res.body.errors[0].extensions.code).toBe('UNAUTHENTICATED')
    const read = await gql(server.origin, '{ students { totalCount } }', undefined, bearer(tokens.tokens.reader))
    expect(read.body).toEqual({ data: { students: { totalCount: 0 } } })
  })

  it('a mutation with a read token is refused in GraphQL\'s shape with FORBIDDEN, and nothing is written', async () => {
    const res = await gql(server.origin, create, undefined, bearer(tokens.tokens.reader))
    expect(res.status).toBe(200)
    expect(res.body.data).toEqual({ createStudent: null })
    expect(res.body.errors[0]).toMatchObject({ path: ['createStudent'], extensions: { code: 'FORBIDDEN' } })
    const count = await gql(server.origin, '{ students { totalCount } }', undefined, bearer(tokens.tokens.reader))
    expect(count.body.data.students.totalCount).toBe(0)
  })

  it('a mutation with a write token writes', async () => {
    const res = await gql(server.origin, create, undefined, bearer(tokens.tokens.writer))
    expect(res.body).toEqual({ data: { createStudent: { record: { id: '0' } } } })
  })

  it('a subscription needs read', async () => {
    const refused = await subscribe(server.origin, 'subscription { studentsChanged { seq } }')
    expect(refused.status).toBe(401)
    refused.close()
    const sub = await subscribe(server.origin, 'subscription { studentsChanged { kind } }', undefined, bearer(tokens.tokens.reader))
    try {
      expect(sub.status).toBe(200)
      await new Promise((resolve) => setTimeout(resolve, 100))
      await gql(server.origin, create, undefined, bearer(tokens.tokens.writer))
      expect(await sub.next(1)).toEqual([{ data: { studentsChanged: { kind: 'CREATED' } } }])
    } finally { sub.close() }
  })
})

describe('limits and the audits, with the collections in the schema', () => {
  let server: RunningServer
  beforeAll(async () => { server = await startServer({ albums: { maxDepth: 3, maxAliases: 2, maxFields: 12 } as never }) })
  afterAll(async () => { await server.close() })

  it('depth, aliases and cost count the new fields', async () => {
    const deep = await gql(server.origin, '{ students { edges { node { id } } } }')
    expect(deep.body.errors[0].extensions.code).toBe('QUERY_TOO_DEEP')
    const aliases = await gql(server.origin, '{ a: students { totalCount } b: students { totalCount } c: addresses { totalCount } }')
    expect(aliases.body.errors[0].extensions.code).toBe('TOO_MANY_ALIASES')
    const wide = await gql(server.origin, '{ students { nodes { id firstName lastName age etag } } addresses { nodes { id name city postalCode etag } } }')
    expect(wide.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX')
    const fine = await gql(server.origin, '{ students { totalCount nodes { id } } }')
    expect(fine.body).toEqual({ data: { students: { totalCount: 0, nodes: [] } } })
    const sub = await subscribe(server.origin, 'subscription { studentsChanged { a: seq b: seq c: seq } }')
    try {
      const [result] = await sub.next(1)
      expect(result.errors[0].extensions.code).toBe('TOO_MANY_ALIASES')
    } finally { sub.close() }
  })

  it('passes every graphql-http audit', async () => {
    const audits = serverAudits({ url: `${server.origin}/graphql` })
    const results = await Promise.all(audits.map(async (audit) => await audit.fn()))
    expect(results.filter((r) => r.status !== 'ok').map((r) => `${r.id} ${r.name}: ${r.reason}`)).toEqual([])
  })

  it('GET /graphql/schema.graphql is the whole schema: albums as the spec says, and every collection', async () => {
    const res = await request(`${server.origin}/graphql/schema.graphql`)
    expect(res.text).toContain('albums(titleFilter: String): [Album]')
    expect(res.text).toContain('students(filter: StudentFilter, sort: [StudentSort!], first: Int, after: String): StudentConnection!')
    expect(res.text).toContain('createStudent(input: StudentInput!): StudentWritten\n')
    expect(res.text).toContain('studentsChanged(after: SafeInt, filter: StudentFilter): StudentChange!')
  })
})
