import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Stores } from '../helpers/built-ins.js'
import { fromFile } from '../../src/services/collections/config.js'
import { request, startServer, type RunningServer } from '../helpers/server.js'
import { DECLARATIONS, declarationFiles } from '../services/collections/fixture.js'
import type { StoreKind } from '../stores/harness.js'
import { gql, subscribe } from './helpers.js'

/**
 * GraphQL's filter inputs with `and`, `or`, `not`, `in`, `isNull` (issue 31,
 * item 4) answer what REST's `filter=` answers for the same question, on
 * every store; subscriptions take a `filter` (item 7).
 */
const declarations = declarationFiles().write('books.json', DECLARATIONS)
const BOOKS = [
  { title: 'Dune', year: 1965, price: 9.5, available: true, isbn: '978-0441013593' },
  { title: 'Neuromancer', year: 1984, price: 7.25, available: false },
  { title: 'The Dispossessed', year: 1974, price: 12, available: true },
  { title: 'Solaris', year: 1961, price: 5, available: false, isbn: '978-0156027601' },
  { title: 'Dune Messiah', year: 2001, price: 11, available: true }
]

export function graphqlFilterSuite (kinds: StoreKind[]): void {
  for (const kind of kinds) {
    describe.skipIf(kind.skip !== undefined)(`GraphQL filters, ${kind.name} store${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
      let stores: Stores
      let server: RunningServer
      beforeAll(async () => {
        await kind.setup()
        const collections = fromFile(declarations, '--collections')
        stores = await kind.fresh({ collections: collections.declared.map((c) => c.declaration) })
        server = await startServer({ collections }, { stores })
        for (const b of BOOKS) expect((await request(`${server.origin}/books`, { method: 'POST', json: b })).status).toBe(201)
      })
      afterAll(async () => {
        await server?.close()
        await stores?.close()
        await kind.teardown()
      })

      const titles = async (filter: string): Promise<string[]> => {
        const res = await gql(server.origin, `{ books(filter: ${filter}, sort: [year_ASC]) { totalCount nodes { title } } }`)
        expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined()
        expect(res.body.data.books.totalCount).toBe(res.body.data.books.nodes.length)
        return res.body.data.books.nodes.map((n: { title: string }) => n.title)
      }
      const rest = async (expression: string): Promise<string[]> => {
        const res = await request(`${server.origin}/books?sort=year&filter=${encodeURIComponent(expression)}`)
        expect(res.status, res.text).toBe(200)
        return res.body.items.map((b: { title: string }) => b.title)
      }

      it.each([
        ['{or: [{year: {lt: 1962}}, {year: {gte: 2000}}], available: {eq: false}}', '(year < 1962 || year >= 2000) && available = false'],
        ['{not: {title: {contains: "dune"}}}', "!(title ~ 'dune')"],
        ['{and: [{year: {gt: 1960}}, {not: {or: [{isbn: {isNull: true}}, {price: {lt: 6}}]}}]}', 'year > 1960 && !(isbn = null || price < 6)'],
        ['{year: {in: [1984, 2001, 1900]}}', 'year = 1984 || year = 2001 || year = 1900'],
        ['{isbn: {isNull: false}, or: [{q: "SOLAR"}, {q: "une"}]}', "isbn != null && (title ~ 'solar' || title ~ 'une' || isbn ~ 'solar' || isbn ~ 'une')"],
        ['{not: {isbn: {gt: "978-05"}}}', "!(isbn > '978-05')"]
      ])('%s answers as REST\'s filter=%s', async (filter, expression) => {
        const expected = await rest(expression)
        expect(expected.length).toBeGreaterThan(0)
        expect(await titles(filter)).toEqual(expected)
      })

      it('refuses what REST refuses, under the path of the input', async () => {
        const bad = await gql(server.origin, '{ books(filter: {or: [{year: {gt: 1}}, {available: {gt: true}}]}) { nodes { title } } }')
        expect(bad.body.errors[0].message).toContain('Field "gt" is not defined by type "BooleanFilter"')
        const typed = await gql(server.origin, '{ books(filter: {or: [{year: {gt: 1}}, {title: {in: ["' + 'x'.repeat(201) + '"]}}]}) { nodes { title } } }')
        expect(typed.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ code: 'FIELD_TOO_LONG', field: 'filter.or.1.title.in.0' }] })
        const deep = await gql(server.origin, `{ books(filter: ${'{not: '.repeat(17)}{year: {gt: 1}}${'}'.repeat(17)}) { nodes { title } } }`)
        expect(deep.body.errors[0].extensions).toMatchObject({ code: 'INVALID_QUERY' })
      })

      it('a subscription with a filter gets only changes of records matching before or after them', async () => {
        const sub = await subscribe(server.origin, 'subscription { booksChanged(filter: {year: {gt: 2000}}) { kind id record { title year } } }')
        expect(sub.status).toBe(200)
        await new Promise((resolve) => setTimeout(resolve, 300))
        const post = async (title: string, year: number): Promise<number> => (await request(`${server.origin}/books`, { method: 'POST', json: { title, year, price: 1, available: true } })).body.id as number
        const old = await post('Old', 1990)
        const fresh = await post('Fresh', 2005)
        await request(`${server.origin}/books/${fresh}`, { method: 'PUT', json: { title: 'Fresh', year: 1995, price: 1, available: true } })
        await request(`${server.origin}/books/${old}`, { method: 'DELETE' })
        await request(`${server.origin}/books/${fresh}`, { method: 'DELETE' })
        await post('Late', 2020)
        const results = await sub.next(3)
        sub.close()
        expect(results.map((r) => [r.data.booksChanged.kind, r.data.booksChanged.record?.year ?? null])).toEqual([['CREATED', 2005], ['REPLACED', 1995], ['CREATED', 2020]])
      })
    })
  }
}
