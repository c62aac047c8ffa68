import { afterAll, beforeAll, expect, it } from 'vitest'
import type { RecordStores, SchemaMove, SharedSchema } from '../../src/domain/index.js'
import { makeConfig, type Config } from '../../src/options.js'
import { declarationsOf, SERVICES } from '../../src/services/index.js'
import { openStores } from '../../src/stores/index.js'
import { gql } from '../graphql/helpers.js'
import { describePostgres, postgresDatabases } from '../helpers/postgres-http.js'
import { request, startServer, type RunningServer } from '../helpers/server.js'

/**
 * Two instances on one PostgreSQL database: what the admin API changes on
 * one, the other serves within a second without a restart (REST, GraphQL,
 * /openapi.json, the listing); a write the other makes with the declaration
 * before is refused (503 SCHEMA_CHANGED) and, sent again, succeeds.
 */
const { store } = postgresDatabases()

const title = { type: 'string', minLength: 1, maxLength: 50 }
const BOOKS = { schema: { type: 'object', properties: { title, year: { type: 'integer' } }, required: ['title'] }, ids: 'sequence' }
const WITH_PAGES = { ...BOOKS, schema: { ...BOOKS.schema, properties: { ...BOOKS.schema.properties, pages: { type: 'integer', default: 100 } } } }
const WITH_ISBN = { ...WITH_PAGES, schema: { ...WITH_PAGES.schema, properties: { ...WITH_PAGES.schema.properties, isbn: { type: 'string', default: 'unknown' } } } }

/** Holds the announcements of other instances' changes while closed (a lost notification); refusals of stale writes pass. */
class Deafness {
  closed = false
  readonly held: Array<() => void> = []

  wrap (shared: SharedSchema): SharedSchema {
    return {
      watch: (moved) => shared.watch((why: SchemaMove) => {
        if (this.closed && why === 'announced') this.held.push(() => { moved(why) })
        else moved(why)
      }),
      pin: (name, version) => { shared.pin(name, version) },
      forget: (name) => { shared.forget(name) }
    }
  }
}

