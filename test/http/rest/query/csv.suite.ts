import { Readable } from 'node:stream'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../../helpers/server.js'
import type { StoreKind } from '../../../stores/harness.js'
import { csvColumns, csvObject, readCsv } from '../../../../src/data/csv.js'
import { parseExactJson } from '../../../../src/http/rest/index.js'
import { fromFile } from '../../../../src/services/collections/config.js'
import { collectionFrom } from '../../../../src/commands/common.js'
import type { ServedCollection } from '../../../../src/data/collection.js'
import { DECLARATIONS, declarationFiles } from '../../../services/collections/fixture.js'
import type { Stores } from '../../../helpers/built-ins.js'

/**
 * `Accept: text/csv` on every collection list (issue 22): a header row, the
 * same records as NDJSON with the same filters and sort, RFC 4180 quoting,
 * streamed like NDJSON.
 */
export const CSV = { accept: 'text/csv' }
const NDJSON = { accept: 'application/x-ndjson' }
const declarations = declarationFiles().write('books.json', DECLARATIONS)

export async function * once<R> (records: R[]): AsyncGenerator<R[]> { yield records }

/** A CSV answer read back as the objects of its NDJSON lines would be (cells typed by the collection's fields). */
async function csvRecords (text: string, collection: ServedCollection): Promise<unknown[]> {
  const out: unknown[] = []
  let columns
  for await (const record of readCsv(Readable.from([text]), 1 << 20)) {
    if (!('cells' in record)) throw new Error(`record ${record.number} is no proper CSV`)
    if (columns === undefined) { columns = csvColumns(collection, record.cells); continue }
    const object = csvObject(columns, record.cells)
    if ('reason' in object) throw new Error(object.reason)
    out.push(object.value)
  }
  return out
}

const ndjsonRecords = (text: string): unknown[] => text.split('\n').slice(0, -1).map((line) => parseExactJson(line))

/** Registers the suite for each kind: csv.slow.test.ts (memory, SQLite) and csv-pg.test.ts (PostgreSQL) call it. */
export function csvListSuite (kinds: StoreKind[]): void {
  for (const kind of kinds) suiteOn(kind)
}

function suiteOn (kind: StoreKind): void {

  describe.skipIf(kind.skip !== undefined)(`CSV lists, ${kind.name} store${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
    let stores: Stores
    let server: RunningServer
    beforeAll(kind.setup)
    afterAll(kind.teardown)
    beforeEach(async () => {
      const collections = fromFile(declarations, '--collections')
      stores = await kind.fresh({ collections: collections.declared.map((c) => c.declaration) })
      server = await startServer({ collections }, { stores })
    })
    afterEach(async () => {
      await server.close()
      await stores.close()
    })

    it('answers every collection kind with the records NDJSON has, for the same filters, sort and limit', async () => {
      await stores.students.importAll(once(Array.from({ length: 1500 }, (_, i) => ({ id: i, firstName: `F${i % 7}`, lastName: `L, "${(i * 7919) % 1500}"`, age: i % 60 }))))
      await stores.addresses.importAll(once(Array.from({ length: 300 }, (_, i) => ({ id: BigInt(i) * 30000000000000000n + 1n, name: `N\n${i}`, city: i % 3 === 0 ? 'Kiel' : 'Köln', postalCode: String(i).padStart(5, '0') }))))
      for (let i = 0; i < 40; i++) {
        const book = { title: `T${i}`, year: 1900 + i, price: i / 4, available: i % 2 === 0, ...(i % 3 === 0 ? { isbn: `978-${i}-0000000` } : {}) }
        expect((await request(`${server.origin}/books`, { method: 'POST', json: book })).status).toBe(201)
      }
      const cases: Array<[string, string, number]> = [
        ['students', '/students?age[gte]=18&sort=-lastName&count=true', 1050],
        ['students', '/v2/students?firstName=F3&sort=age,-id&limit=100', 100],
        ['addresses', '/addresses?city=K%C3%B6ln&sort=-postalCode&count=true', 200],
        ['books', '/books?year[lt]=1930&sort=-year&count=true', 30]
      ]
      for (const [name, path, length] of cases) {
        const csv = await request(`${server.origin}${path}`, { headers: CSV })
        expect(csv.status, path).toBe(200)
        expect(csv.headers.get('content-type'), path).toBe('text/csv; charset=utf-8; header=present')
        expect(csv.headers.get('vary'), path).toMatch(/Accept/)
        const ndjson = await request(`${server.origin}${path}`, { headers: NDJSON })
        expect(csv.headers.get('x-total-count'), path).toBe(ndjson.headers.get('x-total-count'))
        const records = ndjsonRecords(ndjson.text)
        expect(records, path).toHaveLength(length)
        const collection = collectionFrom(name, declarations, {})
        expect(await csvRecords(csv.text, collection), path).toEqual(records)
        expect(csv.text.split('\r\n')[0], path).toBe(collection.fields.join(','))
      }
    })

    it('quotes commas, quotes and line breaks, keeps non-ASCII text, writes "" for an empty text and nothing for an absent field', async () => {
      await stores.students.importAll(once([
        { id: 1, firstName: 'Ada, Countess', lastName: 'say "hi"', age: 36 },
        { id: 2, firstName: 'two\nlines', lastName: 'Zoë Ünïcødé 🎉', age: 0 }
      ]))
      const students = await request(`${server.origin}/students?sort=id`, { headers: CSV })
      expect(students.text).toBe('id,firstName,lastName,age\r\n1,"Ada, Countess","say ""hi""",36\r\n2,"two\nlines",Zoë Ünïcødé 🎉,0\r\n')
      // Filtered to what this test made: the PostgreSQL harness keeps declared collections' rows between tests.
      const book = await request(`${server.origin}/books`, { method: 'POST', json: { title: '=1+2', year: 1, price: 0.25, available: false } })
      const books = await request(`${server.origin}/books?title=${encodeURIComponent('=1+2')}`, { headers: CSV })
      expect(books.text).toBe(`id,title,year,isbn,price,available,published\r\n${book.body.id as number},=1+2,1,,0.25,false,\r\n`)
      const note = await request(`${server.origin}/notes`, { method: 'POST', json: { text: '' } })
      expect((await request(`${server.origin}/notes?id=${note.body.id as string}`, { headers: CSV })).text).toBe(`id,text\r\n${note.body.id as string},""\r\n`)
    })

    it('answers a header row when nothing matches, and JSON errors before the stream starts', async () => {
      const empty = await request(`${server.origin}/addresses?city=Nowhere`, { headers: CSV })
      expect(empty.status).toBe(200)
      expect(empty.text).toBe('id,name,city,postalCode\r\n')
      const bad = await request(`${server.origin}/students?nonsense=1`, { headers: CSV })
      expect(bad.status).toBe(400)
      expect(bad.headers.get('content-type')).toMatch(/^application\/json/)
      expect(bad.body.isSuccessful).toBe(false)
      const v2 = await request(`${server.origin}/v2/students?nonsense=1`, { headers: CSV })
      expect(v2.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    })
  })
}
