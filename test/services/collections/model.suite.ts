import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Config } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { declarationFiles } from './fixture.js'

/**
 * The data model of issue 29 (items 2–6) over HTTP, alike on every store
 * (model.test.ts: memory and SQLite; model-pg.test.ts: PostgreSQL):
 * automatic timestamps, enums, null, defaults and unique keys.
 */
const files = declarationFiles()

const BOOKS = {
  schema: {
    type: 'object',
    properties: {
      title: { type: 'string', minLength: 1 },
      year: { type: 'integer' },
      isbn: { type: 'string' },
      status: { type: 'string', enum: ['draft', 'published'], default: 'draft' },
      rating: { type: ['integer', 'null'], enum: [1, 2, 3, 4, 5] },
      note: { type: ['string', 'null'] },
      copies: { type: 'integer', minimum: 0, default: 1 },
      createdAt: { type: 'string', format: 'date-time', 'x-auto': 'created' },
      updatedAt: { type: 'string', format: 'date-time', 'x-auto': 'updated' }
    },
    required: ['title', 'year']
  },
  unique: [['isbn'], ['title', 'year']]
}
export const MODEL = { collections: { books: BOOKS } }

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const sleep = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

export function modelSuite (storeOf: () => Config['store'] | undefined): void {
  let server: RunningServer
  let base: string
  const post = async (json: unknown, headers: Record<string, string> = {}): ReturnType<typeof request> =>
    await request(`${base}/books`, { method: 'POST', json, headers })

  beforeAll(async () => {
    const store = storeOf()
    server = await startServer({ collections: fromFile(files.write('model.json', MODEL), '--collections'), ...(store === undefined ? {} : { store }) })
    base = server.origin
  })
  afterAll(async () => { await (server as RunningServer | undefined)?.close() })

  it('creates with defaults, both timestamps set alike and unset nullable fields answered as null', async () => {
    const created = await post({ title: 'Dune', year: 1965, isbn: '978-0441013593' })
    expect(created.status).toBe(201)
    const { createdAt, updatedAt, ...rest } = created.body
    expect(rest).toEqual({ id: 1, title: 'Dune', year: 1965, isbn: '978-0441013593', status: 'draft', rating: null, note: null, copies: 1 })
    expect(createdAt).toMatch(INSTANT)
    expect(updatedAt).toBe(createdAt)
    expect((await request(`${base}/books/1`)).body).toEqual(created.body)
  })

  it('takes null on a nullable field and answers it as null; refuses null elsewhere', async () => {
    const created = await post({ title: 'Emma', year: 1815, rating: null, note: null, copies: 3 })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ rating: null, note: null, copies: 3, status: 'draft' })
    const refused = await post({ title: null, year: 1815 })
    expect(refused.status).toBe(400)
    expect(refused.body.errors.map((e: { detail: string }) => e.detail.split(' ')[0])).toEqual(['body.title'])
  })

  it('refuses a value outside an enum, on strings and integers', async () => {
    const refused = await post({ title: 'Bad', year: 1, status: 'gone', rating: 7 })
    expect(refused.status).toBe(400)
    expect(refused.body.errors.map((e: { error: string, detail: string }) => [e.error, e.detail.split(' ')[0]])).toEqual([['FIELD_INVALID', 'body.status'], ['FIELD_INVALID', 'body.rating']])
    expect((await post({ title: 'Good', year: 1, status: 'published', rating: 5 })).body).toMatchObject({ status: 'published', rating: 5 })
  })

  it('refuses a client value for a timestamp with FIELD_READ_ONLY, in English and German', async () => {
    const refused = await post({ title: 'Clock', year: 2000, createdAt: '2024-01-01T00:00:00Z' })
    expect(refused.status).toBe(400)
    expect(refused.body.errors).toEqual([expect.objectContaining({ error: 'FIELD_READ_ONLY', detail: 'body.createdAt is set by the server: leave it out' })])
    const german = await post({ title: 'Clock', year: 2000, updatedAt: '2024-01-01T00:00:00Z' }, { 'accept-language': 'de' })
    expect(german.body.errors[0].message).toBe('updatedAt wird vom Server gesetzt und kann nicht gesendet werden.')
  })

  it('keeps createdAt and moves updatedAt on a replace; a replace leaving a defaulted field out gets the default', async () => {
    const before = (await request(`${base}/books/2`)).body
    await sleep(5)
    const replaced = await request(`${base}/books/2`, { method: 'PUT', json: { title: 'Emma', year: 1816, rating: 4 } })
    expect(replaced.status).toBe(200)
    expect(replaced.body.createdAt).toBe(before.createdAt)
    expect(replaced.body.updatedAt > before.updatedAt).toBe(true)
    expect(replaced.body).toMatchObject({ year: 1816, rating: 4, copies: 1, note: null })
    const refused = await request(`${base}/books/2`, { method: 'PUT', json: { title: 'Emma', year: 1816, createdAt: before.createdAt } })
    expect(refused.status).toBe(400)
    expect(refused.body.errors[0].error).toBe('FIELD_READ_ONLY')
  })

  it('sorts and filters by the timestamps', async () => {
    const all = (await request(`${base}/books?sort=createdAt`)).body.items as Array<{ id: number, createdAt: string, updatedAt: string }>
    expect(all.map((r) => r.id)).toEqual([1, 2, 3])
    expect((await request(`${base}/books?sort=-updatedAt&limit=1`)).body.items[0].id).toBe(2)
    const later = await request(`${base}/books?createdAt[gt]=${encodeURIComponent(all[0]?.createdAt ?? '')}`)
    expect(later.status).toBe(200)
    expect(later.body.items.every((r: { createdAt: string }) => r.createdAt > (all[0]?.createdAt ?? ''))).toBe(true)
    expect((await request(`${base}/books?status=published`)).body.items.map((r: { id: number }) => r.id)).toEqual([3])
  })

  it('answers a duplicate key 409 DUPLICATE_KEY naming the fields and the record holding them; null and unset never collide', async () => {
    const isbn = await post({ title: 'Another Dune', year: 2000, isbn: '978-0441013593' })
    expect(isbn.status).toBe(409)
    expect(isbn.headers.get('content-type')).toContain('application/problem+json')
    expect(isbn.body).toMatchObject({ type: '/errors/DUPLICATE_KEY', status: 409 })
    expect(isbn.body.errors).toEqual([expect.objectContaining({ error: 'DUPLICATE_KEY', detail: expect.stringContaining('/books/1') })])
    expect(isbn.body.errors[0].message).toBe('Another record already has this isbn.')
    const pair = await post({ title: 'Dune', year: 1965 })
    expect(pair.status).toBe(409)
    expect(pair.body.errors[0].message).toBe('Another record already has this title, year.')
    expect(pair.body.detail).toContain('/books/1')
    const german = await post({ title: 'Dune', year: 1965 }, { 'accept-language': 'de' })
    expect(german.body).toMatchObject({ title: 'Doppelter Schlüssel', errors: [expect.objectContaining({ message: 'Ein anderer Datensatz hat bereits diese Werte für title, year.' })] })
    // No isbn (unset) twice: no collision.
    expect((await post({ title: 'Untitled A', year: 1 })).status).toBe(201)
    expect((await post({ title: 'Untitled B', year: 1 })).status).toBe(201)
    // A replace may keep its own key, not take another's.
    expect((await request(`${base}/books/1`, { method: 'PUT', json: { title: 'Dune', year: 1965, isbn: '978-0441013593', copies: 2 } })).status).toBe(200)
    const taken = await request(`${base}/books/2`, { method: 'PUT', json: { title: 'Emma', year: 1816, isbn: '978-0441013593' } })
    expect(taken.status).toBe(409)
    expect(taken.body.detail).toContain('/books/1')
    expect((await request(`${base}/books/2`)).body.isbn).toBeUndefined()
    // A bulk create with a key held, or one twice, writes none of its records.
    for (const items of [[{ title: 'Bulk A', year: 3 }, { title: 'Bulk B', year: 3, isbn: '978-0441013593' }], [{ title: 'Bulk A', year: 3 }, { title: 'Bulk A', year: 3 }]]) {
      const bulk = await post(items)
      expect(bulk.status, bulk.text).toBe(409)
      expect(bulk.body.errors[0].error).toBe('DUPLICATE_KEY')
      expect((await request(`${base}/books?year=3`)).body.items).toEqual([])
    }
  })

  it('lets exactly one of 100 racing creates of one key through', async () => {
    const answers = await Promise.all(Array.from({ length: 100 }, async (_, i) => await post({ title: `Race ${i}`, year: 2024, isbn: 'race-1' })))
    const statuses = answers.map((a) => a.status)
    expect(statuses.filter((s) => s === 201)).toHaveLength(1)
    expect(statuses.filter((s) => s === 409)).toHaveLength(99)
    expect((await request(`${base}/books?isbn=race-1&count=true`)).body.items).toHaveLength(1)
  })

  it('writes nulls in NDJSON as JSON answers do, and the stamps as UTC', async () => {
    const ndjson = await request(`${base}/books?id=2`, { headers: { accept: 'application/x-ndjson' } })
    const line = JSON.parse(ndjson.text.trim())
    expect(line).toMatchObject({ id: 2, note: null, rating: 4 })
    expect(line.createdAt).toMatch(INSTANT)
    const csv = await request(`${base}/books?id=2`, { headers: { accept: 'text/csv' } })
    expect(csv.text.split('\r\n')[0]).toBe('id,title,year,isbn,status,rating,note,copies,createdAt,updatedAt')
  })

  it('applies defaults and stamps in GraphQL mutations, refusing a stamp sent', async () => {
    const created = await request(`${base}/graphql`, { method: 'POST', json: { query: 'mutation { createBook(input: { title: "GraphQL", year: 2015 }) { record { status copies createdAt updatedAt rating } } }' } })
    expect(created.body.errors).toBeUndefined()
    const record = created.body.data.createBook.record
    expect(record).toMatchObject({ status: 'draft', copies: 1, rating: null })
    expect(record.createdAt).toMatch(INSTANT)
    const dup = await request(`${base}/graphql`, { method: 'POST', json: { query: 'mutation { createBook(input: { title: "GraphQL", year: 2015 }) { record { id } } }' } })
    expect(dup.body.errors[0].extensions.code).toBe('DUPLICATE_KEY')
  })

  it('types a text enum as a GraphQL enum, an integer enum as its scalar with the values in words, and leaves stamps out of the input', async () => {
    const book = await request(`${base}/graphql`, { method: 'POST', json: { query: '{ __type(name: "Book") { fields { name description type { kind name ofType { name } } } } }' } })
    const fields = book.body.data.__type.fields as Array<{ name: string, description: string | null, type: { kind: string, name: string | null, ofType: { name: string } | null } }>
    expect(fields.find((f) => f.name === 'status')?.type).toMatchObject({ kind: 'ENUM', name: 'BookStatus' })
    expect(fields.find((f) => f.name === 'rating')).toMatchObject({ description: 'One of 1, 2, 3, 4, 5.', type: { kind: 'SCALAR' } })
    expect(fields.find((f) => f.name === 'createdAt')?.type).toMatchObject({ kind: 'NON_NULL', ofType: { name: 'DateTime' } })
    const input = await request(`${base}/graphql`, { method: 'POST', json: { query: '{ __type(name: "BookInput") { inputFields { name } } }' } })
    expect(input.body.data.__type.inputFields.map((f: { name: string }) => f.name)).toEqual(['title', 'year', 'isbn', 'status', 'rating', 'note', 'copies'])
    const published = await request(`${base}/graphql`, { method: 'POST', json: { query: '{ books(filter: { status: { eq: "published" } }) { nodes { id status } } }' } })
    expect(published.body.errors).toBeUndefined()
    expect(published.body.data.books.nodes).toEqual([{ id: '3', status: 'published' }])
    const created = await request(`${base}/graphql`, { method: 'POST', json: { query: 'mutation { createBook(input: { title: "Enum", year: 1, status: published }) { record { status } } }' } })
    expect(created.body.data.createBook.record.status).toBe('published')
  })

  it('describes defaults, enums, null and read-only stamps in OpenAPI', async () => {
    const doc = (await request(`${base}/openapi.json`)).body
    const text = JSON.stringify(doc)
    expect(text).toContain('"default":"draft"')
    expect(text).toContain('"enum":[1,2,3,4,5,null]')
    expect(text).toContain('"readOnly":true')
    // The server's marker for a stamp to set is no default a client sees.
    expect(text).not.toContain('u0000now')
    expect(text).toContain('"type":["string","null"]')
    // A unique key: create and replace may answer 409 DUPLICATE_KEY.
    expect(doc.paths['/books'].post.responses['409']).toBeDefined()
    expect(doc.paths['/books/{id}'].put.responses['409']).toBeDefined()
  })
}

