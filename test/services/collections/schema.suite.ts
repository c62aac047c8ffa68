import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Config } from '../../../src/options.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'

/**
 * Collections changed while the server runs (the admin API), on one store
 * (schema.test.ts: memory and SQLite; schema-pg.test.ts: PostgreSQL): each
 * change answered with its plan, REST, the listing and OpenAPI following at
 * once, refusals naming the records that block them.
 */
const title = { type: 'string', minLength: 1, maxLength: 50 }
export const BOOKS = { schema: { type: 'object', properties: { title, year: { type: 'integer' } }, required: ['title'] }, ids: 'sequence' }

export function schemaSuite (storeOf: () => Config['store'] | undefined): void {
  let server: RunningServer
  let url: string
  beforeAll(async () => {
    const store = storeOf()
    server = await startServer({ collections: { declared: [], api: true }, ...(store === undefined ? {} : { store }) })
    url = server.origin
  })
  afterAll(async () => { await server.close() })

  const codeOf = (answer: { body: { errors?: Array<{ error?: string }> } }): string | undefined => answer.body.errors?.[0]?.error
  const json = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): ReturnType<typeof request> =>
    await request(`${url}${path}`, { method, headers, ...(body === undefined ? {} : { json: body }) })
  const etag = async (name: string): Promise<string> => (await request(`${url}/collections/${name}`)).headers.get('etag') as string
  const change = async (name: string, declaration: unknown, query = ''): ReturnType<typeof request> =>
    await json('PUT', `/collections/${name}${query}`, declaration, { 'if-match': await etag(name) })

  it('creates a collection, answered with its plan; its routes, the listing and OpenAPI follow at once', async () => {
    expect((await json('POST', '/books', { title: 'Dune' })).status).toBe(404)
    const created = await json('POST', '/collections', { name: 'books', ...BOOKS })
    expect(created.status).toBe(201)
    expect(created.headers.get('location')).toBe('/collections/books')
    expect(created.headers.get('etag')).toBe('"v1"')
    expect(created.body).toMatchObject({ name: 'books', version: 1, origin: 'api', plan: { action: 'create', indexed: ['title', 'year'] } })
    expect(codeOf(await json('POST', '/collections', { name: 'books', ...BOOKS }))).toBe('COLLECTION_EXISTS')

    const dune = await json('POST', '/books', { title: 'Dune', year: 1965 })
    expect(dune.status).toBe(201)
    expect(dune.body).toEqual({ id: 1, title: 'Dune', year: 1965 })
    expect((await json('POST', '/books', { title: 'Emma', year: 1815 })).status).toBe(201)
    expect((await json('POST', '/books', { title: '' })).status).toBe(400)
    expect((await json('GET', '/books?sort=year')).body.items.map((b: { title: string }) => b.title)).toEqual(['Emma', 'Dune'])
    expect((await json('GET', '/books/1')).headers.get('etag')).toMatch(/^"/)
    const listed = (await json('GET', '/collections')).body.items as Array<{ name: string, declared: boolean }>
    expect(listed.find((c) => c.name === 'books')).toMatchObject({ declared: true })
    const read = await json('GET', '/collections/books')
    expect(read.body).toMatchObject({ name: 'books', version: 1, declaration: BOOKS })
    const document = (await json('GET', '/openapi.json')).body
    expect(document.paths['/books'].post.operationId).toBe('createBook')
    expect(Object.keys(document.paths)).toContain('/books/{id}')
  })

  it('refuses a change without If-Match (428) or with a stale one (412)', async () => {
    const declaration = { ...BOOKS, description: 'Books' }
    expect((await json('PUT', '/collections/books', declaration)).status).toBe(428)
    expect(codeOf(await json('PUT', '/collections/books', declaration))).toBe('IF_MATCH_REQUIRED')
    const stale = await json('PUT', '/collections/books', declaration, { 'if-match': '"v0"' })
    expect(stale.status).toBe(412)
    expect(stale.headers.get('content-type')).toContain('application/problem+json')
  })

  it('adds a field with its default: every record held gets it', async () => {
    const declaration = { schema: { type: 'object', properties: { title, year: { type: 'integer' }, pages: { type: 'integer', default: 100 } }, required: ['title'] }, ids: 'sequence' }
    const planned = await json('POST', '/collections/books/plan', declaration)
    expect(planned.body.plan.added).toEqual([{ field: 'pages', default: 100 }])
    expect(planned.body.findings.records).toBe(2)
    const changed = await change('books', declaration)
    expect(changed.status).toBe(200)
    expect(changed.headers.get('etag')).toBe('"v2"')
    expect((await json('GET', '/books/1')).body).toEqual({ id: 1, title: 'Dune', year: 1965, pages: 100 })
    expect((await json('GET', '/books?pages=100')).body.items).toHaveLength(2)
  })

  it('renames a field ("x-renamed-from") and widens another (integer → number, a longer maxLength)', async () => {
    const declaration = { schema: { type: 'object', properties: { name: { ...title, maxLength: 80, 'x-renamed-from': 'title' }, year: { type: 'number' }, pages: { type: 'integer', default: 100 } }, required: ['name'] }, ids: 'sequence' }
    const changed = await change('books', declaration)
    expect(changed.status).toBe(200)
    expect(changed.body.plan).toMatchObject({ renamed: [{ from: 'title', to: 'name' }], converted: [{ field: 'year', from: 'integer', to: 'number' }], dropped: [] })
    expect((await json('GET', '/books/1')).body).toEqual({ id: 1, name: 'Dune', year: 1965, pages: 100 })
    expect((await json('POST', '/books', { name: 'Half', year: 1.5 })).body).toMatchObject({ name: 'Half', year: 1.5 })
    expect((await json('POST', '/books', { title: 'Old' })).status).toBe(400)
  })

  it('drops a field only with ?confirm=drop, saying how many values go', async () => {
    const declaration = { schema: { type: 'object', properties: { name: { ...title, maxLength: 80 }, year: { type: 'number' } }, required: ['name'] }, ids: 'sequence' }
    const unconfirmed = await change('books', declaration)
    expect(unconfirmed.status).toBe(409)
    expect(codeOf(unconfirmed)).toBe('CONFIRMATION_REQUIRED')
    expect(unconfirmed.body.detail).toContain('3 values of pages')
    expect((await json('GET', '/books/1')).body.pages).toBe(100)
    const confirmed = await change('books', declaration, '?confirm=drop')
    expect(confirmed.status).toBe(200)
    expect(confirmed.body.plan.dropped).toEqual(['pages'])
    expect(confirmed.body.findings.lost).toEqual({ pages: 3 })
    expect((await json('GET', '/books/1')).body).toEqual({ id: 1, name: 'Dune', year: 1965 })
  })

  it('drops a field that was renamed before (its index followed the rename)', async () => {
    const shelf = (properties: Record<string, unknown>): unknown => ({ schema: { type: 'object', properties: { room: { type: 'string' }, ...properties } }, ids: 'sequence' })
    expect((await json('POST', '/collections', { name: 'racks', ...shelf({ label: { type: 'string' } }) as object })).status).toBe(201)
    expect((await json('POST', '/racks', { room: 'A', label: 'poetry' })).status).toBe(201)
    expect((await change('racks', shelf({ name: { type: 'string', 'x-renamed-from': 'label' } }))).status).toBe(200)
    const dropped = await change('racks', shelf({}), '?confirm=drop')
    expect(dropped.status).toBe(200)
    expect(dropped.body.plan.dropped).toEqual(['name'])
    expect((await json('GET', '/racks/1')).body).toEqual({ id: 1, room: 'A' })
    expect((await json('POST', '/racks', { room: 'B' })).status).toBe(201)
  })

  it('refuses a plan that records block, naming them; and a kind that does not convert', async () => {
    expect((await json('POST', '/books', { name: 'Dune', year: 2021 })).status).toBe(201)
    const unique = { schema: { type: 'object', properties: { name: { ...title, maxLength: 80 }, year: { type: 'number' } }, required: ['name'] }, ids: 'sequence', unique: [['name']] }
    const refused = await change('books', unique)
    expect(refused.status).toBe(409)
    expect(codeOf(refused)).toBe('CHANGE_REFUSED')
    expect(refused.body.errors[0].detail).toContain('records 1, 4 share values')
    const retyped = await change('books', { schema: { type: 'object', properties: { name: { ...title, maxLength: 80 }, year: { type: 'boolean' } }, required: ['name'] }, ids: 'sequence' })
    expect(retyped.status).toBe(409)
    expect(retyped.body.errors[0].detail).toContain('year: type number → boolean')
    expect((await json('GET', '/books/4')).body.name).toBe('Dune')
  })

  it('answers an invalid declaration with 400 naming its path', async () => {
    const bad = await json('POST', '/collections', { name: 'shelves', schema: { type: 'object', properties: { x: { type: 'integr' } } } })
    expect(bad.status).toBe(400)
    expect(codeOf(bad)).toBe('DECLARATION_INVALID')
    expect(bad.body.detail).toContain('collections.shelves.schema.properties.x')
    expect((await json('POST', '/collections', { name: 'collections', ...BOOKS })).status).toBe(403)
  })

  it('keeps every version in the history, with caller and plan', async () => {
    const history = await json('GET', '/collections/books/history')
    expect(history.body.items.map((v: { version: number }) => v.version)).toEqual([1, 2, 3, 4])
    expect(history.body.items[0]).toMatchObject({ caller: 'anonymous', plan: { action: 'create' } })
    expect(history.body.items[3].plan.dropped).toEqual(['pages'])
  })

  it('removes a collection only with If-Match and ?confirm=<name>; its routes go', async () => {
    expect(codeOf(await json('DELETE', '/collections/books', undefined, { 'if-match': await etag('books') }))).toBe('CONFIRMATION_REQUIRED')
    const removed = await json('DELETE', '/collections/books?confirm=books', undefined, { 'if-match': await etag('books') })
    expect(removed.status).toBe(200)
    expect(removed.body.plan.action).toBe('remove')
    expect((await json('GET', '/books')).status).toBe(404)
    expect((await json('GET', '/collections/books')).status).toBe(404)
    expect(((await json('GET', '/collections')).body.items as Array<{ name: string }>).some((c) => c.name === 'books')).toBe(false)
    expect(Object.keys((await json('GET', '/openapi.json')).body.paths)).not.toContain('/books')
    // Created again: a new table, from version 6 on.
    const again = await json('POST', '/collections', { name: 'books', ...BOOKS })
    expect(again.status).toBe(201)
    expect((await json('GET', '/books')).body.items).toEqual([])
  })

  it('serves the collections created at run time after a restart of a durable store', async () => {
    const store = storeOf()
    if (store === undefined || store.kind === 'memory') return
    expect((await json('POST', '/books', { title: 'Kept', year: 2000 })).status).toBe(201)
    const again = await startServer({ collections: { declared: [], api: true }, store })
    try {
      expect((await request(`${again.origin}/books?title=Kept`)).body.items).toHaveLength(1)
      expect((await request(`${again.origin}/collections/books`)).body).toMatchObject({ version: 6, origin: 'api' })
      expect((await request(`${again.origin}/collections/books/history`)).body.items).toHaveLength(6)
    } finally {
      await again.close()
    }
  })

  it('reads a built-in collection, and refuses to change or remove it', async () => {
    const students = await json('GET', '/collections/students')
    expect(students.status).toBe(200)
    expect(students.body.origin).toBe('built-in')
    expect((await json('PUT', '/collections/students', BOOKS, { 'if-match': '*' })).status).toBe(403)
    expect(codeOf(await json('DELETE', '/collections/students?confirm=students', undefined, { 'if-match': '*' }))).toBe('COLLECTION_BUILT_IN')
  })
}
