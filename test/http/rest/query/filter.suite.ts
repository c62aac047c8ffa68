import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../../helpers/server.js'
import type { StoreKind } from '../../../stores/harness.js'
import type { Stores } from '../../../helpers/built-ins.js'
import { fromFile } from '../../../../src/services/collections/config.js'
import { DECLARATIONS, declarationFiles } from '../../../services/collections/fixture.js'

/**
 * Issue 31, item 4 over HTTP, on every store: `filter=` expressions, the
 * bracket operators `[in]`, `[nin]`, `[startsWith]`, `[null]`, combined with
 * the other parameters (bracket filters, `q`, sort, cursors, `count=true`,
 * NDJSON and CSV), and mistakes answered 400 with the position.
 */
const declarations = declarationFiles().write('books.json', DECLARATIONS)

const BOOKS = [
  { title: 'Dune', year: 1965, price: 10, available: true, isbn: '978-0441013593' },
  { title: 'Dune Messiah', year: 1969, price: 8, available: false },
  { title: 'Children of DUNE', year: 1976, price: 9, available: true, isbn: '978-0441104024' },
  { title: 'Nineteen Eighty-Four', year: 1949, price: 7, available: true },
  { title: 'Frankenstein', year: 1818, price: 5, available: true, isbn: '978-0486282114' },
  { title: 'Straße der Dünen', year: 2005, price: 12, available: true },
  { title: 'Dune: Part Two', year: 2024, price: 20, available: true },
  { title: 'The Years, the dune', year: 2010, price: 15, available: false, isbn: '978-1234567890' }
]

export function filterListSuite (kinds: StoreKind[]): void {
  for (const kind of kinds) suiteOn(kind)
}

