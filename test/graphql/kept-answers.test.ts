import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Stores } from '../helpers/built-ins.js'
import { fromFile } from '../../src/services/collections/config.js'
import { request, startServer, type RunningServer } from '../helpers/server.js'
import { declarationFiles } from '../services/collections/fixture.js'
import { LOCAL_STORES, storeKinds } from '../stores/harness.js'
import { gql } from './helpers.js'
import { generateToken, tokenEntry } from '../../src/http/security/tokens.js'
import { bearer, security } from '../http/security/helpers.js'
import { rulesDeclarations } from './rules.suite.js'

/**
 * GraphQL answers of record queries kept per request text and the
 * revisions of every collection the document reads (memory store): a
 * repeat is not read again, and a write to any collection the document
 * reads (its list, a referenced collection, a cascade) gives the next
 * request a fresh answer. SQLite keeps none and answers the same.
 */
const library = JSON.parse(await readFile(new URL('../../examples/library.json', import.meta.url), 'utf8')) as Record<string, unknown>
const declarations = declarationFiles().write('library.json', library)
const BOOKS_WITH_AUTHORS = '{ books(first: 50) { nodes { title author { name } tags { label } } } }'

for (const kind of storeKinds(LOCAL_STORES)) {
  describe(`kept GraphQL record answers, ${kind.name} store`, () => {
    let stores: Stores
    let server: RunningServer
    /** Store queries of books and getMany of authors since the last reset. */
    const reads = { books: 0, authors: 0 }
    beforeAll(async () => {
      await kind.setup()
      const collections = fromFile(declarations, '--collections')
      stores = await kind.fresh({ collections: collections.declared.map((c) => c.declaration) })
      const books = stores.collections.get('books')
      const authors = stores.collections.get('authors')
      if (books === undefined || authors === undefined) throw new Error('library not declared')
      const query = books.query.bind(books)
      books.query = async (q) => { reads.books++; return await query(q) }
      const getMany = authors.getMany.bind(authors)
      authors.getMany = async (ids) => { reads.authors++; return await getMany(ids) }
      server = await startServer({ collections }, { stores })
      const post = async (path: string, json: unknown): Promise<void> => { expect((await request(`${server.origin}${path}`, { method: 'POST', json })).status).toBe(201) }
      await post('/authors', { name: 'Frank Herbert' })
      await post('/authors', { name: 'Ursula K. Le Guin' })
      await post('/tags', { label: 'classic' })
      await post('/books', { title: 'Dune', author: 1, tags: [1] })
      await post('/books', { title: 'The Dispossessed', author: 2 })
    })
    afterAll(async () => {
      await server?.close()
      await stores?.close()
      await kind.teardown()
    })

    const ask = async (query = BOOKS_WITH_AUTHORS): Promise<any> => {
      const res = await gql(server.origin, query)
      expect(res.status).toBe(200)
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined()
      return res.body.data
    }
    const reset = (): void => { reads.books = 0; reads.authors = 0 }

    it('answers a repeat from the kept answer on memory (no store read), and reads again on SQLite', async () => {
      const first = await ask()
      reset()
      expect(await ask()).toEqual(first)
      expect(await ask()).toEqual(first)
      expect(reads).toEqual(kind.name === 'memory' ? { books: 0, authors: 0 } : { books: 2, authors: 2 })
    })

    it('answers afresh after a write to the listed collection', async () => {
      await ask()
      expect((await request(`${server.origin}/books`, { method: 'POST', json: { title: 'Children of Dune', author: 1 } })).status).toBe(201)
      expect((await ask()).books.nodes.map((n: { title: string }) => n.title)).toContain('Children of Dune')
    })

    it('answers afresh after a write to a collection it reads through a reference, not only its own', async () => {
      expect((await ask()).books.nodes[0].author.name).toBe('Frank Herbert')
      const renamed = await request(`${server.origin}/authors/1`, { method: 'PATCH', json: { name: 'F. Herbert' }, headers: { 'content-type': 'application/merge-patch+json' } })
      expect(renamed.status).toBe(200)
      expect((await ask()).books.nodes[0].author.name).toBe('F. Herbert')
    })

    it('answers afresh after a delete that changes the records it reads (a tag taken out of each list)', async () => {
      expect((await ask()).books.nodes[0].tags).toEqual([{ label: 'classic' }])
      expect((await request(`${server.origin}/tags/1`, { method: 'DELETE' })).status).toBe(204)
      expect((await ask()).books.nodes[0].tags).toEqual([])
    })

    it('answers afresh after a GraphQL mutation, and a filter through a reference after a write to the referenced collection', async () => {
      const byAuthor = '{ books(filter: {author__name: {eq: "Ursula K. Le Guin"}}) { nodes { title } } }'
      expect((await ask(byAuthor)).books.nodes).toEqual([{ title: 'The Dispossessed' }])
      const created = await gql(server.origin, 'mutation { createBook(input: {title: "The Lathe of Heaven", author: 2}) { record { id } } }')
      expect(created.body.errors).toBeUndefined()
      expect((await ask(byAuthor)).books.nodes).toHaveLength(2)
      const renamed = await request(`${server.origin}/authors/2`, { method: 'PATCH', json: { name: 'U. K. Le Guin' }, headers: { 'content-type': 'application/merge-patch+json' } })
      expect(renamed.status).toBe(200)
      expect((await ask(byAuthor)).books.nodes).toEqual([])
    })

    it('keeps no answer with errors: a refused argument is refused again', async () => {
      const bad = await gql(server.origin, '{ books(first: 0) { nodes { title } } }')
      expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_FAILED')
      expect((await gql(server.origin, '{ books(first: 0) { nodes { title } } }')).body).toEqual(bad.body)
    })
  })
}

