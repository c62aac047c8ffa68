import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Config } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { connectFeed } from '../../helpers/sse.js'
import { DECLARATIONS, declarationFiles } from '../collections/fixture.js'

/**
 * POST /batch over HTTP against a real listening server, alike on every
 * store (batch.test.ts: memory and SQLite; batch-pg.test.ts: PostgreSQL):
 * requests of several collections in one transaction, all applied or none.
 */
const files = declarationFiles()
const DUNE = { title: 'Dune', year: 1965, price: 9.5, available: true }
const KINDRED = { title: 'Kindred', year: 1979, price: 8, available: true }
/** The fixture's collections and one with automatic timestamps (x-auto), for PATCH's stamps. */
const WITH_STAMPS = {
  collections: {
    ...DECLARATIONS.collections,
    memos: {
      schema: {
        type: 'object',
        properties: {
          text: { type: 'string' },
          note: { type: 'string' },
          createdAt: { type: 'string', format: 'date-time', 'x-auto': 'created' },
          updatedAt: { type: 'string', format: 'date-time', 'x-auto': 'updated' }
        },
        required: ['text']
      },
      ids: 'sequence'
    }
  }
}

type Json = Record<string, any>

export function batchSuite (storeOf: () => Config['store'] | undefined): void {
  let server: RunningServer
  let base: string
  const batch = async (requests: unknown[], headers: Record<string, string> = {}): Promise<Awaited<ReturnType<typeof request>>> =>
    await request(`${base}/batch`, { method: 'POST', headers, json: { requests } })
  const count = async (path: string): Promise<number> => Number((await request(`${base}${path}?count=true&limit=1`)).headers.get('x-total-count'))

  beforeAll(async () => {
    const store = storeOf()
    server = await startServer({ collections: fromFile(files.write('books.json', WITH_STAMPS), '--collections'), ...(store === undefined ? {} : { store }) })
    base = server.origin
  })
  afterAll(async () => { await (server as RunningServer | undefined)?.close() })

  it('applies every request in order, across collections, and answers each as its route would', async () => {
    const res = await batch([
      { method: 'POST', url: '/books', body: DUNE },
      { method: 'POST', url: '/addresses', body: { name: 'Ada', city: 'London', postalCode: 'W1' } },
      { method: 'POST', url: '/v2/students', body: { firstName: 'Ada', lastName: 'Lovelace', age: 36 } },
      { method: 'PUT', url: '/books/1', body: { ...DUNE, price: 11 } },
      { method: 'GET', url: '/books/1' },
      { method: 'POST', url: '/notes', body: { text: 'hello' } }
    ])
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    const [book, address, student, put, read, note] = res.body.responses as Json[]
    expect(book).toMatchObject({ status: 201, headers: { location: '/books/1' }, body: { id: 1, ...DUNE } })
    expect(address?.status).toBe(201)
    expect(address?.headers.location).toBe(`/addresses/${String(address?.body.id)}`)
    expect(student).toMatchObject({ status: 201, body: { firstName: 'Ada', lastName: 'Lovelace', age: 36 } })
    expect(student?.headers.location).toBe(`/v2/students/${String(student?.body.id)}`)
    expect(put).toMatchObject({ status: 200, body: { id: 1, ...DUNE, price: 11 } })
    expect(read).toMatchObject({ status: 200, body: { id: 1, price: 11 } })
    expect(read?.headers.etag).toBe(put?.headers.etag)
    expect(note?.status).toBe(201)
    // The ETags are those REST sends.
    const rest = await request(`${base}/books/1`)
    expect(rest.body).toEqual({ id: 1, ...DUNE, price: 11 })
    expect(rest.headers.get('etag')).toBe(read?.headers.etag)
    expect((await request(`${base}/addresses/${String(address?.body.id)}`)).headers.get('etag')).toBe(address?.headers.etag)
    // DELETE by id, then the collection is as before the note.
    const deleted = await batch([{ method: 'DELETE', url: `/notes/${String(note?.body.id)}` }])
    expect(deleted.body).toEqual({ responses: [{ status: 204, headers: {} }] })
    expect((await request(`${base}/notes/${String(note?.body.id)}`)).status).toBe(404)
  })

  it('applies nothing when the third request fails, and names it with its own problem', async () => {
    const books = await count('/books')
    const addresses = await count('/addresses')
    const res = await batch([
      { method: 'POST', url: '/books', body: KINDRED },
      { method: 'POST', url: '/addresses', body: { name: 'Grace', city: 'Arlington', postalCode: '22201' } },
      { method: 'DELETE', url: '/books/999' },
      { method: 'POST', url: '/books', body: KINDRED }
    ])
    expect(res.status).toBe(422)
    expect(res.headers.get('content-type')).toContain('application/problem+json')
    expect(res.body).toMatchObject({ status: 422, index: 2, failed: { status: 404, instance: '/books/999', errors: [{ error: 'RECORD_NOT_FOUND' }] } })
    expect(res.body.type).toMatch(/BATCH_FAILED$/)
    expect(res.body.detail).toContain('Request 2 (DELETE /books/999)')
    expect(await count('/books')).toBe(books)
    expect(await count('/addresses')).toBe(addresses)
    // The next create takes the id the rolled-back one would have had, or one after: never a hole that holds a record.
    const after = await request(`${base}/books`, { method: 'POST', json: KINDRED })
    expect(after.status).toBe(201)
    expect(await count('/books')).toBe(books + 1)
    await request(`${base}/books/${String(after.body.id)}`, { method: 'DELETE' })
  })

  it('honours If-Match: a stale ETag fails the batch with 412 inside, a current one applies', async () => {
    const created = await request(`${base}/books`, { method: 'POST', json: KINDRED })
    const url = `/books/${String(created.body.id)}`
    const etag = created.headers.get('etag') as string
    const stale = await batch([
      { method: 'PUT', url, headers: { 'If-Match': etag }, body: { ...KINDRED, price: 1 } },
      { method: 'PUT', url, headers: { 'If-Match': etag }, body: { ...KINDRED, price: 2 } }
    ])
    expect(stale.status).toBe(422)
    expect(stale.body).toMatchObject({ index: 1, failed: { status: 412, errors: [{ error: 'PRECONDITION_FAILED' }] } })
    expect((await request(`${base}${url}`)).body.price).toBe(8)
    const fresh = await batch([{ method: 'PUT', url, headers: { 'if-match': etag }, body: { ...KINDRED, price: 3 } }, { method: 'DELETE', url, headers: { 'If-None-Match': '*' } }])
    expect(fresh.status).toBe(422)
    expect(fresh.body.failed.status).toBe(412)
    const applied = await batch([{ method: 'PUT', url, headers: { 'if-match': etag }, body: { ...KINDRED, price: 3 } }])
    expect(applied.status).toBe(200)
    expect(applied.body.responses[0].body.price).toBe(3)
    const read = await batch([{ method: 'GET', url, headers: { 'If-None-Match': applied.body.responses[0].headers.etag } }])
    expect(read.body).toEqual({ responses: [{ status: 304, headers: { etag: applied.body.responses[0].headers.etag } }] })
  })

  it('refuses an invalid body naming the request and the field, in English and German, and applies nothing', async () => {
    const books = await count('/books')
    const en = await batch([{ method: 'POST', url: '/books', body: KINDRED }, { method: 'POST', url: '/books', body: { title: '', year: 'old', price: 1, available: true } }])
    expect(en.status).toBe(422)
    expect(en.body.index).toBe(1)
    expect(en.body.failed.status).toBe(400)
    expect(en.body.failed.errors.map((e: Json) => e.error)).toEqual(expect.arrayContaining(['FIELD_TOO_SHORT', 'FIELD_TYPE']))
    const de = await batch([{ method: 'POST', url: '/books', body: { year: 1, price: 1, available: true } }], { 'accept-language': 'de' })
    expect(de.status).toBe(422)
    expect(de.headers.get('content-language')).toBe('de')
    expect(de.body.title).toBe('Stapel fehlgeschlagen')
    expect(de.body.failed.errors[0].message).toBe('title ist erforderlich.')
    const mismatch = await batch([{ method: 'PUT', url: '/books/1', body: { ...DUNE, id: 2 } }])
    expect(mismatch.body.failed.errors[0].error).toBe('ID_MISMATCH')
    const badId = await batch([{ method: 'GET', url: '/books/abc' }])
    expect(badId.body.failed.errors[0].error).toBe('INVALID_ID')
    expect(await count('/books')).toBe(books)
  })

  it('follows each collection\'s PUT: the address book creates at an id and keeps the stored name, students never create', async () => {
    const url = '/addresses/9007199254740000'
    const res = await batch([
      { method: 'PUT', url, body: { name: 'Max', city: 'Kiel', postalCode: '24103' } },
      { method: 'PUT', url, body: { city: 'Bonn', postalCode: '53111' } },
      { method: 'GET', url }
    ])
    expect(res.status).toBe(200)
    const [created, updated, read] = res.body.responses as Json[]
    expect(created).toMatchObject({ status: 201, headers: { location: url }, body: { id: 9007199254740000, name: 'Max', city: 'Kiel' } })
    expect(updated).toMatchObject({ status: 200, body: { id: 9007199254740000, name: 'Max', city: 'Bonn', postalCode: '53111' } })
    expect(read?.body).toEqual(updated?.body)
    const nameless = await batch([{ method: 'PUT', url: '/addresses/9007199254740001', body: { city: 'Bonn', postalCode: '53111' } }])
    expect(nameless.status).toBe(422)
    expect(nameless.body.failed.errors[0]).toMatchObject({ error: 'FIELD_REQUIRED' })
    const student = await batch([{ method: 'PUT', url: '/v2/students/999', body: { firstName: 'Ada', lastName: 'Lovelace', age: 36 } }])
    expect(student.status).toBe(422)
    expect(student.body.failed).toMatchObject({ status: 404, errors: [{ error: 'STUDENT_NOT_FOUND' }] })
    await request(`${base}${url}`, { method: 'DELETE' })
  })

  it('PATCHes as REST does: members sent change, null removes an optional field, the rest is kept', async () => {
    const created = await request(`${base}/books`, { method: 'POST', json: { ...KINDRED, isbn: '978-0-8070-8369-9' } })
    const url = `/books/${String(created.body.id)}`
    const res = await batch([
      { method: 'PATCH', url, body: { price: 12.5, isbn: null } },
      { method: 'PATCH', url, body: { id: created.body.id, available: false } },
      { method: 'GET', url }
    ])
    expect(res.status).toBe(200)
    const [first, second, read] = res.body.responses as Json[]
    expect(first).toMatchObject({ status: 200, body: { id: created.body.id, ...KINDRED, price: 12.5 } })
    expect(first?.body).not.toHaveProperty('isbn')
    expect(second).toMatchObject({ status: 200, body: { ...KINDRED, price: 12.5, available: false } })
    expect(read?.body).toEqual(second?.body)
    // The same record and ETag REST answers.
    const rest = await request(`${base}${url}`)
    expect(rest.body).toEqual(second?.body)
    expect(rest.headers.get('etag')).toBe(second?.headers.etag)
    // The address book keeps its name: a patch that leaves it out keeps it, one that changes it is refused.
    const address = await request(`${base}/addresses`, { method: 'POST', json: { name: 'Lise', city: 'Wien', postalCode: '1010' } })
    const at = `/addresses/${String(address.body.id)}`
    const moved = await batch([{ method: 'PATCH', url: at, body: { city: 'Graz' } }])
    expect(moved.body.responses[0]).toMatchObject({ status: 200, body: { name: 'Lise', city: 'Graz', postalCode: '1010' } })
    const renamed = await batch([{ method: 'PATCH', url: at, body: { name: 'Otto' } }])
    expect(renamed.status).toBe(422)
    expect(renamed.body.failed.errors[0]).toMatchObject({ error: 'FIELD_INVALID', detail: 'body.name cannot change: an update keeps the stored value' })
    const student = await request(`${base}/v2/students`, { method: 'POST', json: { firstName: 'Ada', lastName: 'Lovelace', age: 36 } })
    const older = await batch([{ method: 'PATCH', url: `/v2/students/${String(student.body.id)}`, body: { age: 37 } }])
    expect(older.body.responses[0]).toMatchObject({ status: 200, body: { firstName: 'Ada', lastName: 'Lovelace', age: 37 } })
    await request(`${base}${url}`, { method: 'DELETE' })
    await request(`${base}${at}`, { method: 'DELETE' })
  })

  it('refuses a PATCH as REST does and applies nothing: required null, bad value, unknown member, id, 404, 412', async () => {
    const created = await request(`${base}/books`, { method: 'POST', json: KINDRED })
    const url = `/books/${String(created.body.id)}`
    const etag = created.headers.get('etag') as string
    const books = await count('/books')
    const failing = async (requests: unknown[], index: number, status: number, error: string): Promise<Json> => {
      const res = await batch(requests)
      expect(res.status).toBe(422)
      expect(res.body).toMatchObject({ index, failed: { status } })
      expect(res.body.failed.errors[0].error).toBe(error)
      return res.body
    }
    const patchThenFail = (body: unknown): unknown[] => [{ method: 'POST', url: '/books', body: DUNE }, { method: 'PATCH', url, body: { price: 1 } }, { method: 'PATCH', url, body }]
    expect((await failing(patchThenFail({ title: null }), 2, 400, 'FIELD_REQUIRED')).failed.errors[0].detail).toContain('title')
    await failing(patchThenFail({ year: 'old' }), 2, 400, 'FIELD_TYPE')
    expect((await failing(patchThenFail({ yeer: 1990 }), 2, 400, 'FIELD_UNKNOWN')).failed.detail).toContain('did you mean year?')
    await failing(patchThenFail({ id: 12345 }), 2, 400, 'ID_MISMATCH')
    await failing(patchThenFail([1]), 2, 400, 'JSON_EXPECTED')
    await failing([{ method: 'PATCH', url, body: { price: 1 } }, { method: 'PATCH', url: '/books/99999', body: { price: 1 } }], 1, 404, 'RECORD_NOT_FOUND')
    // If-Match is checked against the record as the batch sees it: after its own PATCH, the old ETag is stale.
    await failing([{ method: 'PATCH', url, headers: { 'If-Match': etag }, body: { price: 2 } }, { method: 'PATCH', url, headers: { 'If-Match': etag }, body: { price: 3 } }], 1, 412, 'PRECONDITION_FAILED')
    expect(await count('/books')).toBe(books)
    const unchanged = await request(`${base}${url}`)
    expect(unchanged.body).toEqual({ id: created.body.id, ...KINDRED })
    expect(unchanged.headers.get('etag')).toBe(etag)
    const applied = await batch([{ method: 'PATCH', url, headers: { 'If-Match': etag }, body: { price: 2 } }])
    expect(applied.body.responses[0]).toMatchObject({ status: 200, body: { price: 2 } })
    expect(applied.body.responses[0].headers.etag).not.toBe(etag)
    await request(`${base}${url}`, { method: 'DELETE' })
  })

  it('stamps automatic timestamps on a PATCH as REST does: updated is this write\'s, created is kept, neither may be sent', async () => {
    const created = await request(`${base}/memos`, { method: 'POST', json: { text: 'first' } })
    expect(created.status).toBe(201)
    const url = `/memos/${String(created.body.id)}`
    await new Promise((resolve) => setTimeout(resolve, 5))
    const res = await batch([{ method: 'PATCH', url, body: { note: 'later' } }])
    expect(res.status).toBe(200)
    const patched = res.body.responses[0].body as Json
    expect(patched).toMatchObject({ text: 'first', note: 'later', createdAt: created.body.createdAt })
    expect(Date.parse(patched.updatedAt)).toBeGreaterThan(Date.parse(created.body.updatedAt))
    const sent = await batch([{ method: 'PATCH', url, body: { updatedAt: '2000-01-01T00:00:00.000Z' } }])
    expect(sent.status).toBe(422)
    expect(sent.body.failed.errors[0]).toMatchObject({ error: 'FIELD_READ_ONLY', detail: 'body.updatedAt is set by the server: leave it out' })
    expect((await request(`${base}${url}`)).body).toEqual(patched)
  })

  it('refuses bad shapes with 400', async () => {
    const post = async (body: unknown): Promise<Json> => await request(`${base}/batch`, { method: 'POST', json: body })
    expect((await post({})).status).toBe(400)
    expect((await post({ requests: [] })).status).toBe(400)
    expect((await post({ requests: [{ method: 'PATCHY', url: '/books' }] })).status).toBe(400)
    expect((await post({ requests: [{ method: 'GET' }] })).status).toBe(400)
    expect((await post([{ method: 'GET', url: '/books/1' }])).status).toBe(400)
    expect((await request(`${base}/batch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"requests": [' })).status).toBe(400)
    const invalid = async (requests: unknown[], field: string): Promise<void> => {
      const res = await batch(requests)
      expect(res.status).toBe(400)
      expect(res.body.errors[0]).toMatchObject({ error: 'BATCH_REQUEST_INVALID' })
      expect(res.body.detail).toContain(field)
    }
    await invalid([{ method: 'GET', url: '/nowhere/1' }], 'requests/0')
    await invalid([{ method: 'GET', url: '/books/1?fields=title' }], 'query strings')
    await invalid([{ method: 'POST', url: '/books/1', body: DUNE }], 'collection\'s URL')
    await invalid([{ method: 'DELETE', url: '/books' }], 'one record\'s URL')
    await invalid([{ method: 'GET', url: '/v1/students/0' }], '/v2/students')
    await invalid([{ method: 'GET', url: '/students/0' }], '/v2/students')
    await invalid([{ method: 'GET', url: '/books/1', body: {} }], 'takes no body')
    await invalid([{ method: 'GET', url: '/books/1', headers: { Authorization: 'x' } }], 'If-Match')
    expect((await request(`${base}/batch`)).status).toBe(405)
  })

  it('limits a batch to 100 requests', async () => {
    const requests = Array.from({ length: 101 }, () => ({ method: 'GET', url: '/books/1' }))
    const res = await batch(requests)
    expect(res.status).toBe(400)
    expect(res.body.detail).toBe('body.requests must NOT have more than 100 items')
    expect((await batch(requests.slice(1))).status).toBe(200)
  })

  it('runs once with an Idempotency-Key: a retry gets the kept answer, another batch with the key is 422', async () => {
    const books = await count('/books')
    const requests = [{ method: 'POST', url: '/books', body: KINDRED }, { method: 'POST', url: '/books', body: DUNE }]
    const first = await batch(requests, { 'idempotency-key': 'batch-key-1' })
    expect(first.status).toBe(200)
    const again = await batch(requests, { 'idempotency-key': 'batch-key-1' })
    expect(again.status).toBe(200)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.text).toBe(first.text)
    expect(await count('/books')).toBe(books + 2)
    const other = await batch([{ method: 'POST', url: '/books', body: DUNE }], { 'idempotency-key': 'batch-key-1' })
    expect(other.status).toBe(422)
    expect(other.body.errors[0].error).toBe('IDEMPOTENCY_KEY_REUSED')
    // A failed batch keeps nothing: the key is free for a batch that succeeds.
    const failed = await batch([{ method: 'DELETE', url: '/books/999' }], { 'idempotency-key': 'batch-key-2' })
    expect(failed.status).toBe(422)
    const retried = await batch([{ method: 'POST', url: '/books', body: DUNE }], { 'idempotency-key': 'batch-key-2' })
    expect(retried.status).toBe(200)
    expect(retried.headers.get('idempotent-replayed')).toBeNull()
  })

  it('sends changes to the feed only when the batch commits', async () => {
    const feed = await connectFeed(`${base}/events?services=books`)
    try {
      await feed.waitForEvent('ready')
      const failed = await batch([{ method: 'POST', url: '/books', body: { ...KINDRED, title: 'Rolled back' } }, { method: 'DELETE', url: '/books/999' }])
      expect(failed.status).toBe(422)
      const applied = await batch([{ method: 'POST', url: '/books', body: { ...KINDRED, title: 'Committed' } }])
      const titles = (): string[] => feed.events.filter((e) => e.event === 'books.created').map((e) => JSON.parse(e.data).record.title as string)
      // (Changes of earlier tests may still be on their way to a feed that has just started.)
      for (let waited = 0; !titles().includes('Committed') && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20))
      const event = feed.events.find((e) => e.event === 'books.created' && JSON.parse(e.data).record.title === 'Committed')
      expect(JSON.parse(event?.data ?? '{}')).toMatchObject({ id: applied.body.responses[0].body.id, record: { title: 'Committed' } })
      expect(titles()).not.toContain('Rolled back')
    } finally {
      feed.close()
    }
  })

  it('keeps up with single writes beside it: concurrent batches and POSTs all land', async () => {
    const books = await count('/books')
    await Promise.all([
      ...Array.from({ length: 5 }, async () => expect((await batch([{ method: 'POST', url: '/books', body: KINDRED }, { method: 'POST', url: '/books', body: DUNE }])).status).toBe(200)),
      ...Array.from({ length: 5 }, async () => expect((await request(`${base}/books`, { method: 'POST', json: KINDRED })).status).toBe(201))
    ])
    expect(await count('/books')).toBe(books + 15)
  })
}

