import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Config } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { connectFeed, type FeedConnection } from '../../helpers/sse.js'
import { DECLARATIONS, declarationFiles } from '../collections/fixture.js'

/**
 * PATCH (merge patch), bulk creates and refused unknown members on the
 * record routes (students v2, addresses, a declared collection), over HTTP
 * against a real listening server, alike on every store: patch.test.ts and
 * bulk.test.ts run them on memory and SQLite, bulk-pg.test.ts on PostgreSQL.
 */
type Answer = Awaited<ReturnType<typeof request>>
const MERGE = { 'content-type': 'application/merge-patch+json' }
const DUNE = { title: 'Dune', year: 1965, price: 9.5, available: true, isbn: '978-0441013593' }

function problem (res: Answer, status: number, code: string): Array<{ error: string, field?: string, detail: string }> {
  expect(res.status, res.text).toBe(status)
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  expect(res.body.type).toMatch(new RegExp(`/errors/${code}$`))
  return res.body.errors
}

/** A problem's entry: its code, and where its detail says the failure is (`body.year`, `body/3/year`). */
function entry (code: string, where: string): unknown {
  return expect.objectContaining({ error: code, detail: expect.stringContaining(`${where} `) })
}

/** The first event (from the start of the stream) that `match` accepts, waiting for it a while. */
async function eventWhere (feed: FeedConnection, match: (event: { event?: string, data: string }) => boolean): Promise<{ event?: string, data: string }> {
  for (let waited = 0; waited < 10_000; waited += 20) {
    const found = feed.events.find(match)
    if (found !== undefined) return found
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error('no such event')
}

async function patch (url: string, body: unknown, headers: Record<string, string> = MERGE): Promise<Answer> {
  return await request(url, { method: 'PATCH', headers, body: JSON.stringify(body) })
}

function serverOf (storeOf: () => Config['store'] | undefined): { server: () => RunningServer } {
  const files = declarationFiles()
  let server: RunningServer
  beforeAll(async () => {
    const store = storeOf()
    server = await startServer({ collections: fromFile(files.write('books.json', DECLARATIONS), '--collections'), ...(store === undefined ? {} : { store }) })
  })
  afterAll(async () => { await (server as RunningServer | undefined)?.close() })
  return { server: () => server }
}

export function patchSuite (storeOf: () => Config['store'] | undefined): void {
  const { server } = serverOf(storeOf)
  const books = (): string => `${server().origin}/books`

  it('changes only the members sent, removes an optional one with null, and answers the new ETag', async () => {
    const created = await request(books(), { method: 'POST', json: DUNE })
    const url = `${books()}/${String(created.body.id)}`
    const res = await patch(url, { price: 11, isbn: null })
    expect(res.status, res.text).toBe(200)
    expect(res.body).toEqual({ id: created.body.id, title: 'Dune', year: 1965, price: 11, available: true })
    expect(res.headers.get('etag')).not.toBe(created.headers.get('etag'))
    const read = await request(url)
    expect(read.body).toEqual(res.body)
    expect(read.headers.get('etag')).toBe(res.headers.get('etag'))
    // application/json is a merge patch too
    const json = await request(url, { method: 'PATCH', json: { available: false } })
    expect(json.status).toBe(200)
    expect(json.body.available).toBe(false)
    expect(json.body.price).toBe(11)
  })

  it('refuses a required field set to null, a wrong value and an unknown member, naming each (nothing changes)', async () => {
    const created = await request(books(), { method: 'POST', json: DUNE })
    const url = `${books()}/${String(created.body.id)}`
    expect(problem(await patch(url, { year: null }), 400, 'VALIDATION_FAILED')).toEqual([entry('FIELD_REQUIRED', 'body.year')])
    expect(problem(await patch(url, { year: 'old' }), 400, 'VALIDATION_FAILED')).toEqual([entry('FIELD_TYPE', 'body.year')])
    const unknown = problem(await patch(url, { yeer: 1966 }), 400, 'VALIDATION_FAILED')
    expect(unknown).toEqual([entry('FIELD_UNKNOWN', 'body.yeer')])
    expect(unknown[0]?.detail).toContain('did you mean year?')
    const de = await request(url, { method: 'PATCH', headers: { ...MERGE, 'accept-language': 'de' }, body: '{"yeer":1}' })
    expect(de.body.errors[0].message).toBe('yeer ist kein Feld dieses Datensatzes.')
    problem(await patch(url, [1, 2]), 400, 'JSON_EXPECTED')
    expect((await request(url)).body).toEqual(created.body)
  })

  it('honours If-Match (412 when stale), answers 404 for a missing record and a body id that differs', async () => {
    const created = await request(books(), { method: 'POST', json: DUNE })
    const url = `${books()}/${String(created.body.id)}`
    const etag = created.headers.get('etag') as string
    expect((await patch(url, { price: 1 }, { ...MERGE, 'if-match': etag })).status).toBe(200)
    problem(await patch(url, { price: 2 }, { ...MERGE, 'if-match': etag }), 412, 'PRECONDITION_FAILED')
    expect((await request(url)).body.price).toBe(1)
    problem(await patch(`${books()}/999999`, { price: 2 }), 404, 'RECORD_NOT_FOUND')
    problem(await patch(url, { id: 999999, price: 2 }), 400, 'ID_MISMATCH')
    expect((await patch(url, { id: created.body.id, price: 3 })).status).toBe(200)
  })

  it('keeps both of two concurrent patches of different fields (each merges into the record as it is when written)', async () => {
    const made = await request(books(), { method: 'POST', json: Array.from({ length: 8 }, (_, i) => ({ ...DUNE, title: `Race ${i}` })) })
    await Promise.all(made.body.flatMap((r: any) => [patch(`${books()}/${String(r.id)}`, { price: 42 }), patch(`${books()}/${String(r.id)}`, { year: 2042 })]))
    for (const r of made.body) expect((await request(`${books()}/${String(r.id)}`)).body).toMatchObject({ price: 42, year: 2042 })
  })

  it('replays a keyed PATCH and reports the change on the feed', async () => {
    const created = await request(books(), { method: 'POST', json: DUNE })
    const url = `${books()}/${String(created.body.id)}`
    const feed = await connectFeed(`${server().origin}/events?services=books`)
    try {
      await feed.waitForEvent('ready')
      const headers = { ...MERGE, 'idempotency-key': `patch-${String(created.body.id)}` }
      const first = await patch(url, { title: 'Dune Messiah' }, headers)
      const again = await patch(url, { title: 'Dune Messiah' }, headers)
      expect(again.headers.get('idempotent-replayed')).toBe('true')
      expect(again.body).toEqual(first.body)
      const event = await eventWhere(feed, (e) => e.event === 'books.replaced' && JSON.parse(e.data).id === created.body.id)
      expect(JSON.parse(event.data)).toMatchObject({ id: created.body.id, record: first.body })
    } finally { feed.close() }
  })

  it('patches students v2 and addresses; an address keeps its name (a change of it is 400)', async () => {
    const origin = server().origin
    const student = await request(`${origin}/v2/students`, { method: 'POST', json: { firstName: 'Ada', lastName: 'Lovelace', age: 36 } })
    const patched = await patch(`${origin}/v2/students/${String(student.body.id)}`, { age: 37 })
    expect(patched.body).toEqual({ ...student.body, age: 37 })
    problem(await patch(`${origin}/v2/students/${String(student.body.id)}`, { age: null }), 400, 'VALIDATION_FAILED')
    const address = await request(`${origin}/addresses`, { method: 'POST', json: { name: 'Ada', city: 'Berlin', postalCode: '10115' } })
    const moved = await patch(`${origin}/addresses/${String(address.body.id)}`, { city: 'Bonn', name: 'Ada' })
    expect(moved.body).toEqual({ ...address.body, city: 'Bonn' })
    expect(problem(await patch(`${origin}/addresses/${String(address.body.id)}`, { name: 'Alan' }), 400, 'VALIDATION_FAILED')).toEqual([entry('FIELD_INVALID', 'body.name')])
    problem(await patch(`${origin}/addresses/${String(address.body.id)}`, { country: 'DE' }), 400, 'VALIDATION_FAILED')
  })

  it('refuses unknown members on POST and PUT of v2, addresses and collections, while v1 drops them', async () => {
    const origin = server().origin
    const unknown = problem(await request(`${origin}/v2/students`, { method: 'POST', json: { firstName: 'A', lastName: 'B', age: 1, agee: 2 } }), 400, 'VALIDATION_FAILED')
    expect(unknown).toEqual([entry('FIELD_UNKNOWN', 'body.agee')])
    expect(unknown[0]?.detail).toContain('did you mean age?')
    problem(await request(`${origin}/addresses`, { method: 'POST', json: { name: 'A', city: 'B', postalCode: 'C', country: 'DE' } }), 400, 'VALIDATION_FAILED')
    const student = await request(`${origin}/v2/students`, { method: 'POST', json: { firstName: 'A', lastName: 'B', age: 1 } })
    problem(await request(`${origin}/v2/students`, { method: 'PUT', json: { ...student.body, nickname: 'x' } }), 400, 'VALIDATION_FAILED')
    const created = await request(books(), { method: 'POST', json: DUNE })
    problem(await request(`${books()}/${String(created.body.id)}`, { method: 'PUT', json: { ...DUNE, extra: 1 } }), 400, 'VALIDATION_FAILED')
    // A record read back may be sent again: its id is a member of the record (ignored by a create).
    expect((await request(books(), { method: 'POST', json: { ...DUNE, id: 12345 } })).status).toBe(201)
    const v1 = await request(`${origin}/v1/students`, { method: 'POST', json: { firstName: 'A', lastName: 'B', age: 1, agee: 2 } })
    expect(v1.status).toBe(201)
    expect(v1.body.body).toEqual({ id: v1.body.body.id, firstName: 'A', lastName: 'B', age: 1 })
    // A merge patch is for PATCH only
    problem(await request(books(), { method: 'POST', headers: MERGE, body: JSON.stringify(DUNE) }), 415, 'UNSUPPORTED_MEDIA_TYPE')
  })
}

export function bulkSuite (storeOf: () => Config['store'] | undefined): void {
  const { server } = serverOf(storeOf)
  const books = (): string => `${server().origin}/books`

  it('creates every record of an array in order, with ids in turn and a change each', async () => {
    const before = await request(`${books()}?count=true&limit=1`)
    const total = Number(before.headers.get('x-total-count'))
    const feed = await connectFeed(`${server().origin}/events?services=books`)
    try {
      await feed.waitForEvent('ready')
      const seen = feed.events.length
      const items = [1, 2, 3].map((n) => ({ title: `Bulk ${n}`, year: 2000 + n, price: n, available: n % 2 === 0 }))
      const res = await request(books(), { method: 'POST', json: items })
      expect(res.status, res.text).toBe(201)
      expect(res.body.map((r: any) => r.title)).toEqual(['Bulk 1', 'Bulk 2', 'Bulk 3'])
      const ids = res.body.map((r: any) => r.id)
      expect(ids[1]).toBe(ids[0] + 1)
      expect(ids[2]).toBe(ids[0] + 2)
      for (const record of res.body) expect((await request(`${books()}/${String(record.id)}`)).body).toEqual(record)
      expect(Number((await request(`${books()}?count=true&limit=1`)).headers.get('x-total-count'))).toBe(total + 3)
      const events = (await feed.waitFor(seen + 3)).slice(seen)
      expect(events.map((e) => e.event)).toEqual(['books.created', 'books.created', 'books.created'])
      expect(events.map((e) => JSON.parse(e.data).record)).toEqual(res.body)
    } finally { feed.close() }
  })

  it('stores nothing when one item is bad, naming its index and field', async () => {
    const total = Number((await request(`${books()}?count=true&limit=1`)).headers.get('x-total-count'))
    const items = [DUNE, DUNE, DUNE, { ...DUNE, year: 'old' }, { ...DUNE, extra: 1 }, 7]
    const errors = problem(await request(books(), { method: 'POST', json: items }), 400, 'VALIDATION_FAILED')
    expect(errors).toEqual(expect.arrayContaining([
      entry('FIELD_TYPE', 'body/3/year'),
      entry('FIELD_UNKNOWN', 'body/4/extra')
    ]))
    const missing = problem(await request(books(), { method: 'POST', json: [DUNE, { title: 'x', price: 1, available: true }] }), 400, 'VALIDATION_FAILED')
    expect(missing).toEqual([entry('FIELD_REQUIRED', 'body/1/year')])
    expect(Number((await request(`${books()}?count=true&limit=1`)).headers.get('x-total-count'))).toBe(total)
    problem(await request(books(), { method: 'POST', json: [] }), 400, 'BULK_SIZE')
  })

  it('takes 10 000 records in one request; one more is BULK_SIZE', async () => {
    const many = Array.from({ length: 10_000 }, (_, i) => ({ title: `Many ${i}`, year: i % 3000, price: 1, available: true }))
    const res = await request(books(), { method: 'POST', json: many })
    expect(res.status, res.text.slice(0, 300)).toBe(201)
    expect(res.body).toHaveLength(10_000)
    expect(res.body[9_999]).toMatchObject({ title: 'Many 9999', year: 9_999 % 3000 })
    expect(Number((await request(`${books()}?title[contains]=many&count=true&limit=1`)).headers.get('x-total-count'))).toBe(10_000)
    problem(await request(books(), { method: 'POST', json: [...many, many[0]] }), 400, 'BULK_SIZE')
    expect((await request(`${books()}?title[contains]=many&all=true`, { method: 'DELETE' })).body).toEqual({ changed: 10_000 })
  })

  it('replays a keyed bulk create as one write', async () => {
    const headers = { 'idempotency-key': 'bulk-one' }
    const items = [{ title: 'Keyed A', year: 1, price: 1, available: true }, { title: 'Keyed B', year: 2, price: 2, available: true }]
    const first = await request(books(), { method: 'POST', headers, json: items })
    expect(first.status).toBe(201)
    const again = await request(books(), { method: 'POST', headers, json: items })
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body).toEqual(first.body)
    expect((await request(`${books()}?title=Keyed%20A`)).body.items).toHaveLength(1)
    problem(await request(books(), { method: 'POST', headers, json: items.slice(1) }), 422, 'IDEMPOTENCY_KEY_REUSED')
  })

  it('bulk creates uuid records, students (the count rule, in turn) and addresses', async () => {
    const origin = server().origin
    const notes = await request(`${origin}/notes`, { method: 'POST', json: [{ text: 'a' }, { text: 'b' }] })
    expect(notes.status).toBe(201)
    expect(notes.body.map((n: any) => n.text)).toEqual(['a', 'b'])
    expect((await request(`${origin}/notes/${String(notes.body[1].id)}`)).body).toEqual(notes.body[1])
    const held = (await request(`${origin}/v2/students`)).body.length
    const students = await request(`${origin}/v2/students`, { method: 'POST', json: [{ firstName: 'A', lastName: 'A', age: 1 }, { firstName: 'B', lastName: 'B', age: 2 }] })
    expect(students.status, students.text).toBe(201)
    expect(students.body.map((s: any) => s.id)).toEqual([held, held + 1])
    const addresses = await request(`${origin}/addresses`, { method: 'POST', json: [{ name: 'A', city: 'B', postalCode: 'C' }, { name: 'D', city: 'E', postalCode: 'F' }] })
    expect(addresses.status).toBe(201)
    expect((await request(`${origin}/addresses/${String(addresses.body[1].id)}`)).body).toEqual(addresses.body[1])
  })

  it('draws ids as creates one at a time would: an address id held ahead is skipped, a student hole is replaced as the count rule says', async () => {
    const origin = server().origin
    const address = (n: number): Record<string, string> => ({ name: `Held ${n}`, city: 'Bonn', postalCode: String(53000 + n) })
    const feed = await connectFeed(`${origin}/events?services=addresses,students`)
    let made: any[] = []
    try {
      await feed.waitForEvent('ready')
      const seen = feed.events.length
      const first = (await request(`${origin}/addresses`, { method: 'POST', json: address(0) })).body
      expect((await request(`${origin}/addresses/${String(first.id + 2)}`, { method: 'PUT', json: address(2) })).status).toBe(201)
      const addresses = await request(`${origin}/addresses`, { method: 'POST', json: [address(1), address(3), address(4)] })
      expect(addresses.status, addresses.text).toBe(201)
      expect(addresses.body.map((a: any) => a.id)).toEqual([first.id + 1, first.id + 3, first.id + 4])
      // Students: the count rule's next id is the number held; deleting the last one frees it, deleting another leaves a hole the rule fills by replacing.
      made = (await request(`${origin}/v2/students`, { method: 'POST', json: [{ firstName: 'C', lastName: 'C', age: 3 }, { firstName: 'D', lastName: 'D', age: 4 }, { firstName: 'E', lastName: 'E', age: 5 }] })).body
      expect((await request(`${origin}/v2/students/${String(made[2].id)}`, { method: 'DELETE' })).status).toBe(204)
      const next = await request(`${origin}/v2/students`, { method: 'POST', json: [{ firstName: 'F', lastName: 'F', age: 6 }] })
      expect(next.body.map((s: any) => s.id)).toEqual([made[2].id])
      expect((await request(`${origin}/v2/students/${String(made[0].id)}`, { method: 'DELETE' })).status).toBe(204)
      const filled = await request(`${origin}/v2/students`, { method: 'POST', json: [{ firstName: 'G', lastName: 'G', age: 7 }] })
      expect(filled.status, filled.text).toBe(201)
      expect(filled.body.map((s: any) => s.id)).toEqual([made[2].id])
      expect((await request(`${origin}/v2/students/${String(made[2].id)}`)).body).toMatchObject({ firstName: 'G' })
      // A change each, in order, as the records were answered.
      // From this test's first change on (a store's feed may still deliver an earlier test's changes first).
      const ours = async (): Promise<Array<[string | undefined, unknown]>> => {
        const all = feed.events.slice(seen).filter((e) => e.event !== 'ready').map((e): [string | undefined, unknown] => [e.event, JSON.parse(e.data).record?.id])
        const start = all.findIndex(([event, id]) => event === 'addresses.created' && id === first.id)
        return start < 0 ? [] : all.slice(start)
      }
      for (let waited = 0; (await ours()).length < 12 && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50))
      expect(await ours()).toEqual([
        ['addresses.created', first.id], ['addresses.created', first.id + 2],
        ...addresses.body.map((a: any) => ['addresses.created', a.id]),
        ...made.map((s: any) => ['students.created', s.id]),
        ['students.deleted', undefined], ['students.created', made[2].id], ['students.deleted', undefined], ['students.replaced', made[2].id]
      ])
    } finally {
      feed.close()
      // The students held as before this test: no hole left for the tests after it.
      for (const student of made.slice(1)) await request(`${origin}/v2/students/${String(student.id)}`, { method: 'DELETE' })
    }
  })

  it('PATCH /books?<filter> merges the patch into every matching record, one change each, and answers the count', async () => {
    const origin = server().origin
    const made = await request(books(), { method: 'POST', json: [1, 2, 3].map((n) => ({ title: `Shelf ${n}`, year: 1900 + n, price: 10, available: true, isbn: '978-0000000000' })) })
    const ids = made.body.map((r: any) => r.id)
    const feed = await connectFeed(`${origin}/events?services=books`)
    try {
      await feed.waitForEvent('ready')
      const res = await patch(`${books()}?title[contains]=shelf&year[lte]=1902`, { price: 20, isbn: null })
      expect(res.status, res.text).toBe(200)
      expect(res.body).toEqual({ changed: 2 })
      expect((await request(`${books()}/${String(ids[0])}`)).body).toEqual({ id: ids[0], title: 'Shelf 1', year: 1901, price: 20, available: true })
      expect((await request(`${books()}/${String(ids[2])}`)).body.price).toBe(10)
      for (const id of ids.slice(0, 2)) await eventWhere(feed, (e) => e.event === 'books.replaced' && JSON.parse(e.data).id === id)
    } finally { feed.close() }
    expect((await patch(`${books()}?title=Nothing`, { price: 1 })).body).toEqual({ changed: 0 })
  })

  it('refuses a filtered write without a filter (unless all=true), with paging parameters, or with a bad patch', async () => {
    const origin = server().origin
    const refused = problem(await patch(books(), { price: 1 }), 400, 'FILTER_REQUIRED')
    expect(refused[0]?.detail).toContain('all=true')
    problem(await request(books(), { method: 'DELETE' }), 400, 'FILTER_REQUIRED')
    problem(await request(`${books()}?limit=2`, { method: 'DELETE' }), 400, 'INVALID_QUERY')
    problem(await request(`${books()}?colour=red`, { method: 'DELETE' }), 400, 'INVALID_QUERY')
    expect(problem(await patch(`${books()}?year=1`, { year: null }), 400, 'VALIDATION_FAILED')).toEqual([entry('FIELD_REQUIRED', 'body.year')])
    expect(problem(await patch(`${books()}?year=1`, { price: -1 }), 400, 'VALIDATION_FAILED')).toEqual([entry('FIELD_OUT_OF_RANGE', 'body.price')])
    problem(await patch(`${books()}?year=1`, { pryce: 1 }), 400, 'VALIDATION_FAILED')
    problem(await patch(`${origin}/addresses?city=Berlin`, { name: 'X' }), 400, 'VALIDATION_FAILED')
    const de = await request(books(), { method: 'DELETE', headers: { 'accept-language': 'de' } })
    expect(de.body.errors[0].message).toContain('Filter')
  })

  it('DELETE /notes?<filter> removes every matching record in one go; all=true empties the collection', async () => {
    const origin = server().origin
    await request(`${origin}/notes`, { method: 'POST', json: [{ text: 'drop me' }, { text: 'drop me too' }, { text: 'keep' }] })
    const feed = await connectFeed(`${origin}/events?services=notes`)
    try {
      await feed.waitForEvent('ready')
      const keyed = { 'idempotency-key': 'delete-drops' }
      const res = await request(`${origin}/notes?text[contains]=drop`, { method: 'DELETE', headers: keyed })
      expect(res.body).toEqual({ changed: 2 })
      const again = await request(`${origin}/notes?text[contains]=drop`, { method: 'DELETE', headers: keyed })
      expect(again.headers.get('idempotent-replayed')).toBe('true')
      expect(again.body).toEqual({ changed: 2 })
      await eventWhere(feed, (e) => e.event === 'notes.deleted')
      expect((await request(`${origin}/notes?text[contains]=drop`)).body.items).toEqual([])
      expect((await request(`${origin}/notes?all=true`, { method: 'DELETE' })).body.changed).toBeGreaterThanOrEqual(1)
      expect((await request(`${origin}/notes`)).body.items).toEqual([])
    } finally { feed.close() }
  })

  it('filtered writes on students v2 keep the count rule\'s count, and v1 has none', async () => {
    const origin = server().origin
    await request(`${origin}/v2/students`, { method: 'POST', json: [{ firstName: 'Old', lastName: 'Timer', age: 99 }, { firstName: 'Old', lastName: 'Hand', age: 98 }] })
    expect((await patch(`${origin}/v2/students?firstName=Old`, { age: 90 })).body).toEqual({ changed: 2 })
    const held = (await request(`${origin}/v2/students`)).body.length
    expect((await request(`${origin}/v2/students?age=90`, { method: 'DELETE' })).body).toEqual({ changed: 2 })
    const next = await request(`${origin}/v2/students`, { method: 'POST', json: { firstName: 'New', lastName: 'One', age: 1 } })
    expect(next.body.id).toBe(held - 2)
    expect((await request(`${origin}/v1/students?age=1`, { method: 'DELETE' })).status).toBe(405)
  })
}
