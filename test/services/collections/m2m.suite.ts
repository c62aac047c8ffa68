import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Config } from '../../../src/options.js'
import { makeConfig } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { openStores } from '../../../src/stores/index.js'
import { DanglingReferenceError, type Change, type StoredRecord } from '../../../src/domain/index.js'
import { builtInDeclarations, withBuiltIns, type Stores } from '../../helpers/built-ins.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { declarationFiles } from './fixture.js'

/**
 * Lists of references (many-to-many, issue 30) over HTTP, alike on every
 * store (m2m.test.ts: memory and SQLite; m2m-pg.test.ts: PostgreSQL): each
 * id checked on every write, `restrict` and `remove` on delete with their
 * feed events, `?expand=` in the list's order and back, GraphQL `[Tag!]!`.
 */
const files = declarationFiles()
const list = (collection: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ type: 'array', items: { type: 'integer', 'x-references': collection }, uniqueItems: true, ...extra })
export const SHELF = {
  collections: {
    tags: { schema: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] } },
    genres: { schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
    books: { schema: { type: 'object', properties: { title: { type: 'string' }, tags: list('tags', { 'x-on-delete': 'remove' }), genres: list('genres') }, required: ['title'] } }
  }
}

type Json = Record<string, any>

export function m2mSuite (storeOf: () => Config['store'] | undefined): void {
  let server: RunningServer
  let stores: Stores
  let base: string
  const post = async (path: string, json: unknown): Promise<{ status: number, body: Json }> => await request(`${base}${path}`, { method: 'POST', json })
  const get = async (path: string): Promise<{ status: number, body: Json }> => await request(`${base}${path}`)
  const del = async (path: string): Promise<{ status: number, body: Json }> => await request(`${base}${path}`, { method: 'DELETE' })
  /** The feed's changes after `seq` (PostgreSQL numbers them just after commit: waited for). */
  const changesAfter = async (seq: number, expected: number): Promise<Change[]> => {
    for (let i = 0; ; i++) {
      const changes = await stores.changes.since(seq, 1000)
      if (changes.length >= expected || i === 50) return changes
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  beforeAll(async () => {
    const store = storeOf()
    const collections = fromFile(files.write('shelf.json', SHELF), '--collections')
    const config = makeConfig({ collections, ...(store === undefined ? {} : { store }) })
    stores = withBuiltIns(await openStores(config.store, undefined, builtInDeclarations({ collections: collections.declared.map((c) => c.declaration) })))
    server = await startServer({ collections, ...(store === undefined ? {} : { store }) }, { stores })
    base = server.origin
    for (const label of ['sf', 'classic', 'desert']) expect((await post('/tags', { label })).status).toBe(201)
    expect((await post('/genres', { name: 'novel' })).status).toBe(201)
    expect((await post('/books', { title: 'Dune', tags: [3, 1], genres: [1] })).body).toEqual({ id: 1, title: 'Dune', tags: [3, 1], genres: [1] })
    expect((await post('/books', { title: 'Foundation', tags: [1, 2] })).status).toBe(201)
  })
  afterAll(async () => {
    await (server as RunningServer | undefined)?.close()
    await (stores as Stores | undefined)?.close()
  })

  it('refuses a write whose list names a missing record (422 naming the field and the first missing id), writing nothing', async () => {
    const refused = await post('/books', { title: 'Ghost', tags: [1, 98, 99] })
    expect(refused.status).toBe(422)
    expect(refused.body).toMatchObject({ type: '/errors/REFERENCE_NOT_FOUND', detail: 'body.tags names tags/98, which does not exist' })
    const replaced = await request(`${base}/books/1`, { method: 'PUT', json: { title: 'Dune', tags: [3, 42] } })
    expect(replaced.status).toBe(422)
    const patched = await request(`${base}/books/1`, { method: 'PATCH', json: { genres: [7] }, headers: { 'content-type': 'application/merge-patch+json' } })
    expect(patched.status).toBe(422)
    expect((await get('/books/1')).body).toEqual({ id: 1, title: 'Dune', tags: [3, 1], genres: [1] })
    expect((await get('/books?title=Ghost')).body.items).toEqual([])
  })

  it('expands a list in its order, nested under a back-relation, and back through the list', async () => {
    expect((await get('/books/1?expand=tags')).body.expand).toEqual({ tags: [{ id: 3, label: 'desert' }, { id: 1, label: 'sf' }] })
    const page = (await get('/books?expand=tags,genres')).body
    expect(page.items.map((b: Json) => b.expand)).toEqual([
      { tags: [{ id: 3, label: 'desert' }, { id: 1, label: 'sf' }], genres: [{ id: 1, name: 'novel' }] },
      { tags: [{ id: 1, label: 'sf' }, { id: 2, label: 'classic' }], genres: [] }
    ])
    const back = (await get('/tags?expand=books_via_tags')).body
    expect(back.items.map((t: Json) => [t.label, t.expand.books_via_tags.map((b: Json) => b.title)])).toEqual([['sf', ['Dune', 'Foundation']], ['classic', ['Foundation']], ['desert', ['Dune']]])
    const nested = (await get('/tags/2?expand=books_via_tags.tags')).body
    expect(nested.expand.books_via_tags[0].expand.tags.map((t: Json) => t.label)).toEqual(['sf', 'classic'])
  })

  it('reads each relation once per page, never once per record', async () => {
    const counted = countCalls(stores, ['tags', 'genres', 'books'])
    try {
      expect((await get('/books?limit=2&expand=tags,genres')).body.items).toHaveLength(2)
      expect((await get('/tags?limit=3&expand=books_via_tags.genres')).body.items).toHaveLength(3)
    } finally {
      counted.restore()
    }
    // Each page's own query (books, tags), then one read per relation: tags and genres of the books; books_via_tags and their genres.
    expect(counted.calls.sort()).toEqual(['books.query', 'books.query', 'genres.getMany', 'genres.getMany', 'tags.getMany', 'tags.query'])
  })

  it('filters by the ids a list holds, and refuses filters through it', async () => {
    expect((await get('/books?tags[has]=3')).body.items.map((b: Json) => b.title)).toEqual(['Dune'])
    const refused = await get('/books?tags.label=sf')
    expect(refused.status).toBe(400)
    expect(refused.body.detail).toBe('"tags." does not filter through a list of references; filter by the ids it holds: tags[has]=<id> or tags[hasAny]=<id>,<id>')
  })

  it('types the list as its records in GraphQL', async () => {
    const answer = await request(`${base}/graphql`, { method: 'POST', json: { query: '{ books(first: 2) { nodes { title tags { label } genres { name } } } }' } })
    expect(answer.body.errors).toBeUndefined()
    expect(answer.body.data.books.nodes).toEqual([
      { title: 'Dune', tags: [{ label: 'desert' }, { label: 'sf' }], genres: [{ name: 'novel' }] },
      { title: 'Foundation', tags: [{ label: 'sf' }, { label: 'classic' }], genres: [] }
    ])
    const created = await request(`${base}/graphql`, { method: 'POST', json: { query: 'mutation { createBook(input: { title: "Emma", tags: [2] }) { record { id title tags { label } } } }' } })
    expect(created.body.errors).toBeUndefined()
    expect(created.body.data.createBook.record).toMatchObject({ title: 'Emma', tags: [{ label: 'classic' }] })
    expect((await del(`/books/${created.body.data.createBook.record.id as number}`)).status).toBe(204)
    const back = await request(`${base}/graphql`, { method: 'POST', json: { query: '{ tags(first: 3) { nodes { label books_via_tags(filter: { title: { contains: "dune" } }) { title } } } }' } })
    expect(back.body.errors).toBeUndefined()
    expect(back.body.data.tags.nodes).toEqual([{ label: 'sf', books_via_tags: [{ title: 'Dune' }] }, { label: 'classic', books_via_tags: [] }, { label: 'desert', books_via_tags: [{ title: 'Dune' }] }])
  })

  it('weighs a list of references in a document\'s cost as its most items (maxItems, 100 by default)', async () => {
    // 1 (books) + 1 (nodes) + 1000 records × (1 + 100 tags × 1 field): over the budget, where one tag a book was 2 002.
    const costly = await request(`${base}/graphql`, { method: 'POST', json: { query: '{ books(first: 1000) { nodes { tags { label } } } }' } })
    expect(costly.body.errors[0].extensions).toEqual({ code: 'QUERY_TOO_COSTLY', cost: 101_002, budget: 100_000 })
    const small = await request(`${base}/graphql`, { method: 'POST', json: { query: '{ books(first: 2) { nodes { tags { label } } } }' } })
    expect(small.body.errors).toBeUndefined()
  })

  it('refuses to delete a record a restricting list names (409 counting the records)', async () => {
    const refused = await del('/genres/1')
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({ type: '/errors/RECORD_REFERENCED', detail: 'genres/1 is named by 1 record of books (field genres, x-on-delete restrict)' })
    expect((await get('/genres/1')).status).toBe(200)
  })

  it('checks an import\'s lists as a write\'s, all or nothing', async () => {
    const books = stores.collections.get('books')
    if (books === undefined) throw new Error('no books store')
    async function * lines (records: StoredRecord[]): AsyncGenerator<StoredRecord[]> { yield records }
    await expect(books.importAll(lines([{ id: 500, title: 'Imported', tags: [1] }, { id: 501, title: 'Orphan', tags: [2, 404] }]))).rejects.toThrow(DanglingReferenceError)
    expect((await get('/books/500')).status).toBe(404)
    expect(await books.importAll(lines([{ id: 502, title: 'Imported', tags: [2, 1] }]))).toBe(1)
    expect((await get('/books/502?expand=tags')).body.expand.tags.map((t: Json) => t.label)).toEqual(['classic', 'sf'])
    expect((await del('/books/502')).status).toBe(204)
  })

  it('takes a deleted id out of every list naming it (remove), each with its replaced event', async () => {
    const tag = (await post('/tags', { label: 'gone' })).body
    const a = (await post('/books', { title: 'A', tags: [1, tag.id, 2] })).body
    const b = (await post('/books', { title: 'B', tags: [tag.id] })).body
    const seq = (await stores.changes.window()).latest
    expect((await del(`/tags/${tag.id as number}`)).status).toBe(204)
    expect((await get(`/books/${a.id as number}`)).body.tags).toEqual([1, 2])
    expect((await get(`/books/${b.id as number}`)).body.tags).toEqual([])
    const changes = await changesAfter(seq, 3)
    expect(changes.map((c) => `${c.service}/${String(c.id)} ${c.kind}`).sort()).toEqual([`books/${a.id as number} replaced`, `books/${b.id as number} replaced`, `tags/${tag.id as number} deleted`].sort())
  })

  it('takes back a batch\'s remove from the lists when a later request fails', async () => {
    const tag = (await post('/tags', { label: 'kept' })).body
    const book = (await post('/books', { title: 'C', tags: [tag.id, 1] })).body
    const seq = (await stores.changes.window()).latest
    const failed = await post('/batch', { requests: [{ method: 'DELETE', url: `/tags/${tag.id as number}` }, { method: 'POST', url: '/books', body: { title: 'Ghost', tags: [404] } }] })
    expect(failed.status).toBe(422)
    expect(failed.body).toMatchObject({ index: 1, failed: { status: 422 } })
    expect((await get(`/tags/${tag.id as number}`)).status).toBe(200)
    expect((await get(`/books/${book.id as number}`)).body.tags).toEqual([tag.id, 1])
    expect(await stores.changes.since(seq, 1000)).toEqual([])
  })
}

/** Records the relation reads (getMany, and query on the collection a back-relation reads) of some stores until restored. */
function countCalls (stores: Stores, names: string[]): { calls: string[], restore: () => void } {
  const calls: string[] = []
  const methods = ['getMany', 'query']
  const patched: Json[] = []
  for (const name of names) {
    const store = stores.collections.get(name) as Json | undefined
    if (store === undefined) throw new Error(`no store ${name}`)
    patched.push(store)
    for (const method of methods) {
      const original = store[method].bind(store)
      store[method] = async (...args: unknown[]) => { calls.push(`${name}.${method}`); return await original(...args) }
    }
  }
  return { calls, restore: () => { for (const store of patched) for (const method of methods) delete store[method] } }
}
