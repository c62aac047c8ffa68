import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Config } from '../../src/options.js'
import { request, startServer, type RunningServer } from '../helpers/server.js'
import { gql, subscribe } from './helpers.js'

/**
 * The GraphQL schema follows collections changed while the server runs
 * (the admin API), on one store (live-schema.test.ts): a collection created
 * is queryable, writable and subscribable at once, a changed one answers
 * with its new fields, a removed one is gone, and a subscription started
 * before a change keeps running on the schema it started with.
 */
const BOOKS = { schema: { type: 'object', properties: { title: { type: 'string', minLength: 1 }, year: { type: 'integer' } }, required: ['title'] }, ids: 'sequence' }

/** Waits until `test` holds, failing after five seconds (a stream's events come when they come). */
async function until (test: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000
  while (!test()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a subscription result')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

export function liveSchemaSuite (storeOf: () => Config['store'] | undefined): void {
  let server: RunningServer
  let url: string
  beforeAll(async () => {
    const store = storeOf()
    server = await startServer({ collections: { declared: [], api: true }, ...(store === undefined ? {} : { store }) })
    url = server.origin
  })
  afterAll(async () => { await server.close() })

  const etag = async (name: string): Promise<string> => (await request(`${url}/collections/${name}`)).headers.get('etag') as string

  it('serves a collection created at run time in GraphQL at once: query, mutation, SDL', async () => {
    const before = await gql(url, '{ books { totalCount } }')
    expect(before.body.errors[0].message, JSON.stringify(before.body)).toContain('books')
    // A running subscription, started on the schema before the change.
    const students = await subscribe(url, 'subscription { studentsChanged { kind record { firstName } } }')
    expect(students.status).toBe(200)

    expect((await request(`${url}/collections`, { method: 'POST', json: { name: 'books', ...BOOKS } })).status).toBe(201)
    const created = await gql(url, 'mutation { createBook(input: {title: "Dune", year: 1965}) { outcome record { id title year } } }')
    expect(created.body).toEqual({ data: { createBook: { outcome: 'CREATED', record: { id: '1', title: 'Dune', year: 1965 } } } })
    expect((await request(`${url}/books`, { method: 'POST', json: { title: 'Emma', year: 1815 } })).status).toBe(201)
    const listed = await gql(url, '{ books(sort: [year_ASC]) { totalCount nodes { title year } } }')
    expect(listed.body).toEqual({ data: { books: { totalCount: 2, nodes: [{ title: 'Emma', year: 1815 }, { title: 'Dune', year: 1965 }] } } })
    const sdl = await request(`${url}/graphql/schema.graphql`)
    expect(sdl.text).toContain('createBook(')

    // The subscription started before the change still hears the change log.
    expect((await request(`${url}/students`, { method: 'POST', json: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.org', age: 36 } })).status).toBe(201)
    await until(() => students.results.some((r) => r.data?.studentsChanged?.record?.firstName === 'Ada'))
    students.close()
  })

  it('answers a changed collection with its new fields, and a subscription to it runs', async () => {
    const changes = await subscribe(url, 'subscription { booksChanged { kind record { title } } }')
    expect(changes.status).toBe(200)
    try {
      const next = { ...BOOKS, schema: { ...BOOKS.schema, properties: { ...BOOKS.schema.properties, pages: { type: 'integer', default: 100 } } } }
      const changed = await request(`${url}/collections/books`, { method: 'PUT', json: next, headers: { 'if-match': await etag('books') } })
      expect(changed.status).toBe(200)
      const read = await gql(url, '{ books(sort: [year_ASC]) { nodes { title pages } } }')
      expect(read.body).toEqual({ data: { books: { nodes: [{ title: 'Emma', pages: 100 }, { title: 'Dune', pages: 100 }] } } })
      // Started before the change: it keeps running.
      expect((await request(`${url}/books`, { method: 'POST', json: { title: 'Ulysses', year: 1922 } })).status).toBe(201)
      // The stream may first replay what the change log held; Ulysses comes after it.
      await until(() => changes.results.some((r) => r.data?.booksChanged?.record?.title === 'Ulysses'))
    } finally {
      changes.close()
    }
  })

  it('forgets a removed collection', async () => {
    const removed = await request(`${url}/collections/books?confirm=books`, { method: 'DELETE', headers: { 'if-match': await etag('books') } })
    expect(removed.status).toBe(200)
    const gone = await gql(url, '{ books { totalCount } }')
    expect(gone.body.errors[0].message).toContain('books')
  })
}
