import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Config } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { DECLARATIONS, declarationFiles } from '../collections/fixture.js'

/** `fields=` over HTTP: one record, JSON pages, NDJSON and CSV; projection.test.ts runs it on memory and SQLite, projection-pg.test.ts on PostgreSQL. */
const BOOKS = [
  { title: 'Dune', year: 1965, price: 9.5, available: true, isbn: '978-0441013593' },
  { title: 'Neuromancer', year: 1984, price: 8.1, available: false },
  { title: 'Foundation', year: 1951, price: 0.1, available: true }
]

export function projectionSuite (storeOf: () => Config['store'] | undefined): void {
  const files = declarationFiles()
  let server: RunningServer
  let ids: number[] = []
  beforeAll(async () => {
    const store = storeOf()
    server = await startServer({ collections: fromFile(files.write('books.json', DECLARATIONS), '--collections'), ...(store === undefined ? {} : { store }) })
    const created = await request(`${server.origin}/books`, { method: 'POST', json: BOOKS })
    expect(created.status, created.text).toBe(201)
    ids = created.body.map((b: { id: number }) => b.id)
  })
  afterAll(async () => { await (server as RunningServer | undefined)?.close() })
  const books = (): string => `${server.origin}/books`

  it('narrows one record to the fields asked, id first, in their order; the ETag stays the record\'s and a 304 still works', async () => {
    const whole = await request(`${books()}/${ids[0]}`)
    const res = await request(`${books()}/${ids[0]}?fields=year,title`)
    expect(res.status, res.text).toBe(200)
    expect(res.text).toBe(JSON.stringify({ id: ids[0], year: 1965, title: 'Dune' }))
    expect(res.headers.get('etag')).toBe(whole.headers.get('etag'))
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    const again = await request(`${books()}/${ids[0]}?fields=year`, { headers: { 'if-none-match': String(whole.headers.get('etag')) } })
    expect(again.status).toBe(304)
    // An optional field the record lacks is left out.
    expect((await request(`${books()}/${ids[1]}?fields=isbn`)).body).toEqual({ id: ids[1] })
  })

  it('narrows JSON pages and keeps fields in the next link', async () => {
    const page = await request(`${books()}?fields=title&sort=year&limit=2`)
    expect(page.status, page.text).toBe(200)
    expect(page.body.items).toEqual([{ id: ids[2], title: 'Foundation' }, { id: ids[0], title: 'Dune' }])
    expect(page.body.next).toContain('fields=title')
    const next = await request(new URL(page.body.next, server.origin).href)
    expect(next.body.items).toEqual([{ id: ids[1], title: 'Neuromancer' }])
    // Without fields the page is whole (the kept pages answer it as before).
    expect((await request(`${books()}?sort=year&limit=1`)).body.items[0]).toEqual({ id: ids[2], ...BOOKS[2] })
  })

  it('narrows NDJSON lines and CSV columns, in the order asked', async () => {
    const ndjson = await request(`${books()}?fields=price,title&sort=year`, { headers: { accept: 'application/x-ndjson' } })
    expect(ndjson.status, ndjson.text).toBe(200)
    expect(ndjson.text.trim().split('\n').map((l) => JSON.parse(l))).toEqual([
      { id: ids[2], price: 0.1, title: 'Foundation' }, { id: ids[0], price: 9.5, title: 'Dune' }, { id: ids[1], price: 8.1, title: 'Neuromancer' }
    ])
    const csv = await request(`${books()}?fields=year,title&sort=year`, { headers: { accept: 'text/csv' } })
    expect(csv.status, csv.text).toBe(200)
    expect(csv.text.replace(/\r/g, '').trim().split('\n')).toEqual(['id,year,title', `${ids[2]},1951,Foundation`, `${ids[0]},1965,Dune`, `${ids[1]},1984,Neuromancer`])
  })

  it('refuses an unknown field with did you mean, on lists and one record', async () => {
    for (const url of [`${books()}?fields=titel`, `${books()}/${ids[0]}?fields=title,yaer`]) {
      const res = await request(url)
      expect(res.status, res.text).toBe(400)
      expect(res.body.type).toMatch(/\/errors\/INVALID_QUERY$/)
      expect(res.body.errors[0].detail).toMatch(/did you mean (title|year)\?/)
    }
  })

  it('works on students v2 and the address book, and is in the API description', async () => {
    const student = await request(`${server.origin}/v2/students`, { method: 'POST', json: { firstName: 'Ada', lastName: 'Lovelace', age: 36 } })
    expect((await request(`${server.origin}/v2/students/${student.body.id}?fields=lastName`)).body).toEqual({ id: student.body.id, lastName: 'Lovelace' })
    const list = await request(`${server.origin}/v2/students?fields=age`)
    expect(list.status, list.text).toBe(200)
    expect(list.body).toEqual(expect.arrayContaining([{ id: student.body.id, age: 36 }]))
    const address = await request(`${server.origin}/addresses`, { method: 'POST', json: { name: 'Ada', city: 'Berlin', postalCode: '10115' } })
    expect((await request(`${server.origin}/addresses/${address.body.id}?fields=city`)).body).toEqual({ id: address.body.id, city: 'Berlin' })
    const doc = (await request(`${server.origin}/openapi.json`)).body
    for (const path of ['/books', '/books/{id}']) expect(doc.paths[path].get.parameters.map((p: { name: string }) => p.name)).toContain('fields')
  })
}

