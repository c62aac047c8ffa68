import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Config } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { declarationFiles } from './fixture.js'

/**
 * The date-time kind (issue 29, item 1; issue 28, item 7) over HTTP, alike on
 * every store (date-time.test.ts: memory and SQLite; date-time-pg.test.ts:
 * PostgreSQL): offsets normalised to UTC, filters, sort and cursors compare
 * instants, bad values are problems naming the field, GraphQL has DateTime,
 * and a field stored as text by an older declaration is converted at start.
 */
const files = declarationFiles()
const events = (at: Record<string, unknown>): unknown => ({
  collections: { meetings: { schema: { type: 'object', properties: { title: { type: 'string' }, at }, required: ['title', 'at'] }, ids: 'sequence' } }
})
const DATE_TIME = { type: 'string', format: 'date-time', description: 'When it happens' }

const EVENTS = [
  { title: 'Berlin morning', at: '2024-05-01T09:00:00+02:00' }, // 07:00Z
  { title: 'London morning', at: '2024-05-01T08:30:00Z' }, // 08:30Z
  { title: 'New York night', at: '2024-04-30T23:15:00.250-04:00' }, // 03:15:00.250Z next day
  { title: 'Tokyo noon', at: '2024-05-01T12:00:00.123456+09:00' }, // 03:00:00.123Z
  { title: 'Lower case', at: '2024-05-01t10:00:00z' } // 10:00Z
]
const STORED = ['2024-05-01T07:00:00.000Z', '2024-05-01T08:30:00.000Z', '2024-05-01T03:15:00.250Z', '2024-05-01T03:00:00.123Z', '2024-05-01T10:00:00.000Z']

const ids = (body: { items: Array<{ id: number }> }): number[] => body.items.map((r) => r.id)

export function dateTimeSuite (storeOf: () => Config['store'] | undefined): void {
  let server: RunningServer
  let base: string

  beforeAll(async () => {
    const store = storeOf()
    server = await startServer({ collections: fromFile(files.write('events.json', events(DATE_TIME)), '--collections'), ...(store === undefined ? {} : { store }) })
    base = server.origin
    for (const [i, event] of EVENTS.entries()) {
      const created = await request(`${base}/meetings`, { method: 'POST', json: event })
      expect(created.status).toBe(201)
      expect(created.body).toEqual({ id: i + 1, title: event.title, at: STORED[i] })
    }
  })
  afterAll(async () => { await (server as RunningServer | undefined)?.close() })

  it('answers every offset in UTC to the millisecond, on reads and replaces alike', async () => {
    expect((await request(`${base}/meetings/1`)).body).toEqual({ id: 1, title: 'Berlin morning', at: '2024-05-01T07:00:00.000Z' })
    const replaced = await request(`${base}/meetings/5`, { method: 'PUT', json: { title: 'Lower case', at: '2024-05-01T11:00:00+01:00' } })
    expect(replaced.status).toBe(200)
    expect(replaced.body.at).toBe('2024-05-01T10:00:00.000Z')
  })

  it('compares instants across offsets: gt, gte, lt, lte, eq, ne', async () => {
    // Stored as 09:00+02:00, i.e. 07:00Z: not after 08:00Z, whatever its text says.
    expect(ids((await request(`${base}/meetings?at[gt]=2024-05-01T08:00:00Z`)).body)).toEqual([2, 5])
    expect(ids((await request(`${base}/meetings?at[gte]=2024-05-01T09:30:00%2B01:00`)).body)).toEqual([2, 5])
    expect(ids((await request(`${base}/meetings?at[lt]=2024-05-01T03:15:00.250Z`)).body)).toEqual([4])
    expect(ids((await request(`${base}/meetings?at[lte]=2024-05-01T05:15:00.250%2B02:00`)).body)).toEqual([3, 4])
    expect(ids((await request(`${base}/meetings?at=2024-05-01T07:00:00-02:00`)).body)).toEqual([])
    expect(ids((await request(`${base}/meetings?at=2024-05-01T09:00:00%2B02:00`)).body)).toEqual([1])
    expect(ids((await request(`${base}/meetings?at[ne]=2024-05-01T07:00:00Z`)).body)).toEqual([2, 3, 4, 5])
  })

  it('sorts by instant and pages with cursors', async () => {
    expect(ids((await request(`${base}/meetings?sort=at`)).body)).toEqual([4, 3, 1, 2, 5])
    expect(ids((await request(`${base}/meetings?sort=-at`)).body)).toEqual([5, 2, 1, 3, 4])
    const seen: number[] = []
    let next: string | undefined = '/meetings?sort=at&limit=2'
    while (next !== undefined) {
      const page: { body: { items: Array<{ id: number }>, next?: string } } = await request(`${base}${next}`)
      seen.push(...ids(page.body))
      next = page.body.next
    }
    expect(seen).toEqual([4, 3, 1, 2, 5])
  })

  it('refuses values that are no date-time, in bodies and filters, as 400 problems naming the field', async () => {
    for (const at of ['2024-05-01', '2024-05-01T09:00:00', '2024-02-30T00:00:00Z', 'yesterday', 1714546800]) {
      const refused = await request(`${base}/meetings`, { method: 'POST', json: { title: 'Bad', at } })
      expect(refused.status).toBe(400)
      expect(refused.headers.get('content-type')).toContain('application/problem+json')
      expect(refused.body.errors.map((e: { detail: string }) => e.detail.split(' ')[0])).toContain('body.at')
    }
    // A valid text whose instant falls outside the years 0000–9999 in UTC.
    const early = await request(`${base}/meetings`, { method: 'POST', json: { title: 'Bad', at: '0000-01-01T00:30:00+01:00' } })
    expect(early.status).toBe(400)
    expect(early.body.errors.map((e: { detail: string }) => e.detail.split(' ')[0])).toEqual(['body.at'])
    const filter = await request(`${base}/meetings?at[gt]=tomorrow`)
    expect(filter.status).toBe(400)
    expect(JSON.stringify(filter.body)).toContain('at[gt]')
    const contains = await request(`${base}/meetings?at[contains]=2024`)
    expect(contains.status).toBe(400)
    expect(contains.body.type).toMatch(/\/errors\/INVALID_QUERY$/)
  })

  it('is a DateTime in GraphQL: typed fields, filters across offsets, mutations normalised', async () => {
    const introspect = await request(`${base}/graphql`, { method: 'POST', json: { query: '{ __type(name: "Meeting") { fields { name type { kind ofType { name } } } } }' } })
    const at = introspect.body.data.__type.fields.find((f: { name: string }) => f.name === 'at')
    expect(at.type).toEqual({ kind: 'NON_NULL', ofType: { name: 'DateTime' } })
    const list = await request(`${base}/graphql`, { method: 'POST', json: { query: '{ meetings(filter: { at: { gt: "2024-05-01T10:00:00+02:00" } }, sort: [at_ASC]) { nodes { id at } } }' } })
    expect(list.body.errors).toBeUndefined()
    expect(list.body.data.meetings.nodes).toEqual([{ id: '2', at: '2024-05-01T08:30:00.000Z' }, { id: '5', at: '2024-05-01T10:00:00.000Z' }])
    const created = await request(`${base}/graphql`, { method: 'POST', json: { query: 'mutation { createMeeting(input: { title: "GraphQL", at: "2024-06-01T00:00:00-05:00" }) { record { at } } }' } })
    expect(created.body.errors).toBeUndefined()
    expect(JSON.stringify(created.body.data)).toContain('2024-06-01T05:00:00.000Z')
    const bad = await request(`${base}/graphql`, { method: 'POST', json: { query: '{ meetings(filter: { at: { gt: "soon" } }) { nodes { id } } }' } })
    expect(bad.body.errors?.length).toBeGreaterThan(0)
  })

  it('exports the UTC text in CSV and NDJSON', async () => {
    const csv = await request(`${base}/meetings?sort=at&limit=2`, { headers: { accept: 'text/csv' } })
    expect(csv.text).toBe('id,title,at\r\n4,Tokyo noon,2024-05-01T03:00:00.123Z\r\n3,New York night,2024-05-01T03:15:00.250Z\r\n')
    const ndjson = await request(`${base}/meetings?at=2024-05-01T07:00:00Z`, { headers: { accept: 'application/x-ndjson' } })
    expect(ndjson.text).toBe('{"id":1,"title":"Berlin morning","at":"2024-05-01T07:00:00.000Z"}\n')
  })

  it('describes the field in OpenAPI as a date-time', async () => {
    const doc = await request(`${base}/openapi.json`)
    expect(doc.status).toBe(200)
    expect(JSON.stringify(doc.body)).toContain('"format":"date-time"')
  })
}