function suiteOn (kind: StoreKind): void {
  describe.skipIf(kind.skip !== undefined)(`filter expressions over HTTP, ${kind.name} store${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
    let stores: Stores
    let server: RunningServer
    const ids: number[] = []
    const get = async (query: string, headers: Record<string, string> = {}): Promise<Awaited<ReturnType<typeof request>>> =>
      await request(`${server.origin}/books?${query}`, { headers })
    const titles = async (query: string): Promise<string[]> => {
      const res = await get(query)
      expect(res.status, `${query}: ${res.text}`).toBe(200)
      return (res.body.items as Array<{ title: string }>).map((b) => b.title)
    }
    const f = (expression: string): string => `filter=${encodeURIComponent(expression)}`

    beforeAll(async () => {
      await kind.setup()
      const collections = fromFile(declarations, '--collections')
      stores = await kind.fresh({ collections: collections.declared.map((c) => c.declaration) })
      server = await startServer({ collections }, { stores })
      for (const book of BOOKS) {
        const res = await request(`${server.origin}/books`, { method: 'POST', json: book })
        expect(res.status).toBe(201)
        ids.push(res.body.id as number)
      }
      await stores.students.create({ firstName: 'Ada', lastName: 'Lovelace', age: 36 })
      await stores.students.create({ firstName: 'Alan', lastName: 'Turing', age: 41 })
    })
    afterAll(async () => {
      await server?.close()
      await stores?.close()
      await kind.teardown()
    })

    it('answers the issue\'s expression: parentheses, ||, && and ~ folded like q', async () => {
      expect(await titles(f("(year < 1900 || year >= 2000) && available = true && title ~ 'dune'"))).toEqual(['Dune: Part Two'])
      expect(await titles(f("(year < 1900 || year >= 2000) && available = true && title ~ 'DÜNE'"))).toEqual(['Straße der Dünen'])
      expect(await titles(f("title ~ 'DÜNE' || title ~ \"fRANKEN\""))).toEqual(['Frankenstein', 'Straße der Dünen'])
      expect(await titles(f("!(title ~ 'dune') && year > 1900"))).toEqual(['Nineteen Eighty-Four', 'Straße der Dünen'])
      expect(await titles(f("title !~ 'dune' && price <= 7.5"))).toEqual(['Nineteen Eighty-Four', 'Frankenstein'])
      expect(await titles(f('available != true'))).toEqual(['Dune Messiah', 'The Years, the dune'])
    })

    it('null: = null holds for an unset field, != null for a set one; comparisons with an unset field are false', async () => {
      expect(await titles(f('isbn = null && year < 1970'))).toEqual(['Dune Messiah', 'Nineteen Eighty-Four'])
      expect(await titles(f('isbn != null'))).toEqual(['Dune', 'Children of DUNE', 'Frankenstein', 'The Years, the dune'])
      expect(await titles(f("isbn < '999' && isbn > '978-1'"))).toEqual(['The Years, the dune'])
      // Negation holds where the comparison was false, an unset isbn included.
      expect((await titles(f("!(isbn > '0')"))).length).toBe(4)
      expect(await titles('isbn[null]=true&year[gt]=2000')).toEqual(['Straße der Dünen', 'Dune: Part Two'])
      expect((await titles('isbn[null]=false')).length).toBe(4)
    })

    it('[in], [nin] and [startsWith] (folded, as [contains])', async () => {
      expect(await titles('year[in]=1965,1949,3000')).toEqual(['Dune', 'Nineteen Eighty-Four'])
      expect(await titles('year[nin]=1965,1949,1969,1976,1818&price[lt]=16')).toEqual(['Straße der Dünen', 'The Years, the dune'])
      expect(await titles('title[in]=The%20Years\\,%20the%20dune,Dune')).toEqual(['Dune', 'The Years, the dune'])
      expect(await titles('title[startsWith]=dUNE')).toEqual(['Dune', 'Dune Messiah', 'Dune: Part Two'])
      expect(await titles('title[startsWith]=STRASSE')).toEqual(['Straße der Dünen'])
      expect(await titles('isbn[nin]=978-0441013593')).toEqual(['Children of DUNE', 'Frankenstein', 'The Years, the dune'])
      expect(await titles('available[in]=false')).toEqual(['Dune Messiah', 'The Years, the dune'])
    })

    it('combines with bracket filters, q, sort, cursors and count=true', async () => {
      const first = await get(`${f('year >= 1900 || isbn != null')}&price[gte]=8&q=dune&sort=-year&limit=2&count=true`)
      expect(first.status).toBe(200)
      expect(first.headers.get('x-total-count')).toBe('5')
      expect(first.body.items.map((b: { year: number }) => b.year)).toEqual([2024, 2010])
      const second = await request(`${server.origin}${first.body.next as string}`)
      expect(second.body.items.map((b: { year: number }) => b.year)).toEqual([1976, 1969])
      const third = await request(`${server.origin}${second.body.next as string}`)
      expect(third.body.items.map((b: { year: number }) => b.year)).toEqual([1965])
      expect(third.body.next).toBeUndefined()
    })

    it('sorts by an optional field, records without it first ascending and last descending, and pages across them', async () => {
      const walk = async (query: string): Promise<string[]> => {
        const out: string[] = []
        let res = await get(`${query}&limit=3`)
        for (;;) {
          expect(res.status, res.text).toBe(200)
          out.push(...(res.body.items as Array<{ title: string }>).map((b) => b.title))
          if (res.body.next === undefined) return out
          res = await request(`${server.origin}${res.body.next as string}`)
        }
      }
      const unset = ['Dune Messiah', 'Nineteen Eighty-Four', 'Straße der Dünen', 'Dune: Part Two']
      const set = ['Dune', 'Children of DUNE', 'Frankenstein', 'The Years, the dune']
      expect(await walk('sort=isbn')).toEqual([...unset, ...set])
      expect(await walk('sort=-isbn')).toEqual([...set].reverse().concat([...unset].reverse()))
      expect(await walk(`sort=isbn,-year&${f('year > 1900')}`)).toEqual(['Dune: Part Two', 'Straße der Dünen', 'Dune Messiah', 'Nineteen Eighty-Four', 'Dune', 'Children of DUNE', 'The Years, the dune'])
      // A cursor of a page that ended on a record without the field carries null for it.
      const first = await get('sort=isbn&limit=2')
      const cursor = new URLSearchParams((first.body.next as string).split('?')[1]).get('cursor') as string
      expect(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))).toEqual(['isbn', null, ids[3]])
    })

    it('filters NDJSON and CSV streams the same way', async () => {
      const query = `${f('year < 1950 || title ~ "messiah"')}&sort=year`
      const ndjson = await get(query, { accept: 'application/x-ndjson' })
      expect(ndjson.status).toBe(200)
      expect(ndjson.text.split('\n').slice(0, -1).map((l) => JSON.parse(l).title)).toEqual(['Frankenstein', 'Nineteen Eighty-Four', 'Dune Messiah'])
      const csv = await get(`${query}&year[ne]=1818`, { accept: 'text/csv' })
      expect(csv.status).toBe(200)
      expect(csv.text.split('\r\n').slice(1, -1).map((l) => l.split(',')[1])).toEqual(['Nineteen Eighty-Four', 'Dune Messiah'])
    })

    it('works on the built-in collections', async () => {
      const res = await request(`${server.origin}/v2/students?${f("age > 40 || lastName ~ 'LOVE'")}`)
      expect(res.status).toBe(200)
      expect((res.body as Array<{ lastName: string }>).map((s) => s.lastName)).toEqual(['Lovelace', 'Turing'])
      const addresses = await request(`${server.origin}/addresses?${f("city = 'Kiel' && id > 5")}`)
      expect(addresses.status).toBe(200)
      expect(addresses.body.items).toEqual([])
    })

    it.each([
      ['year >= ', "filter: expected a value after '>=' at 9"],
      ['(year < 1900 || year >= ) && available = true', "filter: expected a value after '>=' at 25"],
      ['year > 1900 &&', 'filter: expected a field name, found the end at 15'],
      ['(year > 1900', "filter: expected ')' or an operator such as && before the end at 13"],
      ['yeer > 1900', 'filter: unknown field "yeer"'],
      ['title ?= \'x\'', "filter: '?=' tests a list field, and title holds one value: write '=' at 7"],
      ['year > \'x\'', `filter: year must be an integer from ${-Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}, not 'x' at 8`],
      ['year > 1.5', 'filter: year must be integer, not 1.5 at 8'],
      ['year ~ \'1\'', "filter: '~' applies to text fields only, and year is integer at 6"],
      ['available > true', "filter: '>' does not apply to available"],
      ['title = \'unclosed', 'filter: unclosed string'],
      ['title < null', 'filter: null compares with = and != only'],
      ['year > 1900 year < 2000', "filter: expected && or || before 'year' at 13"],
      ['author.name = \'x\'', 'filter: "author.name" is no field of this collection'],
      ['constructor = 1', 'filter: unknown field "constructor"'],
      ['', 'filter: empty expression at 1']
    ])('refuses %j with 400 INVALID_QUERY naming the position', async (expression, detail) => {
      const res = await get(f(expression))
      expect(res.status, res.text).toBe(400)
      expect(res.body.type).toBe('/errors/INVALID_QUERY')
      expect(res.body.detail).toContain(detail)
    })

    it('refuses bracket operators a field has not, and bad lists, with 400', async () => {
      const cases: Array<[string, string]> = [
        ['year[startsWith]=19', 'unknown operator "startsWith"'],
        ['year[in]=1965,x', `"year[in]": year must be an integer from ${-Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}, not 'x'`],
        [`year[in]=${Array.from({ length: 101 }, (_, i) => i).join(',')}`, 'more than 100 values']
      ]
      for (const [query, detail] of cases) {
        const res = await get(query)
        expect(res.status, query).toBe(400)
        expect(res.body.detail, query).toContain(detail)
      }
      const res = await get('isbn[null]=maybe')
      expect(res.status).toBe(400)
      expect(res.body.type).toBe('/errors/VALIDATION_FAILED')
    })

    it('answers a German problem for a German client', async () => {
      const res = await get(f('year >= '), { 'accept-language': 'de' })
      expect(res.status).toBe(400)
      expect(res.headers.get('content-language')).toBe('de')
      expect(res.body.title).toBe('Ungültige Abfrage')
      expect(res.body.detail).toContain("filter: expected a value after '>=' at 9")
    })
  })
}