describe('kept GraphQL answers and callers', () => {
  let stores: Stores
  let server: RunningServer
  const tokens: Record<string, string> = {}
  const as = (caller: 'alice' | 'bob' | 'editor' | 'anonymous'): Record<string, string> => caller === 'anonymous' ? {} : bearer(tokens[caller] as string)
  /** Store queries of notes since the last reset. */
  let reads = 0
  const files = declarationFiles()
  beforeAll(async () => {
    // The notes example's rules (docs/rules.md), as rules.suite.ts serves them, on a memory store whose reads are counted.
    const entries = ([['alice', []], ['bob', []], ['editor', ['editor']]] as Array<[string, string[]]>)
      .map(([name, roles]) => { tokens[name] = generateToken(); return tokenEntry(tokens[name], name, ['read', 'write'], { roles }) })
    const tokensFile = files.write('tokens.json', { tokens: entries })
    const collections = fromFile(files.write('notes.json', await rulesDeclarations()), '--collections')
    const [memory] = storeKinds(['memory'])
    stores = await (memory as NonNullable<typeof memory>).fresh({ collections: collections.declared.map((c) => c.declaration) })
    const notes = stores.collections.get('notes')
    if (notes === undefined) throw new Error('notes not declared')
    const query = notes.query.bind(notes)
    notes.query = async (q) => { reads++; return await query(q) }
    server = await startServer({ collections, security: security({ authTokensFile: tokensFile, authPublicRead: true, authFailureLimit: { max: 10_000, windowMs: 60_000 } }) }, { stores })
    for (const [caller, title] of [['alice', 'alice private'], ['bob', 'bob private']] as const) {
      const created = await gql(server.origin, `mutation { createNote(input: {title: "${title}", public: false, email: "${caller}@example.org"}) { record { id } } }`, undefined, as(caller))
      expect(created.body.errors).toBeUndefined()
    }
  })
  afterAll(async () => {
    await server?.close()
    await stores?.close()
  })

  const NOTES = '{ notes { nodes { title email } } }'
  const notesOf = async (caller: 'alice' | 'bob' | 'editor' | 'anonymous'): Promise<Array<{ title: string, email: string | null }>> => {
    const res = await gql(server.origin, NOTES, undefined, as(caller))
    expect(res.body.errors).toBeUndefined()
    return res.body.data.notes.nodes
  }

  it('never serves one caller the answer another caller got under record rules, and keeps each caller\'s own', async () => {
    for (let round = 0; round < 2; round++) {
      if (round === 1) reads = 0
      expect(await notesOf('alice')).toEqual([{ title: 'alice private', email: 'alice@example.org' }])
      expect(await notesOf('bob')).toEqual([{ title: 'bob private', email: 'bob@example.org' }])
      // An editor lists both, without the authors' emails (x-read).
      expect(await notesOf('editor')).toEqual([{ title: 'alice private', email: null }, { title: 'bob private', email: null }])
      expect(await notesOf('anonymous')).toEqual([])
    }
    expect(reads).toBe(0)
  })

  it('answers each caller afresh after a write to what they read', async () => {
    await notesOf('alice')
    await notesOf('bob')
    const created = await gql(server.origin, 'mutation { createNote(input: {title: "alice later", public: false}) { record { id } } }', undefined, as('alice'))
    expect(created.body.errors).toBeUndefined()
    expect((await notesOf('alice')).map((n) => n.title)).toEqual(['alice private', 'alice later'])
    expect((await notesOf('bob')).map((n) => n.title)).toEqual(['bob private'])
    expect((await notesOf('editor')).map((n) => n.title)).toEqual(['alice private', 'bob private', 'alice later'])
  })

  it('never serves a kept answer to a caller the scopes refuse', async () => {
    const query = '{ comments { nodes { text } } }'
    const reader = await gql(server.origin, query, undefined, as('alice'))
    expect(reader.status).toBe(200)
    expect((await gql(server.origin, query, undefined, as('alice'))).body).toEqual(reader.body)
    const forged = await gql(server.origin, query, undefined, { authorization: 'Bearer not-a-token' })
    expect(forged.status).toBe(401)
  })
})

describe('kept GraphQL answers of the built-in students', () => {
  let server: RunningServer
  beforeAll(async () => { server = await startServer() })
  afterAll(async () => { await server?.close() })

  it('answers afresh after each kind of write through the student routes (create, replace, delete)', async () => {
    const names = async (): Promise<string[]> => {
      const res = await gql(server.origin, '{ students(first: 10) { nodes { firstName } } }')
      expect(res.body.errors).toBeUndefined()
      return res.body.data.students.nodes.map((n: { firstName: string }) => n.firstName)
    }
    const before = await names()
    expect(await names()).toEqual(before)
    const created = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'Ada', lastName: 'Lovelace', age: 36 } })
    expect(created.status).toBe(201)
    const id = created.body.body?.id ?? created.body.id
    expect(await names()).toEqual([...before, 'Ada'])
    expect((await request(`${server.origin}/students`, { method: 'PUT', json: { id, firstName: 'Grace', lastName: 'Hopper', age: 85 } })).status).toBeLessThan(300)
    expect(await names()).toEqual([...before, 'Grace'])
    expect((await request(`${server.origin}/students/${String(id)}`, { method: 'DELETE' })).status).toBeLessThan(300)
    expect(await names()).toEqual(before)
  })
})
