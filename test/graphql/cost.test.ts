import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resolveConfig } from '../../src/options.js'
import { fromFile } from '../../src/services/collections/config.js'
import { request, startServer, type RunningServer } from '../helpers/server.js'
import { DECLARATIONS, declarationFiles } from '../services/collections/fixture.js'

/**
 * A GraphQL document is weighed before it runs (issue 36): a list costs its
 * `first` times the fields of a record, `totalCount` and a text search a scan
 * each (10 000); past `--graphql-max-cost` (100 000) it is refused with
 * QUERY_TOO_COSTLY, whose message gives the cost and the budget.
 */

const RECORD = 'id title year price available isbn published'
/** The attack of issue 36: 30 aliases of a search, sorted, with its count and 500 records. */
const ATTACK = `{ ${Array.from({ length: 30 }, (_, i) => `b${i}: books(first: 500, filter: {q: "ß1"}, sort: [title_DESC]) { totalCount nodes { ${RECORD} } }`).join(' ')} }`
/** 30 × (1 + 10 000 for the search + 10 000 for totalCount + 1 for nodes + 500 × 7 fields). */
const ATTACK_COST = 30 * (1 + 10_000 + 10_000 + 1 + 500 * 7)

const files = declarationFiles()
let server: RunningServer
let uncapped: RunningServer

beforeAll(async () => {
  const collections = fromFile(files.write('books.json', DECLARATIONS), '--collections')
  server = await startServer({ collections })
  uncapped = await startServer({ collections, albums: { ...resolveConfig({}, {}).albums, maxCost: 0 } })
  for (const s of [server, uncapped]) {
    expect((await request(`${s.origin}/books`, { method: 'POST', json: { title: 'ß1 and more', year: 1965, price: 9.5, available: true } })).status).toBe(201)
  }
})
afterAll(async () => {
  await server?.close()
  await uncapped?.close()
})

async function post (origin: string, query: string, variables?: Record<string, unknown>): ReturnType<typeof request> {
  return await request(`${origin}/graphql`, { method: 'POST', headers: { accept: 'application/graphql-response+json' }, json: { query, variables } })
}

