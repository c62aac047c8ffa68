import { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../../helpers/server.js'
import { LOCAL_STORES, storeKinds } from '../../../stores/harness.js'
import type { Stores, StudentStore } from '../../../../src/domain/index.js'
import { csvColumns, csvObject, readCsv } from '../../../../src/data/csv.js'
import { parseExactJson } from '../../../../src/http/rest/index.js'
import { fromFile } from '../../../../src/services/collections/config.js'
import { collectionFrom } from '../../../../src/commands/common.js'
import type { RecordCollection } from '../../../../src/data/collection.js'
import { DECLARATIONS, declarationFiles } from '../../../services/collections/fixture.js'

/**
 * `Accept: text/csv` on every collection list (issue 22): a header row, the
 * same records as NDJSON with the same filters and sort, RFC 4180 quoting,
 * streamed like NDJSON.
 */
const CSV = { accept: 'text/csv' }
const NDJSON = { accept: 'application/x-ndjson' }
const declarations = declarationFiles().write('books.json', DECLARATIONS)

async function * once<R> (records: R[]): AsyncGenerator<R[]> { yield records }

/** A CSV answer read back as the objects of its NDJSON lines would be (cells typed by the collection's fields). */
async function csvRecords (text: string, collection: RecordCollection): Promise<unknown[]> {
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

for (const kind of storeKinds(LOCAL_STORES)) {
  describe(`CSV lists, ${kind.name} store`, () => {
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
      await request(`${server.origin}/books`, { method: 'POST', json: { title: '=1+2', year: 1, price: 0.25, available: false } })
      const books = await request(`${server.origin}/books`, { headers: CSV })
      expect(books.text).toBe('id,title,year,isbn,price,available,published\r\n1,=1+2,1,,0.25,false,\r\n')
      const notes = await request(`${server.origin}/notes`, { method: 'POST', json: { text: '' } })
      expect((await request(`${server.origin}/notes`, { headers: CSV })).text).toBe(`id,text\r\n${notes.body.id as string},""\r\n`)
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

describe('CSV streaming and negotiation (memory store)', () => {
  let stores: Stores
  let server: RunningServer
  const watch = { pulled: 0, closed: false }
  beforeEach(async () => {
    stores = await storeKinds(['memory'])[0]?.fresh() as Stores
    watch.pulled = 0
    watch.closed = false
    // The student store, counting the batches the server pulls and noticing when the walk is closed.
    const students = new Proxy(stores.students, {
      get: (target, property) => {
        if (property !== 'batches') return Reflect.get(target, property, target)
        return (q: Parameters<StudentStore['batches']>[0]) => (async function * () {
          try {
            for await (const batch of target.batches(q)) { watch.pulled++; yield batch }
          } finally { watch.closed = true }
        })()
      }
    })
    server = await startServer({}, { stores: { ...stores, students } })
  })
  afterEach(async () => {
    await server.close()
    await stores.close()
  })

  it('streams a big list batch by batch: the header and first rows come before the end, and a client that goes away stops the walk', async () => {
    const total = 100_000
    const name = 'x'.repeat(200)
    await stores.students.importAll(once(Array.from({ length: total }, (_, i) => ({ id: i, firstName: name, lastName: name, age: i % 100 }))))
    const controller = new AbortController()
    const res = await fetch(`${server.origin}/students?sort=age`, { headers: CSV, signal: controller.signal })
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present')
    const reader = (res.body as ReadableStream<Uint8Array>).getReader()
    const first = await reader.read()
    expect(first.done).toBe(false)
    expect(new TextDecoder().decode(first.value)).toMatch(/^id,firstName,lastName,age\r\n0,x+/)
    expect(watch.closed).toBe(false) // the store's walk is still under way
    controller.abort()
    for (let i = 0; i < 50 && !watch.closed; i++) await sleep(50)
    expect(watch.closed).toBe(true)
    expect(watch.pulled).toBeLessThan(total / 1000) // stopped well before the end
    expect((await request(`${server.origin}/students/1`)).body.body.age).toBe(1)
  })

  it('is CSV only when asked: the v1 list stays the envelope by default, q-values choose, items answer 406', async () => {
    await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'A', lastName: 'B', age: 1 } })
    expect((await request(`${server.origin}/students`)).body).toEqual({ isSuccessful: true, body: [{ id: 0, firstName: 'A', lastName: 'B', age: 1 }] })
    const plain = await request(`${server.origin}/students`, { headers: CSV })
    expect(plain.text).toBe('id,firstName,lastName,age\r\n0,A,B,1\r\n') // no query: every record, as a stream
    const preferred = await request(`${server.origin}/students`, { headers: { accept: 'text/csv, application/json;q=0.5' } })
    expect(preferred.headers.get('content-type')).toMatch(/^text\/csv/)
    const json = await request(`${server.origin}/students`, { headers: { accept: 'application/json, text/csv;q=0.5' } })
    expect(json.body.isSuccessful).toBe(true)
    const v2 = await request(`${server.origin}/students`, { headers: { accept: 'application/vnd.rqs.v2+json, text/csv;q=0.1' } })
    expect(v2.body).toEqual([{ id: 0, firstName: 'A', lastName: 'B', age: 1 }])
    const count = await request(`${server.origin}/v1/students?count=true`, { headers: CSV })
    expect(count.headers.get('x-total-count')).toBe('1')
    for (const path of ['/students/0', '/v2/students/0', '/addresses/1']) {
      const item = await request(`${server.origin}${path}`, { headers: CSV })
      expect(item.status, path).toBe(406)
      expect(item.body.detail ?? item.body.body, path).not.toMatch(/csv/)
    }
    const refused = await request(`${server.origin}/v2/students`, { headers: { accept: 'application/xml' } })
    expect(refused.status).toBe(406)
    expect(refused.body.detail).toMatch(/available as: .*application\/x-ndjson, text\/csv$/)
  })
})