/** A unique key declared over records that already share values: the start is refused naming them; a key without duplicates is made. */
export async function uniqueOverDuplicates (store: Config['store']): Promise<void> {
  const plain = { collections: { books: { schema: BOOKS.schema } } }
  let server = await startServer({ collections: fromFile(files.write('plain.json', plain), '--collections'), store })
  for (const title of ['Dune', 'Dune', 'Emma', 'Dune']) {
    expect((await request(`${server.origin}/books`, { method: 'POST', json: { title, year: 1965, isbn: `isbn-${title}` } })).status).toBe(201)
  }
  await server.close()
  await expect(startServer({ collections: fromFile(files.write('unique.json', MODEL), '--collections'), store }))
    .rejects.toThrow(/unique \["isbn"\]: records 1, 2, 4 share \["isbn-Dune"\]; make their values differ first/)
  // The data is untouched, and a key over values that are all unset (null) is made: they never collide.
  const notes = { collections: { books: { ...BOOKS, unique: [['note']] } } }
  server = await startServer({ collections: fromFile(files.write('notes.json', notes), '--collections'), store })
  expect((await request(`${server.origin}/books`)).body.items).toHaveLength(4)
  expect((await request(`${server.origin}/books`, { method: 'POST', json: { title: 'A', year: 1, note: 'same' } })).status).toBe(201)
  expect((await request(`${server.origin}/books`, { method: 'POST', json: { title: 'B', year: 1, note: 'same' } })).status).toBe(409)
  await server.close()
}

