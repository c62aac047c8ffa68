import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Config } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { connectFeed } from '../../helpers/sse.js'
import { DECLARATIONS, declarationFiles } from './fixture.js'

/**
 * A declared collection over HTTP against a real listening server: the
 * address book's conventions for any declaration, alike on every store
 * (http.slow.test.ts: memory and SQLite; http-pg.test.ts: PostgreSQL).
 */
const files = declarationFiles()
const BOOKS = [
  { title: 'Dune', year: 1965, price: 9.5, available: true, isbn: '978-0441013593' },
  { title: 'Neuromancer', year: 1984, price: 7.25, available: false },
  { title: 'The Dispossessed', year: 1974, price: 12, available: true, published: '1974-05-01' },
  { title: 'Solaris', year: 1961, price: 5, available: false }
]


export function collectionSuite (storeOf: () => Config['store'] | undefined): void {
  let server: RunningServer
  let base: string

  beforeAll(async () => {
    const store = storeOf()
    server = await startServer({ collections: fromFile(files.write('books.json', DECLARATIONS), '--collections'), ...(store === undefined ? {} : { store }) })
    base = server.origin
    for (const book of BOOKS) expect((await request(`${base}/books`, { method: 'POST', json: book })).status).toBe(201)
  })
  afterAll(async () => { await (server as RunningServer | undefined)?.close() })

  describe('records', () => {
    it('creates with 201, Location and ETag, and reads it back', async () => {
      const created = await request(`${base}/books`, { method: 'POST', json: { title: 'Kindred', year: 1979, price: 8, available: true } })
      expect(created.status).toBe(201)
      expect(created.body).toEqual({ id: 5, title: 'Kindred', year: 1979, price: 8, available: true })
      expect(created.headers.get('location')).toBe('/books/5')
      const etag = created.headers.get('etag')
      expect(etag).toMatch(/^"/)
      const read = await request(`${base}/books/5`)
      expect(read.body).toEqual(created.body)
      expect(read.headers.get('etag')).toBe(etag)
      expect((await request(`${base}/books/5`, { headers: { 'if-none-match': etag as string } })).status).toBe(304)
    })

    it('refuses a bad body with problems naming the field, in English and German', async () => {
      const en = await request(`${base}/books`, { method: 'POST', json: { title: '', year: 'old', price: 1, available: true, isbn: 'x', published: '2024-02-30' } })
      expect(en.status).toBe(400)
      expect(en.headers.get('content-type')).toContain('application/problem+json')
      const codes = Object.fromEntries(en.body.errors.map((e: { error: string, detail: string, message: string }) => [e.detail.split(' ')[0], [e.error, e.message]]))
      expect(codes['body.title']).toEqual(['FIELD_TOO_SHORT', 'title is too short.'])
      expect(codes['body.year']).toEqual(['FIELD_TYPE', 'year has the wrong type.'])
      expect(codes['body.isbn']?.[0]).toBe('FIELD_INVALID')
      expect(codes['body.published']?.[0]).toBe('FIELD_INVALID')
      const de = await request(`${base}/books`, { method: 'POST', headers: { 'accept-language': 'de' }, json: { year: 5000, price: 1, available: true } })
      expect(de.status).toBe(400)
      const messages = de.body.errors.map((e: { message: string }) => e.message)
      expect(messages).toContain('title ist erforderlich.')
      expect(messages).toContain('year liegt außerhalb des erlaubten Bereichs.')
    })

    it('replaces with PUT (ETag, If-Match 412), never creates (404), and deletes', async () => {
      const created = await request(`${base}/books`, { method: 'POST', json: { title: 'Temp', year: 2000, price: 1, available: true } })
      const id = created.body.id as number
      const etag = created.headers.get('etag') as string
      const replaced = await request(`${base}/books/${id}`, { method: 'PUT', headers: { 'if-match': etag }, json: { id, title: 'Temp 2', year: 2001, price: 2, available: false } })
      expect(replaced.status).toBe(200)
      expect(replaced.body).toEqual({ id, title: 'Temp 2', year: 2001, price: 2, available: false })
      const stale = await request(`${base}/books/${id}`, { method: 'PUT', headers: { 'if-match': etag }, json: { title: 'Temp 3', year: 2001, price: 2, available: false } })
      expect(stale.status).toBe(412)
      const mismatch = await request(`${base}/books/${id}`, { method: 'PUT', json: { id: id + 1, title: 'X', year: 1, price: 1, available: true } })
      expect(mismatch.status).toBe(400)
      expect(mismatch.body.errors[0].error).toBe('ID_MISMATCH')
      const missing = await request(`${base}/books/999`, { method: 'PUT', json: { title: 'X', year: 1, price: 1, available: true } })
      expect(missing.status).toBe(404)
      expect(missing.body.errors[0]).toMatchObject({ error: 'RECORD_NOT_FOUND', message: 'The record books/999 does not exist.' })
      const missingDe = await request(`${base}/books/999`, { headers: { 'accept-language': 'de' } })
      expect(missingDe.body.errors[0].message).toBe('Der Datensatz books/999 existiert nicht.')
      expect((await request(`${base}/books/${id}`, { method: 'DELETE' })).status).toBe(204)
      expect((await request(`${base}/books/${id}`)).status).toBe(404)
      // Sequence ids are never given again.
      const next = await request(`${base}/books`, { method: 'POST', json: { title: 'After', year: 2002, price: 1, available: true } })
      expect(next.body.id).toBe(id + 1)
      await request(`${base}/books/${next.body.id as number}`, { method: 'DELETE' })
    })

    it('replays a keyed POST', async () => {
      const init = { method: 'POST', headers: { 'idempotency-key': 'book-key-1' }, json: { title: 'Once', year: 2010, price: 3, available: true } }
      const first = await request(`${base}/books`, init)
      const again = await request(`${base}/books`, init)
      expect(first.status).toBe(201)
      expect(again.status).toBe(201)
      expect(again.body).toEqual(first.body)
      expect(again.headers.get('idempotent-replayed')).toBe('true')
      await request(`${base}/books/${first.body.id as number}`, { method: 'DELETE' })
    })
  })

  describe('lists', () => {
    const titles = (body: { items: Array<{ title: string }> }): string[] => body.items.map((b) => b.title)

    it('filters by each field type and sorts', async () => {
      expect(titles((await request(`${base}/books?title[contains]=NEURO`)).body)).toEqual(['Neuromancer'])
      expect(titles((await request(`${base}/books?year[gte]=1970&sort=-year`)).body)).toEqual(['Neuromancer', 'Kindred', 'The Dispossessed'])
      expect(titles((await request(`${base}/books?available=false&sort=title`)).body)).toEqual(['Neuromancer', 'Solaris'])
      expect(titles((await request(`${base}/books?price[lt]=8.5&sort=price`)).body)).toEqual(['Solaris', 'Neuromancer', 'Kindred'])
      const refused = await request(`${base}/books?available[ne]=true`)
      expect(refused.status).toBe(400)
      expect(refused.body.errors[0].error).toBe('INVALID_QUERY')
      expect((await request(`${base}/books?sort=nope`)).status).toBe(400)
      expect((await request(`${base}/books?price[lt]=cheap`)).status).toBe(400)
    })

    it('searches, counts and pages with a cursor', async () => {
      expect(titles((await request(`${base}/books?q=dis`)).body)).toEqual(['The Dispossessed'])
      const first = await request(`${base}/books?limit=2&count=true&sort=year`)
      expect(first.headers.get('x-total-count')).toBe('5')
      expect(titles(first.body)).toEqual(['Solaris', 'Dune'])
      const second = await request(`${base}${first.body.next as string}`)
      expect(titles(second.body)).toEqual(['The Dispossessed', 'Kindred'])
      const third = await request(`${base}${second.body.next as string}`)
      expect(titles(third.body)).toEqual(['Neuromancer'])
      expect(third.body.next).toBeUndefined()
    })

    it('streams NDJSON with the fields\' own types', async () => {
      const res = await fetch(`${base}/books?available=true`, { headers: { accept: 'application/x-ndjson' } })
      expect(res.headers.get('content-type')).toContain('application/x-ndjson')
      const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l))
      expect(lines[0]).toEqual({ id: 1, title: 'Dune', year: 1965, isbn: '978-0441013593', price: 9.5, available: true })
      expect(lines).toHaveLength(3)
    })
  })

  describe('uuid ids', () => {
    it('gives UUIDs and reads them by id', async () => {
      const created = await request(`${base}/notes`, { method: 'POST', json: { text: 'hello' } })
      expect(created.status).toBe(201)
      expect(created.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/)
      expect((await request(`${base}/notes/${created.body.id as string}`)).body).toEqual(created.body)
      expect((await request(`${base}/notes/00000000-0000-4000-8000-000000000000`)).status).toBe(404)
      expect((await request(`${base}/notes/7`)).body.errors[0].error).toBe('INVALID_ID')
    })
  })

  describe('hostile input', () => {
    it('answers 4xx, never 5xx', async () => {
      const cases: Array<[string, RequestInit & { json?: unknown }]> = [
        ['/books/0', {}], ['/books/-1', {}], ['/books/01', {}], ['/books/1.5', {}], ['/books/99999999999999999999', {}], ['/books/%00', {}],
        ['/books', { method: 'POST', body: '{"__proto__": {"title": "x"}, "title": "t", "year": 1, "price": 1, "available": true}', headers: { 'content-type': 'application/json' } }],
        ['/books', { method: 'POST', json: { title: ['a'], year: 1.5, price: '1', available: 'yes' } }],
        ['/books', { method: 'POST', json: { title: 'x'.repeat(2_000_000), year: 1, price: 1, available: true } }],
        ['/books', { method: 'POST', json: [1, 2] }],
        ['/books', { method: 'POST', body: 'title=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }],
        ['/books', { method: 'POST', json: { title: 'a\u0000b', year: 1, price: 1, available: true } }],
        ['/books?constructor=1', {}], ['/books?sort=__proto__', {}], ['/books?cursor=abc', {}], ['/books?limit=100000', {}],
        ['/books/1', { method: 'PATCH', json: { year: 'x', price: null } }]
      ]
      for (const [path, init] of cases) {
        const res = await request(`${base}${path}`, init)
        expect(res.status, `${init.method ?? 'GET'} ${path}`).toBeGreaterThanOrEqual(400)
        expect(res.status, `${init.method ?? 'GET'} ${path}`).toBeLessThan(500)
      }
    })
  })

  describe('discovery', () => {
    it('lists every collection with its schema at /collections', async () => {
      const res = await request(`${base}/collections`)
      expect(res.status).toBe(200)
      const names = res.body.items.map((c: { name: string }) => c.name)
      expect(names).toEqual(['students', 'addresses', 'books', 'notes'])
      const books = res.body.items.find((c: { name: string }) => c.name === 'books')
      expect(books).toMatchObject({ href: '/books', declared: true })
      expect(books.schema.properties.id).toMatchObject({ type: 'integer' })
      expect(books.schema.properties.isbn).toMatchObject({ type: 'string', pattern: '^[0-9-]{10,17}$', maxLength: 10000 })
      expect(books.schema.required).toEqual(['id', 'title', 'year', 'price', 'available'])
      expect(res.body.items[0].schema.properties.firstName).toBeDefined()
    })

    it('says at /collections which fields sort a list and which filter operators each field takes', async () => {
      const res = await request(`${base}/collections`)
      const books = res.body.items.find((c: { name: string }) => c.name === 'books')
      // Every field sorts, optional ones too (issue 31: records without one first ascending); every field filters by its kind.
      expect(books.sort).toEqual(['id', 'title', 'year', 'isbn', 'price', 'available', 'published'])
      expect(books.filters.isbn).toEqual(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains'])
      expect(books.filters.year).toEqual(['eq', 'ne', 'gt', 'gte', 'lt', 'lte'])
      expect(books.filters.available).toEqual(['eq'])
      // What the listing says the list takes, it takes; a sort key it leaves out is refused.
      for (const key of books.sort as string[]) expect((await request(`${base}/books?sort=-${key}`)).status, key).toBe(200)
      expect((await request(`${base}/books?sort=nope`)).status).toBe(400)
      const students = res.body.items.find((c: { name: string }) => c.name === 'students')
      expect(students.sort).toEqual(expect.arrayContaining(['id', 'firstName', 'lastName', 'age']))
    })

    it('is in the directory and the OpenAPI document', async () => {
      const home = await request(`${base}/`, { headers: { accept: 'application/json' } })
      expect(home.body.links.books).toMatchObject({ href: '/books' })
      expect(home.body.links.notes).toMatchObject({ href: '/notes' })
      expect(home.body.links.collections).toMatchObject({ href: '/collections' })
      const doc = (await request(`${base}/openapi.json`)).body
      expect(doc.paths['/books'].get.operationId).toBe('listBooks')
      expect(doc.paths['/books'].post.operationId).toBe('createBook')
      expect(doc.paths['/books/{id}'].get.operationId).toBe('getBook')
      expect(doc.paths['/books/{id}'].put.operationId).toBe('replaceBook')
      expect(doc.paths['/books/{id}'].delete.operationId).toBe('deleteBook')
      expect(doc.paths['/collections'].get.operationId).toBe('listCollections')
      expect(doc.tags.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(['books', 'notes', 'collections']))
    })
  })

  describe('change feed', () => {
    it('carries books.created and takes ?services=books', async () => {
      const feed = await connectFeed(`${base}/events?services=books`)
      try {
        expect(feed.status).toBe(200)
        await feed.waitForEvent('ready')
        await request(`${base}/notes`, { method: 'POST', json: { text: 'not in this feed' } })
        const created = await request(`${base}/books`, { method: 'POST', json: { title: 'Fed', year: 2020, price: 1, available: true } })
        const event = await feed.waitForEvent('books.created')
        expect(JSON.parse(event.data)).toMatchObject({ id: created.body.id, record: created.body })
        expect(feed.events.some((e) => e.event?.startsWith('notes.') === true)).toBe(false)
        await request(`${base}/books/${created.body.id as number}`, { method: 'DELETE' })
        await feed.waitForEvent('books.deleted')
      } finally {
        feed.close()
      }
    })
  })
}

