import pg from 'pg'
import { expect, it } from 'vitest'
import { fromFile } from '../../../src/services/collections/config.js'
import { request, startServer } from '../../helpers/server.js'
import { describePostgres, postgresDatabases } from '../../helpers/postgres-http.js'
import { declarationFiles } from './fixture.js'
import { LIBRARY, relationsSuite } from './relations.suite.js'

/** References over HTTP on PostgreSQL (a database of its own): foreign keys, and two instances racing on one database. */
const files = declarationFiles()
const { store, fresh } = postgresDatabases()

describePostgres(() => {
  relationsSuite(store)

  it('follows a changed x-on-delete after a restart, and refuses to start over records naming missing ones', async () => {
    const shared = await fresh()
    const restrict = fromFile(files.write('restrict.json', LIBRARY), '--collections')
    let server = await startServer({ collections: restrict, store: shared })
    expect((await request(`${server.origin}/authors`, { method: 'POST', json: { name: 'Herbert' } })).status).toBe(201)
    expect((await request(`${server.origin}/books`, { method: 'POST', json: { title: 'Dune', author: 1 } })).status).toBe(201)
    expect((await request(`${server.origin}/authors/1`, { method: 'DELETE' })).status).toBe(409)
    await server.close()
    const library = LIBRARY.collections
    const cascading = { collections: { ...library, books: { schema: { ...library.books.schema, properties: { ...library.books.schema.properties, author: { type: 'integer', 'x-references': 'authors', 'x-on-delete': 'cascade' } } } } } }
    server = await startServer({ collections: fromFile(files.write('cascade.json', cascading), '--collections'), store: shared })
    try {
      expect((await request(`${server.origin}/authors/1`, { method: 'DELETE' })).status).toBe(204)
      expect((await request(`${server.origin}/books/1`)).status).toBe(404)
    } finally {
      await server.close()
    }
  })

  it('leaves no dangling reference when two instances race creates and deletes', async () => {
    const shared = await fresh()
    const collections = fromFile(files.write('race.json', LIBRARY), '--collections')
    const one = await startServer({ collections, store: shared })
    const two = await startServer({ collections, store: shared })
    try {
      for (let round = 0; round < 10; round++) {
        const author = (await request(`${one.origin}/authors`, { method: 'POST', json: { name: `Racer ${round}` } })).body
        const creates = Array.from({ length: 8 }, async (_, i) => await request(`${(i % 2 === 0 ? one : two).origin}/books`, { method: 'POST', json: { title: `Race ${round}`, author: author.id } }))
        const deletes = [request(`${two.origin}/authors/${author.id as number}`, { method: 'DELETE' }), request(`${one.origin}/authors/${author.id as number}`, { method: 'DELETE' })]
        for (const r of await Promise.all([...creates, ...deletes])) expect([201, 204, 404, 409, 422]).toContain(r.status)
      }
      // Every book names an author that exists.
      const books = (await request(`${one.origin}/books?limit=100`)).body.items as Array<{ author: number }>
      for (const book of books) expect((await request(`${two.origin}/authors/${book.author}`)).status).toBe(200)
    } finally {
      await one.close()
      await two.close()
    }
  })

  it('leaves 0 dangling references in the database after 10 s of two instances racing creates against restrict and cascade deletes', { timeout: 120_000 }, async () => {
    const shared = await fresh()
    const collections = fromFile(files.write('race-timed.json', LIBRARY), '--collections')
    const one = await startServer({ collections, store: shared })
    const two = await startServer({ collections, store: shared })
    const statuses = new Map<number, number>()
    const seen = (status: number): void => { statuses.set(status, (statuses.get(status) ?? 0) + 1) }
    try {
      const until = Date.now() + 10_000
      let round = 0
      while (Date.now() < until) {
        round++
        const [a, b] = round % 2 === 0 ? [one, two] : [two, one]
        const author = (await request(`${a.origin}/authors`, { method: 'POST', json: { name: `Racer ${round}` } })).body as { id: number }
        const book = (await request(`${b.origin}/books`, { method: 'POST', json: { title: `Race ${round}`, author: author.id } })).body as { id: number }
        const racing = await Promise.all([
          // Books for the author while it is deleted (restrict: a delete after a book is refused).
          ...Array.from({ length: 4 }, async (_, i) => await request(`${(i % 2 === 0 ? a : b).origin}/books`, { method: 'POST', json: { title: `Race ${round}.${i}`, author: author.id } })),
          request(`${b.origin}/books/${book.id}`, { method: 'DELETE' }),
          request(`${a.origin}/authors/${author.id}`, { method: 'DELETE' }),
          // Reviews of a book while it is deleted (cascade: the delete takes them with it).
          ...Array.from({ length: 4 }, async (_, i) => await request(`${(i % 2 === 0 ? b : a).origin}/reviews`, { method: 'POST', json: { text: `Review ${round}.${i}`, book: book.id } }))
        ])
        for (const r of racing) { seen(r.status); expect([201, 204, 404, 409, 422]).toContain(r.status) }
      }
      // Both outcomes were raced, not just one of them.
      expect(statuses.get(201) ?? 0).toBeGreaterThan(0)
      expect((statuses.get(409) ?? 0) + (statuses.get(422) ?? 0)).toBeGreaterThan(0)
      const client = new pg.Client({ connectionString: (shared as { url: string }).url })
      await client.connect()
      try {
        const dangling = await client.query<{ books: string, reviews: string }>(`SELECT
          (SELECT count(*) FROM rqs_col_books b WHERE NOT EXISTS (SELECT 1 FROM rqs_col_authors a WHERE a.id = b.author)) AS books,
          (SELECT count(*) FROM rqs_col_reviews r WHERE NOT EXISTS (SELECT 1 FROM rqs_col_books b WHERE b.id = r.book)) AS reviews`)
        expect(dangling.rows[0]).toEqual({ books: '0', reviews: '0' })
      } finally {
        await client.end()
      }
    } finally {
      await one.close()
      await two.close()
    }
  })
})
