import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fromFile } from '../../src/services/collections/config.js'
import { request, startServer, type RunningServer } from '../helpers/server.js'
import { DECLARATIONS, declarationFiles } from '../services/collections/fixture.js'

/**
 * A POST of JSON whose document is valid and within budget runs without
 * graphql-http (the direct execution path); everything else goes through
 * graphql-http. Either way the answer must be the one graphql-http gives:
 * a GET of the same query (always through graphql-http) answers the same
 * status, type and bytes, and what graphql-http refuses is refused as before.
 */

const files = declarationFiles()
let server: RunningServer

beforeAll(async () => {
  server = await startServer({ collections: fromFile(files.write('books.json', DECLARATIONS), '--collections') })
  for (const title of ['One', 'Two', 'Three']) {
    expect((await request(`${server.origin}/books`, { method: 'POST', json: { title, year: 1965, price: 9.5, available: true } })).status).toBe(201)
  }
})
afterAll(async () => { await server?.close() })

const PAGE = 'query Page ($n: Int, $y: SafeInt) { books(first: $n, filter: {year: {gte: $y}}, sort: [title_ASC]) { edges { cursor node { id title year } } pageInfo { hasNextPage endCursor } } }'

async function post (body: string, accept: string, contentType = 'application/json'): ReturnType<typeof request> {
  return await request(`${server.origin}/graphql`, { method: 'POST', headers: { accept, 'content-type': contentType }, body })
}

async function get (params: Record<string, unknown>, accept: string): ReturnType<typeof request> {
  const search = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))
  return await request(`${server.origin}/graphql?${search.toString()}`, { headers: { accept } })
}

const ACCEPTS = ['application/json', 'application/graphql-response+json']

describe('a GraphQL POST run directly', () => {
  it.each(ACCEPTS)('answers as graphql-http answers the same query by GET (Accept: %s): a page, bad variables, an unknown operation, an invalid document', async (accept) => {
    for (const params of [
      { query: PAGE, variables: { n: 2, y: 1900 } },
      { query: PAGE, variables: { n: 2, y: 1900 }, operationName: 'Page' },
      { query: PAGE, variables: { n: 'two' } },
      { query: PAGE, variables: { n: 2 }, operationName: 'Other' },
      { query: '{ books { nodes { nothing } } }' },
      { query: '{ books(first: 0) { nodes { id } } }' }
    ]) {
      const direct = await post(JSON.stringify(params), accept)
      const through = await get(params, accept)
      expect({ status: direct.status, type: direct.headers.get('content-type'), text: direct.text }, JSON.stringify(params))
        .toEqual({ status: through.status, type: through.headers.get('content-type'), text: through.text })
    }
    const page = await post(JSON.stringify({ query: PAGE, variables: { n: 2, y: 1900 } }), accept)
    expect(page.status, page.text).toBe(200)
    expect(page.body.data.books.edges.map((e: { node: { title: string } }) => e.node.title)).toEqual(['One', 'Three'])
    expect(page.body.data.books.pageInfo.hasNextPage).toBe(true)
  })

  it('runs mutations, and takes the Content-Type graphql-http takes (spaces and case aside, charset utf-8 if any)', async () => {
    for (const contentType of ['application/json', 'application/json; charset=utf-8', 'Application/JSON;Charset=UTF-8']) {
      const created = await post(JSON.stringify({ query: `mutation { createBook(input: {title: "By ${contentType}", year: 2000, price: 1, available: false}) { record { title } outcome } }` }), 'application/json', contentType)
      expect(created.status).toBe(200)
      expect(created.body).toEqual({ data: { createBook: { record: { title: `By ${contentType}` }, outcome: 'CREATED' } } })
    }
  })

  it('leaves to graphql-http what it refuses, worded as before', async () => {
    const refused = async (body: string, contentType?: string): Promise<{ status: number, body: unknown }> => {
      const res = await post(body, 'application/json', contentType)
      return { status: res.status, body: res.body }
    }
    const badRequest = (message: string): { status: number, body: unknown } => ({ status: 400, body: { errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] } })
    expect(await refused('[]')).toEqual(badRequest('Missing query'))
    expect(await refused('{"query": 5}')).toEqual(badRequest('Invalid query'))
    expect(await refused(JSON.stringify({ query: PAGE, variables: [1] }))).toEqual(badRequest('Invalid variables'))
    expect(await refused(JSON.stringify({ query: PAGE, operationName: 5 }))).toEqual(badRequest('Invalid operationName'))
    expect(await refused(JSON.stringify({ query: PAGE, extensions: [] }))).toEqual(badRequest('Invalid extensions'))
    expect(await refused('{"query": ')).toEqual(badRequest('Unparsable JSON body'))
    expect((await refused(JSON.stringify({ query: PAGE }), 'application/json; charset=latin1')).status).toBe(415)
  })
})