/**
 * Fields added with a default, null or neither: the records held get the
 * default written in (and filter by it), the others read null or unset;
 * timestamps added get the time of the start.
 */
export async function defaultsFilledAtStart (store: Config['store']): Promise<void> {
  const { copies: _copies, status: _status, rating: _rating, createdAt: _created, updatedAt: _updated, ...before } = BOOKS.schema.properties
  const old = { collections: { books: { schema: { ...BOOKS.schema, properties: before } } } }
  let server = await startServer({ collections: fromFile(files.write('before.json', old), '--collections'), store })
  for (const title of ['Dune', 'Emma']) expect((await request(`${server.origin}/books`, { method: 'POST', json: { title, year: 1965 } })).status).toBe(201)
  await server.close()
  server = await startServer({ collections: fromFile(files.write('after.json', MODEL), '--collections'), store })
  const items = (await request(`${server.origin}/books`)).body.items as Array<Record<string, unknown>>
  for (const item of items) {
    expect(item.createdAt).toMatch(INSTANT)
    expect(item.updatedAt).toBe(item.createdAt)
  }
  expect((await request(`${server.origin}/books?sort=-createdAt`)).status).toBe(200)
  expect(items.map(({ createdAt: _c, updatedAt: _u, ...rest }) => rest)).toEqual([
    { id: 1, title: 'Dune', year: 1965, status: 'draft', rating: null, note: null, copies: 1 },
    { id: 2, title: 'Emma', year: 1965, status: 'draft', rating: null, note: null, copies: 1 }
  ])
  expect((await request(`${server.origin}/books?copies=1&status=draft`)).body.items).toHaveLength(2)
  await server.close()

  // A required field can be added too when it has a default (it fills the records held); without one it is refused.
  const shelf = { type: 'string', enum: ['A', 'B'], default: 'A' }
  const required = { collections: { books: { ...BOOKS, schema: { ...BOOKS.schema, properties: { ...BOOKS.schema.properties, shelf }, required: ['title', 'year', 'shelf'] } } } }
  server = await startServer({ collections: fromFile(files.write('required.json', required), '--collections'), store })
  expect((await request(`${server.origin}/books?shelf=A`)).body.items.map((r: { id: number }) => r.id)).toEqual([1, 2])
  expect((await request(`${server.origin}/books?sort=shelf,-id`)).body.items.map((r: { id: number }) => r.id)).toEqual([2, 1])
  await server.close()
  const bare = { collections: { books: { ...BOOKS, schema: { ...BOOKS.schema, properties: { ...BOOKS.schema.properties, shelf, floor: { type: 'integer' } }, required: ['title', 'year', 'shelf', 'floor'] } } } }
  await expect(startServer({ collections: fromFile(files.write('bare.json', bare), '--collections'), store })).rejects.toThrow(/floor: added as required/)
}
