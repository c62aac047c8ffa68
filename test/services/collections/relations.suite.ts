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
 * References between collections (issue 30) over HTTP, alike on every store
 * (relations.test.ts: memory and SQLite; relations-pg.test.ts: PostgreSQL):
 * a dangling reference is refused, deletes follow x-on-delete with their
 * feed events, and ?expand answers the referenced records.
 */
const files = declarationFiles()
const ref = (collection: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ type: 'integer', 'x-references': collection, ...extra })
export const LIBRARY = {
  collections: {
    publishers: { schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
    authors: { schema: { type: 'object', properties: { name: { type: 'string' }, publisher: ref('publishers', { 'x-on-delete': 'set-null' }) }, required: ['name'] } },
    books: { schema: { type: 'object', properties: { title: { type: 'string' }, author: ref('authors') }, required: ['title', 'author'] } },
    reviews: { schema: { type: 'object', properties: { text: { type: 'string' }, book: ref('books', { 'x-on-delete': 'cascade' }) }, required: ['text', 'book'] } },
    enrolments: { schema: { type: 'object', properties: { student: ref('students', { 'x-on-delete': 'cascade' }) }, required: ['student'] } }
  }
}

type Json = Record<string, any>

export function relationsSuite (storeOf: () => Config['store'] | undefined): void {
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
  const lastSeq = async (): Promise<number> => (await stores.changes.window()).latest

  beforeAll(async () => {
    const store = storeOf()
    const collections = fromFile(files.write('library.json', LIBRARY), '--collections')
    const config = makeConfig({ collections, ...(store === undefined ? {} : { store }) })
    stores = withBuiltIns(await openStores(config.store, undefined, builtInDeclarations({ collections: collections.declared.map((c) => c.declaration) })))
    server = await startServer({ collections, ...(store === undefined ? {} : { store }) }, { stores })
    base = server.origin
    expect((await post('/publishers', { name: 'Chilton' })).body).toEqual({ id: 1, name: 'Chilton' })
    expect((await post('/authors', { name: 'Frank Herbert', publisher: 1 })).body).toEqual({ id: 1, name: 'Frank Herbert', publisher: 1 })
    expect((await post('/authors', { name: 'Ursula K. Le Guin' })).status).toBe(201)
    expect((await post('/books', { title: 'Dune', author: 1 })).body).toEqual({ id: 1, title: 'Dune', author: 1 })
    expect((await post('/books', { title: 'Dune Messiah', author: 1 })).status).toBe(201)
    expect((await post('/books', { title: 'The Dispossessed', author: 2 })).status).toBe(201)
  })
  afterAll(async () => {
    await (server as RunningServer | undefined)?.close()
    await (stores as Stores | undefined)?.close()
  })

  it('refuses a write whose reference names no record (422 naming the field and the id), writing nothing', async () => {
    const refused = await post('/books', { title: 'Ghost', author: 99 })
    expect(refused.status).toBe(422)
    expect(refused.body).toMatchObject({ type: '/errors/REFERENCE_NOT_FOUND', detail: 'body.author names authors/99, which does not exist' })
    expect(refused.body.errors).toEqual([expect.objectContaining({ error: 'REFERENCE_NOT_FOUND', message: 'The field author names a record that does not exist.' })])
    const replaced = await request(`${base}/books/1`, { method: 'PUT', json: { title: 'Dune', author: 42 } })
    expect(replaced.status).toBe(422)
    expect((await get('/books/1')).body).toEqual({ id: 1, title: 'Dune', author: 1 })
    expect((await get('/books?title=Ghost')).body.items).toEqual([])
  })

  it('refuses to delete a record still referenced (restrict: 409 naming the referring collection and how many)', async () => {
    const refused = await del('/authors/1')
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({ type: '/errors/RECORD_REFERENCED', detail: 'authors/1 is named by 2 records of books (field author, x-on-delete restrict)' })
    expect((await get('/authors/1')).status).toBe(200)
  })

  it('expands a reference on one record, nested inside the expanded record, and several at once', async () => {
    const dune = { id: 1, title: 'Dune', author: 1 }
    const herbert = { id: 1, name: 'Frank Herbert', publisher: 1 }
    expect((await get('/books/1?expand=author')).body).toEqual({ ...dune, expand: { author: herbert } })
    expect((await get('/books/1?expand=author.publisher')).body).toEqual({ ...dune, expand: { author: { ...herbert, expand: { publisher: { id: 1, name: 'Chilton' } } } } })
    const both = (await get('/authors/1?expand=publisher,books_via_author')).body
    expect(both.expand.publisher).toEqual({ id: 1, name: 'Chilton' })
    expect(both.expand.books_via_author.map((b: Json) => b.title)).toEqual(['Dune', 'Dune Messiah'])
    // An author without a publisher has nothing under it; one without books an empty list.
    expect((await get('/authors/2?expand=publisher,books_via_author')).body.expand).toEqual({ books_via_author: [{ id: 3, title: 'The Dispossessed', author: 2 }] })
    // The record alone keeps its ETag; an expanded answer has none.
    expect((await request(`${base}/books/1?expand=author`)).headers.get('etag')).toBeNull()
  })

  it('expands every record of a page, and next carries expand on', async () => {
    const first = await get('/books?limit=2&expand=author.publisher')
    expect(first.status).toBe(200)
    expect(first.body.items.map((b: Json) => [b.title, b.expand.author.name, b.expand.author.expand.publisher?.name])).toEqual([['Dune', 'Frank Herbert', 'Chilton'], ['Dune Messiah', 'Frank Herbert', 'Chilton']])
    expect(first.body.next).toContain('expand=author.publisher')
    const second = await get(first.body.next as string)
    expect(second.body.items[0]).toEqual({ id: 3, title: 'The Dispossessed', author: 2, expand: { author: { id: 2, name: 'Ursula K. Le Guin', expand: {} } } })
  })

  it('answers an expanded page anew after a write to any collection it reads, at every level (the memory store keeps expanded pages)', async () => {
    const names = async (): Promise<string[][]> => (await get('/books?limit=2&expand=author.publisher')).body.items.map((b: Json) => [b.title, b.expand.author.name, b.expand.author.expand.publisher?.name])
    expect(await names()).toEqual([['Dune', 'Frank Herbert', 'Chilton'], ['Dune Messiah', 'Frank Herbert', 'Chilton']])
    // Asked again unwritten: a store that keeps revisions (memory) answers the kept page, reading nothing; the others read each relation again.
    const counted = countCalls(stores, ['authors', 'publishers'])
    expect(await names()).toEqual([['Dune', 'Frank Herbert', 'Chilton'], ['Dune Messiah', 'Frank Herbert', 'Chilton']])
    counted.restore()
    const kept = (stores.collections.get('books') as Json).revision !== undefined
    expect(counted.calls.sort()).toEqual(kept ? [] : ['authors.getMany', 'publishers.getMany'])
    const put = async (path: string, json: unknown): Promise<void> => { expect((await request(`${base}${path}`, { method: 'PUT', json })).status).toBe(200) }
    try {
      await put('/authors/1', { name: 'F. Herbert', publisher: 1 })
      expect(await names()).toEqual([['Dune', 'F. Herbert', 'Chilton'], ['Dune Messiah', 'F. Herbert', 'Chilton']])
      await put('/publishers/1', { name: 'Chilton Books' })
      expect(await names()).toEqual([['Dune', 'F. Herbert', 'Chilton Books'], ['Dune Messiah', 'F. Herbert', 'Chilton Books']])
      await put('/books/2', { title: 'Messiah', author: 1 })
      expect(await names()).toEqual([['Dune', 'F. Herbert', 'Chilton Books'], ['Messiah', 'F. Herbert', 'Chilton Books']])
    } finally {
      await put('/books/2', { title: 'Dune Messiah', author: 1 })
      await put('/publishers/1', { name: 'Chilton' })
      await put('/authors/1', { name: 'Frank Herbert', publisher: 1 })
    }
    expect(await names()).toEqual([['Dune', 'Frank Herbert', 'Chilton'], ['Dune Messiah', 'Frank Herbert', 'Chilton']])
  })

  it('expands each line of an NDJSON list', async () => {
    const response = await fetch(`${base}/books?expand=author&title[contains]=dune`, { headers: { accept: 'application/x-ndjson' } })
    expect(response.status).toBe(200)
    const lines = (await response.text()).trim().split('\n').map((line) => JSON.parse(line))
    expect(lines.map((b: Json) => b.expand.author.name)).toEqual(['Frank Herbert', 'Frank Herbert'])
  })

  it('refuses an unknown relation and one more than 3 levels deep (400 INVALID_QUERY)', async () => {
    const unknown = await get('/books?expand=writer')
    expect(unknown.status).toBe(400)
    expect(unknown.body.detail).toBe('expand: books has no relation "writer" (it has author, reviews_via_book)')
    expect((await get('/books/1?expand=writer')).status).toBe(400)
    expect((await get('/reviews?expand=book.author.publisher.authors_via_publisher')).status).toBe(400)
    expect((await get('/reviews?expand=book.author.publisher')).status).toBe(200)
  })

  it('reads each relation once per page, never once per record', async () => {
    const counted = countCalls(stores, ['authors', 'publishers', 'books'])
    const page = await get('/books?limit=3&expand=author.publisher,author.books_via_author')
    expect(page.body.items).toHaveLength(3)
    expect(page.body.items[2].expand.author.expand.books_via_author).toHaveLength(1)
    counted.restore()
    expect(counted.calls.sort()).toEqual(['authors.getMany', 'books.withValues', 'publishers.getMany'])
  })

  it('filters through references (a semi-join), nested, counted, and carried on by next links', async () => {
    const titles = (body: Json): string[] => body.items.map((b: Json) => b.title)
    expect(titles((await get('/books?author.name[contains]=HERBERT')).body)).toEqual(['Dune', 'Dune Messiah'])
    expect(titles((await get('/books?author.name=Ursula%20K.%20Le%20Guin')).body)).toEqual(['The Dispossessed'])
    expect(titles((await get('/books?author.publisher.name=Chilton&sort=-title')).body)).toEqual(['Dune Messiah', 'Dune'])
    expect(titles((await get('/books?author.name[contains]=herbert&title[contains]=messiah')).body)).toEqual(['Dune Messiah'])
    expect(titles((await get('/books?author.publisher[gte]=1')).body)).toEqual(['Dune', 'Dune Messiah'])
    const counted = await request(`${base}/books?author.name[contains]=herbert&count=true&limit=1&expand=author`)
    expect(counted.headers.get('x-total-count')).toBe('2')
    expect(counted.body.next).toContain('author.name%5Bcontains%5D=herbert')
    const next = await get(counted.body.next as string)
    expect(next.body.items.map((b: Json) => [b.title, b.expand.author.name])).toEqual([['Dune Messiah', 'Frank Herbert']])
    const ndjson = await fetch(`${base}/books?author.name[contains]=le%20guin`, { headers: { accept: 'application/x-ndjson' } })
    expect((await ndjson.text()).trim().split('\n').map((l) => JSON.parse(l).title)).toEqual(['The Dispossessed'])
    expect((await get('/books?writer.name=x')).status).toBe(400)
    expect((await get('/books?author.publisher[gt]=many')).status).toBe(400)
    expect((await get('/books?author.limit=1')).status).toBe(400)
  })

  it('filters through references in filter= expressions, as the bracket form does, on every store', async () => {
    const titles = async (expression: string, extra = ''): Promise<string[]> => {
      const res = await get(`/books?filter=${encodeURIComponent(expression)}${extra}`)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body.items.map((b: Json) => b.title)
    }
    expect(await titles("author.name = 'Frank Herbert'")).toEqual(['Dune', 'Dune Messiah'])
    expect(await titles("author.name ~ 'HERBERT' && title ~ 'messiah'")).toEqual(['Dune Messiah'])
    expect(await titles("(author.name = 'Ursula K. Le Guin' || author.name ~ 'herbert') && title != 'Dune'")).toEqual(['Dune Messiah', 'The Dispossessed'])
    expect(await titles("author.publisher.name = 'Chilton'", '&sort=-title')).toEqual(['Dune Messiah', 'Dune'])
    expect(await titles("!(author.name ~ 'herbert')")).toEqual(['The Dispossessed'])
    expect(await titles("title ~ 'messiah'", '&author.name[contains]=herbert')).toEqual(['Dune Messiah'])
    const counted = await request(`${base}/books?filter=${encodeURIComponent("author.name ~ 'herbert'")}&count=true&limit=1`)
    expect(counted.headers.get('x-total-count')).toBe('2')
    expect((await get(counted.body.next as string)).body.items.map((b: Json) => b.title)).toEqual(['Dune Messiah'])
    const refused = async (expression: string, detail: string): Promise<void> => {
      const res = await get(`/books?filter=${encodeURIComponent(expression)}`)
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ type: '/errors/INVALID_QUERY' })
      expect(res.body.detail).toContain(detail)
    }
    await refused("author.name = 'x' || title = 'y'", 'filter: a condition through a reference (author.name) joins the rest of the filter with && only, not inside || or ! with fields of books or of another reference at 1')
    await refused("author.nme = 'x'", 'filter: unknown field "nme"')
    await refused("author.publisher.name > 1", "filter: name must be")
  })

  it('follows references in GraphQL, one store query per relation per level', async () => {
    const counted = countCalls(stores, ['authors', 'publishers', 'books'])
    const answer = await request(`${base}/graphql`, { method: 'POST', json: { query: '{ books(first: 3) { nodes { title author { name publisher { name } books_via_author(first: 1) { title } } } } }' } })
    counted.restore()
    expect(answer.body.errors).toBeUndefined()
    expect(answer.body.data.books.nodes).toEqual([
      { title: 'Dune', author: { name: 'Frank Herbert', publisher: { name: 'Chilton' }, books_via_author: [{ title: 'Dune' }] } },
      { title: 'Dune Messiah', author: { name: 'Frank Herbert', publisher: { name: 'Chilton' }, books_via_author: [{ title: 'Dune' }] } },
      { title: 'The Dispossessed', author: { name: 'Ursula K. Le Guin', publisher: null, books_via_author: [{ title: 'The Dispossessed' }] } }
    ])
    expect(counted.calls.sort()).toEqual(['authors.getMany', 'books.withValues', 'publishers.getMany'])
    const filtered = await request(`${base}/graphql`, { method: 'POST', json: { query: '{ authors(first: 2) { nodes { name books_via_author(filter: { title: { contains: "MESSIAH" } }) { title } } } }' } })
    expect(filtered.body.data.authors.nodes).toEqual([{ name: 'Frank Herbert', books_via_author: [{ title: 'Dune Messiah' }] }, { name: 'Ursula K. Le Guin', books_via_author: [] }])
    const introspected = await request(`${base}/graphql`, { method: 'POST', json: { query: '{ __type(name: "Book") { fields { name type { name kind } } } }' } })
    expect(introspected.body.data.__type.fields).toContainEqual({ name: 'author', type: { name: 'Author', kind: 'OBJECT' } })
  })

  it('sorts back-relations in GraphQL (sort: as the list field\'s), capping each record\'s in that order, still one store query per relation per level', async () => {
    const graphql = async (query: string): Promise<Json> => (await request(`${base}/graphql`, { method: 'POST', json: { query } })).body
    const counted = countCalls(stores, ['authors', 'publishers', 'books'])
    const sorted = await graphql('{ authors(first: 2) { nodes { name newest: books_via_author(sort: [title_DESC], first: 1) { title } all: books_via_author(sort: [title_DESC]) { title } } } }')
    counted.restore()
    expect(sorted.errors).toBeUndefined()
    expect(sorted.data.authors.nodes).toEqual([
      { name: 'Frank Herbert', newest: [{ title: 'Dune Messiah' }], all: [{ title: 'Dune Messiah' }, { title: 'Dune' }] },
      { name: 'Ursula K. Le Guin', newest: [{ title: 'The Dispossessed' }], all: [{ title: 'The Dispossessed' }] }
    ])
    // The same sort and filter is one load for the level: two aliases with the same arguments, one query.
    expect(counted.calls).toEqual(['books.withValues'])
    // Two levels deep, each level one query; a filter and a sort together.
    const again = countCalls(stores, ['authors', 'publishers', 'books'])
    const nested = await graphql('{ books(first: 3) { nodes { title author { books_via_author(filter: { title: { contains: "dune" } }, sort: [title_DESC]) { title author { name } } } } } }')
    again.restore()
    expect(nested.errors).toBeUndefined()
    expect(nested.data.books.nodes.map((b: Json) => b.author.books_via_author.map((x: Json) => x.title))).toEqual([['Dune Messiah', 'Dune'], ['Dune Messiah', 'Dune'], []])
    // The second level's authors are those of the first, already loaded for the request: no second query.
    expect(again.calls.sort()).toEqual(['authors.getMany', 'books.withValues'])
    // Through a list of references, and a publisher's authors by name descending.
    const publishers = await graphql('{ publishers(first: 1) { nodes { authors_via_publisher(sort: [name_DESC]) { name } } } }')
    expect(publishers.data.publishers.nodes).toEqual([{ authors_via_publisher: [{ name: 'Frank Herbert' }] }])
    // A key named twice is refused as the list field refuses it.
    const twice = await graphql('{ authors(first: 1) { nodes { books_via_author(sort: [title_ASC, title_DESC]) { title } } } }')
    expect(twice.errors[0].extensions.code).toBe('INVALID_QUERY')
  })

  it('filters through references in GraphQL list filters (author__name, REST\'s author.name), at the top of the filter only', async () => {
    const graphql = async (query: string): Promise<Json> => (await request(`${base}/graphql`, { method: 'POST', json: { query } })).body
    const titles = (body: Json): string[] => body.data.books.nodes.map((b: Json) => b.title)
    expect(titles(await graphql('{ books(filter: { author__name: { contains: "HERBERT" } }) { nodes { title } } }'))).toEqual(['Dune', 'Dune Messiah'])
    expect(titles(await graphql('{ books(filter: { author__name: { eq: "Frank Herbert" }, title: { contains: "messiah" } }) { nodes { title } } }'))).toEqual(['Dune Messiah'])
    expect(titles(await graphql('{ books(filter: { author__publisher: { eq: 1 } }, sort: [title_DESC]) { nodes { title } } }'))).toEqual(['Dune Messiah', 'Dune'])
    const back = await graphql('{ publishers(first: 1) { nodes { name authors_via_publisher(filter: { name: { contains: "frank" } }) { name } } } }')
    expect(back.data.publishers.nodes).toEqual([{ name: 'Chilton', authors_via_publisher: [{ name: 'Frank Herbert' }] }])
    const nested = await graphql('{ books(filter: { or: [{ author__name: { eq: "x" } }] }) { nodes { title } } }')
    expect(nested.errors[0].extensions.code).toBe('INVALID_QUERY')
    expect(JSON.stringify(nested.errors[0].extensions)).toContain('a filter through a reference applies at the top of a list\'s filter only')
  })

  it('describes expand, the expanded shape and the refusals in /openapi.json', async () => {
    const doc = (await get('/openapi.json')).body
    const names = (op: Json): string[] => (op.parameters ?? []).map((p: Json) => p.name)
    expect(names(doc.paths['/books'].get)).toContain('expand')
    expect(names(doc.paths['/books/{id}'].get)).toContain('expand')
    const record = JSON.stringify(doc.paths['/books/{id}'].get.responses['200'])
    const component = /#\/components\/schemas\/([A-Za-z]+)/.exec(record)?.[1]
    expect(JSON.stringify(component === undefined ? record : doc.components.schemas[component])).toContain('"expand"')
    expect(Object.keys(doc.paths['/books'].post.responses)).toContain('422')
    expect(JSON.stringify(doc.paths['/books'].post.responses['422'])).toContain('REFERENCE_NOT_FOUND')
    expect(JSON.stringify(doc.paths['/authors/{id}'].delete.responses['409'])).toContain('RECORD_REFERENCED')
  })

  it('cascades a delete to the referring records, each with its feed event', async () => {
    const book = (await post('/books', { title: 'Children of Dune', author: 1 })).body
    const first = (await post('/reviews', { text: 'Sandy', book: book.id })).body
    const second = (await post('/reviews', { text: 'Long', book: book.id })).body
    const other = (await post('/reviews', { text: 'Great', book: 1 })).body
    const seq = await lastSeq()
    expect((await del(`/books/${book.id as number}`)).status).toBe(204)
    expect((await get(`/reviews/${first.id as number}`)).status).toBe(404)
    expect((await get(`/reviews/${second.id as number}`)).status).toBe(404)
    expect((await get(`/reviews/${other.id as number}`)).status).toBe(200)
    const changes = await changesAfter(seq, 3)
    expect(changes.map((c) => `${c.service}/${String(c.id)} ${c.kind}`).sort()).toEqual([`books/${book.id as number} deleted`, `reviews/${first.id as number} deleted`, `reviews/${second.id as number} deleted`].sort())
  })

  it('clears an optional reference on set-null, with a replaced event for each record', async () => {
    const publisher = (await post('/publishers', { name: 'Ace' })).body
    const author = (await post('/authors', { name: 'Samuel R. Delany', publisher: publisher.id })).body
    const seq = await lastSeq()
    expect((await del(`/publishers/${publisher.id as number}`)).status).toBe(204)
    expect((await get(`/authors/${author.id as number}`)).body).toEqual({ id: author.id, name: 'Samuel R. Delany' })
    const changes = await changesAfter(seq, 2)
    expect(changes.map((c) => `${c.service}/${String(c.id)} ${c.kind}`).sort()).toEqual([`authors/${author.id as number} replaced`, `publishers/${publisher.id as number} deleted`])
  })

  it('checks an import\'s references as a write\'s, all or nothing', async () => {
    const books = stores.collections.get('books')
    if (books === undefined) throw new Error('no books store')
    async function * lines (records: StoredRecord[]): AsyncGenerator<StoredRecord[]> { yield records }
    await expect(books.importAll(lines([{ id: 500, title: 'Imported', author: 1 }, { id: 501, title: 'Orphan', author: 404 }]))).rejects.toThrow(DanglingReferenceError)
    expect((await get('/books/500')).status).toBe(404)
    expect(await books.importAll(lines([{ id: 502, title: 'Imported', author: 2 }]))).toBe(1)
    expect((await get('/books/502?expand=author')).body.expand.author.name).toBe('Ursula K. Le Guin')
    expect((await del('/books/502')).status).toBe(204)
  })

  it('references a built-in collection (students) and cascades its deletes', async () => {
    const student = (await request(`${base}/v2/students`, { method: 'POST', json: { firstName: 'Ada', lastName: 'Lovelace', age: 36 } })).body
    expect((await post('/enrolments', { student: 999 })).status).toBe(422)
    const enrolment = await post('/enrolments', { student: student.id })
    expect(enrolment.status).toBe(201)
    expect((await request(`${base}/v2/students/${student.id as number}`, { method: 'DELETE' })).status).toBe(204)
    expect((await get(`/enrolments/${enrolment.body.id as number}`)).status).toBe(404)
  })

  it('takes back a batch\'s cascade and set-null when a later request fails, and applies them when it commits', async () => {
    const book = (await post('/books', { title: 'Heretics of Dune', author: 1 })).body
    const reviews = [(await post('/reviews', { text: 'Dense', book: book.id })).body, (await post('/reviews', { text: 'Dark', book: book.id })).body]
    const publisher = (await post('/publishers', { name: 'Gollancz' })).body
    const author = (await post('/authors', { name: 'Iain M. Banks', publisher: publisher.id })).body
    const all = async (): Promise<Json[][]> => await Promise.all(['/books', '/reviews', '/authors', '/publishers'].map(async (path) => { const page = await get(`${path}?limit=100`); expect(page.status).toBe(200); return page.body.items as Json[] }))
    const before = await all()
    const seq = await lastSeq()
    const deletes = [{ method: 'DELETE', url: `/books/${book.id as number}` }, { method: 'DELETE', url: `/publishers/${publisher.id as number}` }]
    const failed = await post('/batch', { requests: [...deletes, { method: 'POST', url: '/books', body: { title: 'Ghost', author: 99 } }] })
    expect(failed.status).toBe(422)
    expect(failed.body).toMatchObject({ index: 2, failed: { status: 422, errors: [{ error: 'REFERENCE_NOT_FOUND' }] } })
    // Every collection is exactly as before, and the feed carries nothing of the failed batch.
    expect(await all()).toEqual(before)
    expect(await stores.changes.since(seq, 1000)).toEqual([])
    const applied = await post('/batch', { requests: deletes })
    expect(applied.status).toBe(200)
    for (const review of reviews) expect((await get(`/reviews/${review.id as number}`)).status).toBe(404)
    expect((await get(`/authors/${author.id as number}`)).body).toEqual({ id: author.id, name: 'Iain M. Banks' })
    const changes = await changesAfter(seq, 5)
    expect(changes.map((c) => `${c.service}/${String(c.id)} ${c.kind}`).sort()).toEqual([
      `authors/${author.id as number} replaced`, `books/${book.id as number} deleted`, `publishers/${publisher.id as number} deleted`,
      ...reviews.map((r) => `reviews/${r.id as number} deleted`)
    ].sort())
  })

  it('leaves no dangling reference after racing creates and deletes', async () => {
    for (let round = 0; round < 5; round++) {
      const author = (await post('/authors', { name: `Racer ${round}` })).body
      const results = await Promise.all([
        ...Array.from({ length: 6 }, async () => await post('/books', { title: `Race ${round}`, author: author.id })),
        del(`/authors/${author.id as number}`),
        ...Array.from({ length: 6 }, async () => await post('/books', { title: `Race ${round}`, author: author.id }))
      ])
      for (const r of results) expect([201, 204, 409, 422]).toContain(r.status)
      const authorHeld = (await get(`/authors/${author.id as number}`)).status === 200
      const books = (await get(`/books?title=Race%20${round}&limit=100`)).body.items as Json[]
      // Either the author survived (a book was created first) or no book names it.
      if (!authorHeld) expect(books).toEqual([])
    }
  })

  it('answers a repeated filter= text as the first time (its reading is kept; the records are read anew), refusals included', async () => {
    const titles = async (expression: string): Promise<string[]> => {
      const res = await get(`/books?filter=${encodeURIComponent(expression)}`)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body.items.map((b: Json) => b.title)
    }
    const author = await post('/authors', { name: 'Kept Filter Author' })
    expect(author.status, JSON.stringify(author.body)).toBe(201)
    const own = "author.name = 'Kept Filter Author' && title ~ 'kept'"
    for (let i = 0; i < 2; i++) {
      expect(await titles(own)).toEqual([])
      expect(await titles("title = 'The kept one'")).toEqual([])
      const res = await get(`/books?filter=${encodeURIComponent("author.name = 'x' || title = 'y'")}`)
      expect(res.status).toBe(400)
      expect(res.body.detail).toContain('joins the rest of the filter with && only')
    }
    // Books written since: the kept reading selects them (only the text's reading is kept, never an answer).
    const book = await post('/books', { title: 'The kept one', author: author.body.id })
    expect(book.status, JSON.stringify(book.body)).toBe(201)
    expect(await titles(own)).toEqual(['The kept one'])
    expect(await titles("title = 'The kept one'")).toEqual(['The kept one'])
    expect((await del(`/books/${String(book.body.id)}`)).status).toBe(204)
    expect((await del(`/authors/${String(author.body.id)}`)).status).toBe(204)
  })
}

/** Records every read by id of the named collections' stores (get, getMany, withValues) until `restore`. */
function countCalls (stores: Stores, names: string[]): { calls: string[], restore: () => void } {
  const calls: string[] = []
  const patched: Json[] = []
  for (const name of names) {
    const store = stores.collections.get(name) as Json | undefined
    if (store === undefined) throw new Error(`no store ${name}`)
    patched.push(store)
    for (const method of ['get', 'getMany', 'withValues']) {
      const original = store[method].bind(store)
      store[method] = async (...args: unknown[]) => { calls.push(`${name}.${method}`); return await original(...args) }
    }
  }
  return { calls, restore: () => { for (const store of patched) for (const method of ['get', 'getMany', 'withValues']) delete store[method] } }
}
