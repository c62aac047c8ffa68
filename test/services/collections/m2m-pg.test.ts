import { expect, it } from 'vitest'
import { fromFile } from '../../../src/services/collections/config.js'
import { request, startServer } from '../../helpers/server.js'
import { describePostgres, postgresDatabases } from '../../helpers/postgres-http.js'
import { declarationFiles } from './fixture.js'
import { m2mSuite, SHELF } from './m2m.suite.js'

/** Lists of references on PostgreSQL (triggers, no foreign key on array items), and two instances racing on one database. */
const files = declarationFiles()
const { store, fresh } = postgresDatabases()

describePostgres(() => {
  m2mSuite(store)

  it('leaves no list naming a deleted record when two instances race creates and deletes (restrict and remove)', async () => {
    const shared = await fresh()
    const collections = fromFile(files.write('race.json', SHELF), '--collections')
    const one = await startServer({ collections, store: shared })
    const two = await startServer({ collections, store: shared })
    const seen = new Set<number>()
    try {
      for (let round = 0; round < 8; round++) {
        const tag = (await request(`${one.origin}/tags`, { method: 'POST', json: { label: `t${round}` } })).body
        const genre = (await request(`${one.origin}/genres`, { method: 'POST', json: { name: `g${round}` } })).body
        // One book names the tag before the race, so the delete (remove) always has a list to change.
        const before = await request(`${one.origin}/books`, { method: 'POST', json: { title: `Before ${round}`, tags: [tag.id], genres: [] } })
        expect(before.status).toBe(201)
        seen.add(before.status)
        const creates = Array.from({ length: 6 }, async (_, i) => await request(`${(i % 2 === 0 ? one : two).origin}/books`, { method: 'POST', json: { title: `Race ${round}`, tags: [tag.id], genres: [genre.id] } }))
        const deletes = [
          request(`${two.origin}/tags/${tag.id as number}`, { method: 'DELETE' }),
          request(`${one.origin}/genres/${genre.id as number}`, { method: 'DELETE' })
        ]
        for (const r of await Promise.all([...creates, ...deletes])) {
          expect([201, 204, 404, 409, 422]).toContain(r.status)
          seen.add(r.status)
        }
      }
      // The race wrote: books were created and tags deleted (remove) while they were.
      expect(seen.has(201) && seen.has(204)).toBe(true)
      const books = (await request(`${one.origin}/books?limit=100`)).body.items as Array<{ tags: number[], genres: number[] }>
      for (const book of books) {
        for (const id of book.tags) expect((await request(`${two.origin}/tags/${id}`)).status).toBe(200)
        for (const id of book.genres) expect((await request(`${two.origin}/genres/${id}`)).status).toBe(200)
      }
    } finally {
      await one.close()
      await two.close()
    }
  })

  it('removes two ids deleted at once from the same lists without a deadlock', async () => {
    const shared = await fresh()
    const collections = fromFile(files.write('removes.json', SHELF), '--collections')
    const one = await startServer({ collections, store: shared })
    const two = await startServer({ collections, store: shared })
    try {
      for (let round = 0; round < 5; round++) {
        const a = (await request(`${one.origin}/tags`, { method: 'POST', json: { label: `a${round}` } })).body.id as number
        const b = (await request(`${one.origin}/tags`, { method: 'POST', json: { label: `b${round}` } })).body.id as number
        const ids: number[] = []
        for (let i = 0; i < 4; i++) ids.push((await request(`${one.origin}/books`, { method: 'POST', json: { title: `Both ${round}`, tags: i % 2 === 0 ? [a, b] : [b, a] } })).body.id as number)
        const deleted = await Promise.all([request(`${one.origin}/tags/${a}`, { method: 'DELETE' }), request(`${two.origin}/tags/${b}`, { method: 'DELETE' })])
        expect(deleted.map((r) => r.status)).toEqual([204, 204])
        for (const id of ids) expect((await request(`${two.origin}/books/${id}`)).body.tags).toEqual([])
      }
    } finally {
      await one.close()
      await two.close()
    }
  })

  it('follows a changed x-on-delete of a list after a restart, and refuses to start over lists naming missing records', async () => {
    const shared = await fresh()
    const books = SHELF.collections.books.schema
    const withTags = (tags: Record<string, unknown>): Record<string, unknown> => ({ collections: { ...SHELF.collections, books: { schema: { ...books, properties: { ...books.properties, tags } } } } })
    const items = { type: 'integer', 'x-references': 'tags' }
    let server = await startServer({ collections: fromFile(files.write('l-restrict.json', withTags({ type: 'array', items })), '--collections'), store: shared })
    try {
      expect((await request(`${server.origin}/tags`, { method: 'POST', json: { label: 'sf' } })).status).toBe(201)
      expect((await request(`${server.origin}/books`, { method: 'POST', json: { title: 'Dune', tags: [1] } })).status).toBe(201)
      expect((await request(`${server.origin}/tags/1`, { method: 'DELETE' })).status).toBe(409)
    } finally { await server.close() }
    server = await startServer({ collections: fromFile(files.write('l-remove.json', withTags({ type: 'array', items, 'x-on-delete': 'remove' })), '--collections'), store: shared })
    try {
      expect((await request(`${server.origin}/tags/1`, { method: 'DELETE' })).status).toBe(204)
      expect((await request(`${server.origin}/books/1`)).body.tags).toEqual([])
    } finally { await server.close() }
    // A plain list may hold any id; declaring it a reference then stops the start, naming one.
    server = await startServer({ collections: fromFile(files.write('l-plain.json', withTags({ type: 'array', items: { type: 'integer' } })), '--collections'), store: shared })
    try {
      expect((await request(`${server.origin}/books`, { method: 'POST', json: { title: 'Ghost', tags: [77] } })).status).toBe(201)
    } finally { await server.close() }
    await expect(startServer({ collections: fromFile(files.write('l-again.json', withTags({ type: 'array', items })), '--collections'), store: shared })).rejects.toThrow(/tags: records name tags\/77, which does not exist/)
  })
})
