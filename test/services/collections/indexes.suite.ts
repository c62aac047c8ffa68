import { expect, it } from 'vitest'
import type { Config } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { declarationFiles } from './fixture.js'

/**
 * Declared indexes (`"indexes"` beside `schema`), alike on every store
 * (indexes.test.ts: memory and SQLite; indexes-pg.test.ts: PostgreSQL):
 * exactly the declared ones exist in the database's catalogue, made and
 * dropped at a restart and by a change through the admin API; unique keys
 * keep their own; sorts and filters on unindexed fields answer as on
 * indexed ones.
 */
const files = declarationFiles()

const schema = {
  type: 'object',
  properties: { title: { type: 'string' }, year: { type: 'integer' }, price: { type: 'number' }, isbn: { type: 'string' } },
  required: ['title', 'year']
}
const shelf = (indexes?: unknown): Record<string, unknown> => ({ schema, unique: [['isbn']], ...(indexes === undefined ? {} : { indexes }) })
const BOOKS = Array.from({ length: 40 }, (_, i) => ({ title: `Book ${(i * 7) % 13}`, year: 1990 + (i % 5), price: (i * 3) % 11 + 0.5, isbn: `isbn-${i}` }))
const QUERIES = ['?sort=price,-title&limit=100', '?sort=-title&limit=7', '?title=Book 3&sort=-price', '?price[gte]=5&sort=year,price&limit=100', '?year=1992&sort=title,-id', '?q=book 1&sort=price']

/** The table's indexes besides its key and unique keys, each as its columns (`title,year,id`), sorted; undefined: the store keeps none in a catalogue (memory). */
export type IndexesOf = (store: Config['store'], table: string) => Promise<string[] | undefined>

export function indexesSuite (freshStore: () => Promise<Config['store'] | undefined>, indexesOf: IndexesOf): void {
  const start = async (store: Config['store'] | undefined, collections: Record<string, unknown>): Promise<RunningServer> =>
    await startServer({ collections: fromFile(files.write('indexes.json', { collections }), '--collections'), ...(store === undefined ? {} : { store }) })
  const post = async (server: RunningServer, name: string, json: unknown): ReturnType<typeof request> => await request(`${server.origin}/${name}`, { method: 'POST', json })
  const indexes = async (store: Config['store'] | undefined, name: string): Promise<string[] | undefined> => store === undefined ? undefined : await indexesOf(store, `rqs_col_${name}`)

  it('makes exactly the declared indexes (a unique key keeps its own) and answers every sort and filter as with every field indexed', async () => {
    const store = await freshStore()
    const server = await start(store, { plain: shelf(), lean: shelf([['year'], ['title', 'year']]), bare: shelf([]) })
    try {
      for (const name of ['plain', 'lean', 'bare']) for (const book of BOOKS) expect((await post(server, name, book)).status).toBe(201)
      const all = await indexes(store, 'plain')
      if (all !== undefined) {
        expect(all).toEqual(['isbn,id', 'price,id', 'title,id', 'year,id'])
        expect(await indexes(store, 'lean')).toEqual(['title,year,id', 'year,id'])
        expect(await indexes(store, 'bare')).toEqual([])
      }
      for (const name of ['lean', 'bare']) expect((await post(server, name, { title: 'Copy', year: 1, isbn: 'isbn-3' })).status).toBe(409)
      for (const query of QUERIES) {
        const expected = (await request(`${server.origin}/plain${query}`)).body
        expect(expected.items.length).toBeGreaterThan(0)
        for (const name of ['lean', 'bare']) expect((await request(`${server.origin}/${name}${query}`)).body.items, `${name}${query}`).toEqual(expected.items)
      }
    } finally {
      await server.close()
    }
  })

  it('makes and drops indexes when a restart declares others, the records untouched', async () => {
    const store = await freshStore()
    const at = async (indexes: unknown, check: (server: RunningServer) => Promise<void>): Promise<void> => {
      const server = await start(store, { shelf: shelf(indexes) })
      try { await check(server) } finally { await server.close() }
    }
    await at([['year']], async (server) => { for (const book of BOOKS) expect((await post(server, 'shelf', book)).status).toBe(201) })
    if (store === undefined) return
    expect(await indexes(store, 'shelf')).toEqual(['year,id'])
    await at(undefined, async (server) => { expect((await request(`${server.origin}/shelf?limit=1`)).body.total ?? BOOKS.length).toBe(BOOKS.length) })
    expect(await indexes(store, 'shelf')).toEqual(['isbn,id', 'price,id', 'title,id', 'year,id'])
    await at([['price', 'title']], async (server) => {
      expect((await request(`${server.origin}/shelf?sort=title,price&limit=100`)).body.items).toHaveLength(BOOKS.length)
    })
    expect(await indexes(store, 'shelf')).toEqual(['price,title,id'])
  })

  it('makes and drops indexes when a change through the admin API declares others; refuses a bad declaration', async () => {
    const store = await freshStore()
    const server = await start(store, { shelf: shelf([['year']]) })
    try {
      for (const book of BOOKS.slice(0, 10)) expect((await post(server, 'shelf', book)).status).toBe(201)
      const etag = (await request(`${server.origin}/collections/shelf`)).headers.get('etag') as string
      const changed = await request(`${server.origin}/collections/shelf`, { method: 'PUT', json: shelf([['price'], ['title', 'price']]), headers: { 'if-match': etag } })
      expect(changed.status).toBe(200)
      expect(changed.body.plan.indexed).toEqual(['price'])
      expect(await indexes(store, 'shelf') ?? ['price,id', 'title,price,id']).toEqual(['price,id', 'title,price,id'])
      expect((await request(`${server.origin}/shelf?sort=-year,id&limit=3`)).body.items.map((b: { id: number }) => b.id)).toEqual([5, 10, 4])
      const refused = await request(`${server.origin}/collections`, { method: 'POST', json: { name: 'other', schema, indexes: [['yaer']] } })
      expect(refused.status).toBe(400)
      expect(refused.body.errors[0].error).toBe('DECLARATION_INVALID')
      expect(refused.body.detail).toBe('collection other: collections.other.indexes.0.0: "yaer" is not a declared field; did you mean "year"?')
    } finally {
      await server.close()
    }
  })
}