/** A field declared before date-time was a kind (kept as text): converted at the next start, or refused naming the records. */
export async function convertedAtStart (store: Config['store']): Promise<void> {
  const before = fromFile(files.write('text.json', events({ type: 'string' })), '--collections')
  let server = await startServer({ collections: before, store })
  for (const at of ['2024-05-01T09:00:00+02:00', '2024-05-01T08:30:00Z']) {
    expect((await request(`${server.origin}/meetings`, { method: 'POST', json: { title: 'Old', at } })).status).toBe(201)
  }
  await server.close()

  server = await startServer({ collections: fromFile(files.write('instants.json', events(DATE_TIME)), '--collections'), store })
  expect((await request(`${server.origin}/meetings?sort=at`)).body.items).toEqual([
    { id: 1, title: 'Old', at: '2024-05-01T07:00:00.000Z' },
    { id: 2, title: 'Old', at: '2024-05-01T08:30:00.000Z' }
  ])
  expect(ids((await request(`${server.origin}/meetings?at[gt]=2024-05-01T08:00:00Z`)).body)).toEqual([2])
  await server.close()
}

export async function refusedAtStart (store: Config['store']): Promise<void> {
  const before = fromFile(files.write('text2.json', events({ type: 'string' })), '--collections')
  const server = await startServer({ collections: before, store })
  for (const at of ['2024-05-01T09:00:00+02:00', 'next Tuesday']) {
    expect((await request(`${server.origin}/meetings`, { method: 'POST', json: { title: 'Old', at } })).status).toBe(201)
  }
  await server.close()
  await expect(startServer({ collections: fromFile(files.write('instants2.json', events(DATE_TIME)), '--collections'), store }))
    .rejects.toThrow(/at: type string → date-time: record 2 \("next Tuesday"\) holds a value it cannot take/)
}