describe('the cost of a GraphQL document', () => {
  it('refuses the 30-alias search with QUERY_TOO_COSTLY (400), giving the cost and the budget, before it runs — over POST and GET', async () => {
    expect(Buffer.byteLength(ATTACK)).toBeLessThan(16 * 1024) // within the document size, depth, field and alias limits
    const res = await post(server.origin, ATTACK)
    expect(res.status).toBe(400)
    expect(res.body.data).toBeUndefined()
    expect(res.body.errors).toEqual([{
      message: expect.stringContaining(`The query costs ${ATTACK_COST}, more than the budget of 100000`),
      locations: [{ line: 1, column: 1 }],
      extensions: { code: 'QUERY_TOO_COSTLY', cost: ATTACK_COST, budget: 100_000 }
    }])
    const got = await request(`${server.origin}/graphql?query=${encodeURIComponent(ATTACK)}`, { headers: { accept: 'application/json' } })
    expect(got.body.errors[0].extensions).toEqual({ code: 'QUERY_TOO_COSTLY', cost: ATTACK_COST, budget: 100_000 })
    // Switched off (--graphql-max-cost 0), the same document runs.
    const ran = await post(uncapped.origin, ATTACK)
    expect(ran.status).toBe(200)
    expect(ran.body.data.b29).toMatchObject({ totalCount: 1, nodes: [{ title: 'ß1 and more' }] })
  })

  it('weighs `first` given as a variable (and its default), fragments once per use, and lets ordinary documents run', async () => {
    const aliases = (first: string): string => Array.from({ length: 15 }, (_, i) => `b${i}: books(first: ${first}) { ...page }`).join(' ')
    const fragment = `fragment page on BookConnection { nodes { ${RECORD} } }`
    // 15 × (1 + 1 for nodes + n × 7)
    const query = `query ($n: Int = 500) { ${aliases('$n')} } ${fragment}`
    expect((await post(server.origin, query)).status).toBe(200) // 52 530
    expect((await post(server.origin, query, { n: 5 })).status).toBe(200)
    const refused = await post(server.origin, query, { n: 1000 })
    expect(refused.status).toBe(400)
    expect(refused.body.errors[0].extensions).toEqual({ code: 'QUERY_TOO_COSTLY', cost: 15 * (2 + 1000 * 7), budget: 100_000 })
    // Without `first`, the default page (50).
    const unsized = await post(server.origin, `{ ${aliases('1000').replace(/\(first: 1000\)/g, '')} } ${fragment}`)
    expect(unsized.status).toBe(200)
    expect((await post(server.origin, `query ($n: Int) { ${aliases('$n')} } ${fragment}`)).status).toBe(200)

    for (const ordinary of [
      `{ books(first: 100, filter: {q: "ß1"}, sort: [title_DESC]) { totalCount edges { cursor node { ${RECORD} } } pageInfo { hasNextPage endCursor } } }`,
      `{ students { totalCount nodes { firstName lastName age } } albums { title artist } x: books { nodes { ${RECORD} } } }`
    ]) {
      const res = await post(server.origin, ordinary)
      expect(res.status).toBe(200)
      expect(res.body.errors).toBeUndefined()
    }
  })

  it('weighs a kept document again for each request\'s variables: refused, run, refused again as `first` and a searching filter change', async () => {
    // 10 aliases × (1 + 1 for nodes + n × 7), plus 10 000 for each search the filter variable asks for.
    const query = `query ($n: Int, $f: BookFilter) { ${Array.from({ length: 10 }, (_, i) => `b${i}: books(first: $n, filter: $f) { nodes { ${RECORD} } }`).join(' ')} }`
    const costOf = (n: number, search: boolean): number => 10 * (2 + n * 7 + (search ? 10_000 : 0))
    for (const [variables, cost] of [
      [{ n: 2000 }, costOf(2000, false)],
      [{ n: 5 }, costOf(5, false)],
      [{ n: 5, f: { q: 'ß1' } }, costOf(5, true)],
      [{ n: 5, f: { year: { gt: 1 } } }, costOf(5, false)],
      [{ n: 5, f: { or: [{ year: { gt: 1 } }, { q: 'ß1' }] } }, costOf(5, true)],
      [{ n: 1500 }, costOf(1500, false)],
      [{ n: 5 }, costOf(5, false)]
    ] as Array<[Record<string, unknown>, number]>) {
      const res = await post(server.origin, query, variables)
      if (cost > 100_000) {
        expect(res.status, JSON.stringify(variables)).toBe(400)
        expect(res.body.errors[0].extensions).toEqual({ code: 'QUERY_TOO_COSTLY', cost, budget: 100_000 })
      } else {
        expect(res.status, JSON.stringify(variables)).toBe(200)
        expect(res.body.errors, JSON.stringify(variables)).toBeUndefined()
      }
    }
    // A search named in the document's filter by a variable of its own; a condition's variable never weighs.
    const searching = `query ($q: String, $y: SafeInt) { ${Array.from({ length: 10 }, (_, i) => `b${i}: books(first: 5, filter: {year: {gt: $y}, and: [{q: $q}]}) { nodes { ${RECORD} } }`).join(' ')} }`
    expect((await post(server.origin, searching, { y: 1 })).status).toBe(200)
    expect((await post(server.origin, searching, { q: 'ß1', y: 1 })).body.errors[0].extensions).toEqual({ code: 'QUERY_TOO_COSTLY', cost: costOf(5, true), budget: 100_000 })
    expect((await post(server.origin, searching, { q: null, y: 2 })).status).toBe(200)
  })

  it('is an option: --graphql-max-cost and RQS_GRAPHQL_MAX_COST set the budget (default 100000, 0: not weighed)', () => {
    expect(resolveConfig({}, {}).albums.maxCost).toBe(100_000)
    expect(resolveConfig({ 'graphql-max-cost': '5000' }, {}).albums.maxCost).toBe(5000)
    expect(resolveConfig({}, { RQS_GRAPHQL_MAX_COST: '0' }).albums.maxCost).toBe(0)
  })
})

describe('a search inside and, or, not', () => {
  it('costs a scan as a top-level search does (issue 31: nested filters)', async () => {
    const nested = `{ ${Array.from({ length: 30 }, (_, i) => `b${i}: books(first: 500, filter: {or: [{year: {gt: 1}}, {not: {q: "ß1"}}]}) { totalCount nodes { ${RECORD} } }`).join(' ')} }`
    const res = await post(server.origin, nested)
    expect(res.status).toBe(400)
    expect(res.body.errors[0].extensions).toEqual({ code: 'QUERY_TOO_COSTLY', cost: ATTACK_COST, budget: 100_000 })
  })
})
