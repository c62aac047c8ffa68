import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Config } from '../../../src/options.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'

/**
 * Collections created while the server runs that reference others (a
 * collection created at run time, a built-in one), on one store
 * (runtime-references.test.ts: memory and SQLite; …-pg.test.ts:
 * PostgreSQL), through the admin API: integrity, `?expand=` and
 * GraphQL relations as for declared references, a referenced collection that cannot be removed, a reference
 * that cannot be retyped away from its target's ids.
 */
const AUTHORS = { schema: { type: 'object', properties: { name: { type: 'string', maxLength: 50 } }, required: ['name'] }, ids: 'sequence' }
const bookSchema = (onDelete: string): unknown => ({
  schema: { type: 'object', properties: { title: { type: 'string', maxLength: 50 }, author: { type: 'integer', 'x-references': 'authors', 'x-on-delete': onDelete } }, required: ['title'] },
  ids: 'sequence'
})
const GRADES = { schema: { type: 'object', properties: { grade: { type: 'integer' }, student: { type: 'integer', 'x-references': 'students' } }, required: ['grade', 'student'] }, ids: 'sequence' }

export function runtimeReferencesSuite (storeOf: () => Config['store'] | undefined): void {
  let server: RunningServer
  beforeAll(async () => {
    const store = storeOf()
    server = await startServer({ collections: { declared: [], api: true }, ...(store === undefined ? {} : { store }) })
  })
  afterAll(async () => { await server.close() })

  const json = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): ReturnType<typeof request> =>
    await request(`${server.origin}${path}`, { method, headers, ...(body === undefined ? {} : { json: body }) })
  const etag = async (name: string): Promise<string> => (await request(`${server.origin}/collections/${name}`)).headers.get('etag') as string
  const codeOf = (answer: { body: { errors?: Array<{ error?: string }> } }): string | undefined => answer.body.errors?.[0]?.error

  it('creates a collection that references one created at run time: references are checked, a referenced record is kept', async () => {
    expect((await json('POST', '/collections', { name: 'authors', ...AUTHORS })).status).toBe(201)
    const books = await json('POST', '/collections', { name: 'books', ...(bookSchema('restrict') as object) })
    expect(books.status).toBe(201)
    expect((await json('POST', '/authors', { name: 'Le Guin' })).body).toEqual({ id: 1, name: 'Le Guin' })
    expect((await json('POST', '/books', { title: 'The Dispossessed', author: 1 })).status).toBe(201)
    const expanded = await json('GET', '/books?expand=author')
    expect(expanded.status).toBe(200)
    expect(expanded.body.items[0]).toMatchObject({ title: 'The Dispossessed', expand: { author: { id: 1, name: 'Le Guin' } } })
    const related = await json('POST', '/graphql', { query: '{ books { nodes { title author { name } } } }' })
    expect(related.body).toEqual({ data: { books: { nodes: [{ title: 'The Dispossessed', author: { name: 'Le Guin' } }] } } })
    const dangling = await json('POST', '/books', { title: 'Nobody', author: 99 })
    expect(dangling.status).toBe(422)
    expect(codeOf(dangling)).toBe('REFERENCE_NOT_FOUND')
    const kept = await json('DELETE', '/authors/1')
    expect(kept.status).toBe(409)
    expect(codeOf(kept)).toBe('RECORD_REFERENCED')
    expect((await json('GET', '/authors/1')).status).toBe(200)
  })

  it('refuses to remove a collection others reference (409 naming them), and a reference retyped away from its target\'s ids', async () => {
    const removed = await json('DELETE', '/collections/authors?confirm=authors', undefined, { 'if-match': await etag('authors') })
    expect(removed.status).toBe(409)
    expect(codeOf(removed)).toBe('COLLECTION_REFERENCED')
    expect(removed.body.detail).toContain('books (author)')
    expect((await json('GET', '/authors/1')).status).toBe(200)
    const retyped = { schema: { type: 'object', properties: { title: { type: 'string', maxLength: 50 }, author: { type: 'string', 'x-references': 'authors' } }, required: ['title'] }, ids: 'sequence' }
    const refused = await json('PUT', '/collections/books', retyped, { 'if-match': await etag('books') })
    expect(refused.status).toBe(400)
    expect(refused.body.detail).toContain('authors ids are integers')
    const unknown = await json('POST', '/collections', { name: 'reviews', schema: { type: 'object', properties: { book: { type: 'integer', 'x-references': 'bookz' } } } })
    expect(unknown.status).toBe(400)
    expect(unknown.body.detail).toContain('did you mean "books"')
  })

  it('follows a changed reference: cascade deletes the referring records', async () => {
    const changed = await json('PUT', '/collections/books', bookSchema('cascade'), { 'if-match': await etag('books') })
    expect(changed.status).toBe(200)
    expect((await json('POST', '/books', { title: 'Dangling', author: 42 })).status).toBe(422)
    expect((await json('DELETE', '/authors/1')).status).toBe(204)
    expect((await json('GET', '/books')).body.items).toEqual([])
  })

  it('references a built-in collection', async () => {
    expect((await json('POST', '/collections', { name: 'grades', ...GRADES })).status).toBe(201)
    expect(codeOf(await json('POST', '/grades', { grade: 5, student: 12345 }))).toBe('REFERENCE_NOT_FOUND')
  })

  it('keeps the references after a restart of a durable store', async () => {
    const store = storeOf()
    if (store === undefined || store.kind === 'memory') return
    const author = (await json('POST', '/authors', { name: 'Butler' })).body.id as number
    expect((await json('POST', '/books', { title: 'Kindred', author })).status).toBe(201)
    const again = await startServer({ collections: { declared: [], api: true }, store })
    try {
      const dangling = await request(`${again.origin}/books`, { method: 'POST', json: { title: 'Nobody', author: 999 } })
      expect(dangling.status).toBe(422)
      expect((await request(`${again.origin}/authors/${author}`, { method: 'DELETE' })).status).toBe(204)
      expect((await request(`${again.origin}/books`)).body.items).toEqual([])
    } finally {
      await again.close()
    }
  })

  it('removes the referring collection first, then the one it referenced', async () => {
    expect((await json('DELETE', '/collections/books?confirm=books', undefined, { 'if-match': await etag('books') })).status).toBe(200)
    expect((await json('DELETE', '/collections/authors?confirm=authors', undefined, { 'if-match': await etag('authors') })).status).toBe(200)
    expect((await json('GET', '/authors')).status).toBe(404)
  })
}
