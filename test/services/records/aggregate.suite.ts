import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Config } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { DECLARATIONS, declarationFiles } from '../collections/fixture.js'

/**
 * GET /{collection}/aggregate over HTTP against a real listening server,
 * alike on every store: aggregate.test.ts runs it on memory and SQLite,
 * aggregate-pg.test.ts on PostgreSQL. The answers are checked against the
 * same aggregates computed by hand over the records stored.
 */
type Answer = Awaited<ReturnType<typeof request>>
interface Book { title: string, year: number, price: number, available: boolean, isbn?: string }

const BOOKS: Book[] = [
  { title: 'Dune', year: 1965, price: 9.5, available: true, isbn: '978-0441013593' },
  { title: 'Dune Messiah', year: 1969, price: 7.25, available: false },
  { title: 'Neuromancer', year: 1984, price: 8.1, available: true, isbn: '978-0441569595' },
  { title: 'Nineteen Eighty-Four', year: 1949, price: 6.3, available: true },
  { title: 'Children of Dune', year: 1976, price: 7.25, available: true },
  { title: 'Count Zero', year: 1986, price: 9.99, available: false, isbn: '978-0441117734' },
  { title: 'Mona Lisa Overdrive', year: 1988, price: 10.1, available: true },
  { title: 'Foundation', year: 1951, price: 0.1, available: false, isbn: '978-0553293357' },
  { title: 'Foundation and Empire', year: 1952, price: 0.2, available: false },
  { title: 'Second Foundation', year: 1953, price: 0.3, available: true }
]

/** The fixture's collections, and readings: an instant, an optional tag (null groups) and an optional float score. */
const WITH_READINGS = {
  collections: {
    ...DECLARATIONS.collections,
    readings: {
      schema: { type: 'object', properties: { at: { type: 'string', format: 'date-time' }, tag: { type: 'string' }, score: { type: 'number' } }, required: ['at'] },
      ids: 'uuid'
    }
  }
}

function problem (res: Answer, status: number, code: string): Array<{ error: string, field?: string, detail: string }> {
  expect(res.status, res.text).toBe(status)
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  expect(res.body.type).toMatch(new RegExp(`/errors/${code}$`))
  return res.body.errors
}

const round = (n: number): number => Number(n.toPrecision(12))

/** The groups by `available` computed by hand over `books`: count, sum and average of price, least and greatest year. */
function byHand (books: readonly Book[]): unknown[] {
  return [false, true].map((available) => {
    const group = books.filter((b) => b.available === available)
    const sum = group.reduce((s, b) => s + b.price, 0)
    const years = group.map((b) => b.year)
    return { key: { available }, count: group.length, sum: { price: round(sum), year: years.reduce((s, y) => s + y, 0) }, avg: { price: round(sum / group.length) }, min: { year: Math.min(...years), title: group.map((b) => b.title).sort()[0] }, max: { year: Math.max(...years) } }
  }).filter((g) => g.count > 0)
}