/** How long `test` took to hold, failing after `ms`. */
async function within (ms: number, test: () => Promise<boolean>): Promise<number> {
  const started = Date.now()
  while (!await test()) {
    if (Date.now() - started > ms) throw new Error(`did not hold within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return Date.now() - started
}

describePostgres(() => {
  let a: RunningServer
  let b: RunningServer
  let bStores: RecordStores
  const deaf = new Deafness()

  beforeAll(async () => {
    const overrides = { collections: { declared: [], api: true }, store: store() as Config['store'] }
    a = await startServer(overrides)
    const config = makeConfig({ logLevel: 'silent', port: 0, ...overrides })
    bStores = await openStores(config.store, undefined, declarationsOf(SERVICES, config))
    const schema = bStores.schema
    if (schema?.shared === undefined) throw new Error('PostgreSQL stores are shared')
    schema.shared = deaf.wrap(schema.shared)
    b = await startServer(overrides, { stores: bStores })
  }, 60_000)
  afterAll(async () => {
    await b?.close()
    await bStores?.close()
    await a?.close()
  })

  const on = (server: RunningServer) => ({
    json: async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      await request(`${server.origin}${path}`, { method, headers, ...(body === undefined ? {} : { json: body }) }),
    etag: async (name: string) => (await request(`${server.origin}/collections/${name}`)).headers.get('etag')
  })

  it('serves a collection another instance created within a second: REST, GraphQL, OpenAPI, the listing', async () => {
    expect((await on(b).json('GET', '/books')).status).toBe(404)
    expect((await on(a).json('POST', '/collections', { name: 'books', ...BOOKS })).status).toBe(201)
    const took = await within(1000, async () => (await on(b).json('GET', '/books')).status === 200)
    expect(took).toBeLessThan(1000)
    const created = await on(b).json('POST', '/books', { title: 'Dune', year: 1965 })
    expect(created.status).toBe(201)
    expect(created.body).toEqual({ id: 1, title: 'Dune', year: 1965 })
    expect((await gql(b.origin, '{ books { nodes { title year } } }')).body).toEqual({ data: { books: { nodes: [{ title: 'Dune', year: 1965 }] } } })
    expect(Object.keys((await on(b).json('GET', '/openapi.json')).body.paths)).toContain('/books/{id}')
    expect((await on(b).json('GET', '/collections')).body.items.map((c: { name: string }) => c.name)).toContain('books')
    expect(await on(b).etag('books')).toBe('"v1"')
  })

  it('serves a field another instance added within a second, with its default, on REST, GraphQL and OpenAPI', async () => {
    expect((await on(a).json('PUT', '/collections/books', WITH_PAGES, { 'if-match': await on(a).etag('books') as string })).status).toBe(200)
    await within(1000, async () => (await on(b).json('GET', '/books/1')).body?.pages === 100)
    expect((await gql(b.origin, '{ books { nodes { title pages } } }')).body).toEqual({ data: { books: { nodes: [{ title: 'Dune', pages: 100 }] } } })
    const document = (await on(b).json('GET', '/openapi.json')).body
    expect(JSON.stringify(document.paths['/books'])).toContain('pages')
    expect((await on(b).json('POST', '/books', { title: 'Emma', pages: 320 })).body).toMatchObject({ title: 'Emma', pages: 320 })
    // B's admin API reads the version the database holds: its ETag fits a change made through it.
    expect(await on(b).etag('books')).toBe('"v2"')
  })

  it('refuses a write made with the declaration before a change it did not hear of (503 SCHEMA_CHANGED), then serves it sent again', async () => {
    deaf.closed = true
    try {
      expect((await on(a).json('PUT', '/collections/books', WITH_ISBN, { 'if-match': await on(a).etag('books') as string })).status).toBe(200)
      // B has not heard: it still serves version 2.
      expect(await on(b).etag('books')).toBe('"v2"')
      const stale = await on(b).json('POST', '/books', { title: 'Ulysses', year: 1922 })
      expect(stale.status).toBe(503)
      expect(stale.headers.get('retry-after')).toBe('1')
      expect(stale.headers.get('content-type')).toContain('application/problem+json')
      expect(stale.body.errors[0].error).toBe('SCHEMA_CHANGED')
      // The refusal made B follow.
      await within(1000, async () => await on(b).etag('books') === '"v3"')
      const again = await on(b).json('POST', '/books', { title: 'Ulysses', year: 1922 })
      expect(again.status).toBe(201)
      expect(again.body).toMatchObject({ title: 'Ulysses', year: 1922, pages: 100, isbn: 'unknown' })
    } finally {
      deaf.closed = false
      deaf.held.splice(0).forEach((deliver) => { deliver() })
    }
    // Nothing was written by the refused request.
    const titles = (await on(a).json('GET', '/books')).body.items.map((r: { title: string }) => r.title)
    expect(titles.filter((t: string) => t === 'Ulysses')).toHaveLength(1)
  })

  it('refuses a GraphQL write made with the declaration before, in GraphQL\'s shape', async () => {
    deaf.closed = true
    try {
      const next = { ...WITH_ISBN, description: 'Books, described' }
      expect((await on(a).json('PUT', '/collections/books', next, { 'if-match': await on(a).etag('books') as string })).status).toBe(200)
      const stale = await gql(b.origin, 'mutation { createBook(input: {title: "Emma"}) { outcome } }')
      expect(stale.body.errors[0].extensions.code).toBe('SCHEMA_CHANGED')
      await within(1000, async () => await on(b).etag('books') === '"v4"')
      expect((await gql(b.origin, 'mutation { createBook(input: {title: "Emma"}) { outcome } }')).body).toEqual({ data: { createBook: { outcome: 'CREATED' } } })
    } finally {
      deaf.closed = false
      deaf.held.splice(0).forEach((deliver) => { deliver() })
    }
  })

  it('forgets a collection another instance removed within a second', async () => {
    expect((await on(a).json('DELETE', '/collections/books?confirm=books', undefined, { 'if-match': await on(a).etag('books') as string })).status).toBe(200)
    await within(1000, async () => (await on(b).json('GET', '/books')).status === 404)
    expect((await gql(b.origin, '{ books { totalCount } }')).body.errors[0].message).toContain('books')
    expect(Object.keys((await on(b).json('GET', '/openapi.json')).body.paths)).not.toContain('/books')
  })
})