export function aggregateSuite (storeOf: () => Config['store'] | undefined): void {
  const files = declarationFiles()
  let server: RunningServer
  beforeAll(async () => {
    const store = storeOf()
    server = await startServer({ collections: fromFile(files.write('books.json', WITH_READINGS), '--collections'), ...(store === undefined ? {} : { store }) })
    const created = await request(`${server.origin}/books`, { method: 'POST', json: BOOKS })
    expect(created.status, created.text).toBe(201)
  })
  afterAll(async () => { await (server as RunningServer | undefined)?.close() })
  const aggregate = async (query: string): Promise<Answer> => await request(`${server.origin}/books/aggregate?${query}`)

  it('groups, counts, adds up, averages and gives the least and greatest values as computed by hand, in key order', async () => {
    const res = await aggregate('groupBy=available&count=true&sum=price,year&avg=price&min=year,title&max=year')
    expect(res.status, res.text).toBe(200)
    expect(res.body).toEqual({ groups: byHand(BOOKS) })
    // Integer sums are exact.
    expect((res.body.groups[1].sum as { year: number }).year).toBe(BOOKS.filter((b) => b.available).reduce((s, b) => s + b.year, 0))
  })

  it('applies the list\'s filters: brackets, filter= and q', async () => {
    const after1960 = BOOKS.filter((b) => b.year > 1960)
    expect((await aggregate('groupBy=available&count=true&sum=price,year&avg=price&min=year,title&max=year&year[gt]=1960')).body).toEqual({ groups: byHand(after1960) })
    expect((await aggregate(`groupBy=available&count=true&sum=price,year&avg=price&min=year,title&max=year&filter=${encodeURIComponent('year > 1960')}`)).body).toEqual({ groups: byHand(after1960) })
    const dune = BOOKS.filter((b) => b.title.toLowerCase().includes('dune'))
    expect((await aggregate('groupBy=available&count=true&sum=price,year&avg=price&min=year,title&max=year&q=dune')).body).toEqual({ groups: byHand(dune) })
    // Nothing selected: no group at all.
    expect((await aggregate('groupBy=year&count=true&year[gt]=2500')).body).toEqual({ groups: [] })
    expect((await aggregate('count=true&sum=price&avg=price&min=year&year[gt]=2500')).body).toEqual({ groups: [{ key: {}, count: 0, sum: { price: null }, avg: { price: null }, min: { year: null } }] })
  })

  it('without groupBy answers one group with an empty key', async () => {
    const res = await aggregate('count=true&sum=year&min=price&max=price')
    expect(res.status, res.text).toBe(200)
    expect(res.body).toEqual({ groups: [{ key: {}, count: BOOKS.length, sum: { year: BOOKS.reduce((s, b) => s + b.year, 0) }, min: { price: 0.1 }, max: { price: 10.1 } }] })
  })

  it('groups by several fields, an unset key first', async () => {
    const res = await aggregate('groupBy=available,isbn&count=true&available=true')
    expect(res.status, res.text).toBe(200)
    const available = BOOKS.filter((b) => b.available)
    const isbns = available.filter((b) => b.isbn !== undefined).map((b) => b.isbn as string).sort()
    expect(res.body.groups).toEqual([
      { key: { available: true, isbn: null }, count: available.filter((b) => b.isbn === undefined).length },
      ...isbns.map((isbn) => ({ key: { available: true, isbn }, count: 1 }))
    ])
    // Groups by year come in year order.
    const years = (await aggregate('groupBy=year')).body.groups.map((g: { key: { year: number } }) => g.key.year)
    expect(years).toEqual([...new Set(BOOKS.map((b) => b.year))].sort((a, b) => a - b))
  })

  it('refuses unknown fields (did you mean), sums of text, paging parameters and too many group fields', async () => {
    expect(problem(await aggregate('groupBy=yaer'), 400, 'INVALID_QUERY')[0]?.detail).toMatch(/"yaer" is not a field.*did you mean year/)
    expect(problem(await aggregate('sum=title'), 400, 'INVALID_QUERY')[0]?.detail).toMatch(/sum takes integer or number fields/)
    expect(problem(await aggregate('min=available'), 400, 'INVALID_QUERY')[0]?.detail).toMatch(/min takes fields with an order/)
    problem(await aggregate('groupBy=year&limit=5'), 400, 'INVALID_QUERY')
    problem(await aggregate('groupBy=year,title,price,available'), 400, 'INVALID_QUERY')
    problem(await aggregate('groupBy=year&nope=1'), 400, 'INVALID_QUERY')
    problem(await aggregate(`filter=${encodeURIComponent('year >=')}`), 400, 'INVALID_QUERY')
  })

  it('works on the address book too; students v2 has no aggregate route (its base path is shared with v1)', async () => {
    const origin = server.origin
    expect((await request(`${origin}/v2/students/aggregate`)).status).toBe(400) // an id it cannot read
    for (const city of ['Berlin', 'Bonn', 'Berlin']) expect((await request(`${origin}/addresses`, { method: 'POST', json: { name: `Ada ${city} ${Math.random()}`, city, postalCode: '10115' } })).status).toBe(201)
    const addresses = await request(`${origin}/addresses/aggregate?groupBy=city&count=true&min=postalCode`)
    expect(addresses.status, addresses.text).toBe(200)
    expect(addresses.body).toEqual({ groups: [{ key: { city: 'Berlin' }, count: 2, min: { postalCode: '10115' } }, { key: { city: 'Bonn' }, count: 1, min: { postalCode: '10115' } }] })
    // A record route still reads ids beside the aggregate route.
    expect((await request(`${origin}/books/aggregate`, { method: 'DELETE' })).status).toBe(400)
  })

  it('refuses more than 1000 groups (TOO_MANY_GROUPS), and answers exactly 1000', async () => {
    const notes = `${server.origin}/notes`
    const created = await request(notes, { method: 'POST', json: Array.from({ length: 1001 }, (_, i) => ({ text: `note ${String(i).padStart(4, '0')}` })) })
    expect(created.status, created.text).toBe(201)
    problem(await request(`${notes}/aggregate?groupBy=text&count=true`), 400, 'TOO_MANY_GROUPS')
    const most = await request(`${notes}/aggregate?groupBy=text&count=true&text[ne]=${encodeURIComponent('note 0500')}`)
    expect(most.status, most.text).toBe(200)
    expect(most.body.groups).toHaveLength(1000)
    expect(most.body.groups[0]).toEqual({ key: { text: 'note 0000' }, count: 1 })
  })

  it('answers the same in GraphQL: booksAggregate(filter:, groupBy:, sum:, avg:, min:, max:)', async () => {
    const rest = await aggregate('groupBy=available&count=true&sum=price,year&avg=price&min=year,title&max=year&year[gt]=1960')
    const query = '{ booksAggregate(filter: {year: {gt: 1960}}, groupBy: ["available"], sum: ["price", "year"], avg: ["price"], min: ["year", "title"], max: ["year"]) { key count sum avg min max } }'
    const res = await request(`${server.origin}/graphql`, { method: 'POST', json: { query } })
    expect(res.status, res.text).toBe(200)
    expect(res.body.errors).toBeUndefined()
    expect(res.body.data.booksAggregate).toEqual(rest.body.groups)
    const refused = await request(`${server.origin}/graphql`, { method: 'POST', json: { query: '{ booksAggregate(sum: ["title"]) { count } }' } })
    expect(refused.body.errors[0].extensions.code).toBe('INVALID_QUERY')
  })

  it('groups by an optional field (unset first), averages floats and gives least and greatest instants, alike on every store', async () => {
    const readings = [
      { at: '2024-05-01T07:00:00Z', tag: 'b', score: 0.1 }, { at: '2024-05-03T07:00:00Z', tag: 'b', score: 0.2 },
      { at: '2023-01-01T00:00:00Z', tag: 'a' }, { at: '2025-12-31T23:59:59Z', score: 1 / 3 }, { at: '2024-02-29T12:00:00Z', score: 2 / 3 }
    ]
    const created = await request(`${server.origin}/readings`, { method: 'POST', json: readings })
    expect(created.status, created.text).toBe(201)
    const stored = created.body as Array<{ at: string, tag?: string, score?: number }>
    const res = await request(`${server.origin}/readings/aggregate?groupBy=tag&count=true&sum=score&avg=score&min=at&max=at`)
    expect(res.status, res.text).toBe(200)
    const expected = [undefined, 'a', 'b'].map((tag) => {
      const group = stored.filter((r) => r.tag === tag)
      const scores = group.flatMap((r) => r.score === undefined ? [] : [r.score])
      const sum = scores.length === 0 ? null : round(scores.reduce((a, b) => a + b, 0))
      const ats = group.map((r) => r.at).sort()
      return { key: { tag: tag ?? null }, count: group.length, sum: { score: sum }, avg: { score: sum === null ? null : round(scores.reduce((a, b) => a + b, 0) / scores.length) }, min: { at: ats[0] }, max: { at: ats[ats.length - 1] } }
    })
    expect(res.body.groups).toEqual(expected)
    // 0.1 + 0.2 is given as 0.3 on every store.
    expect(res.body.groups[2].sum.score).toBe(0.3)
  })

  it('is described in the API description', async () => {
    const doc = (await request(`${server.origin}/openapi.json`)).body
    const op = doc.paths['/books/aggregate']?.get
    expect(op?.operationId).toMatch(/^aggregate/)
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['groupBy', 'count', 'sum', 'avg', 'min', 'max', 'filter', 'q']))
  })
}
