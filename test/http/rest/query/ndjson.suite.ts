import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import pg from 'pg'
import { request, startServer, type RunningServer } from '../../../helpers/server.js'
import type { StoreKind } from '../../../stores/harness.js'
import type { RecordStore } from '../../../../src/domain/index.js'
import { overriding, withRecordStores } from '../../../helpers/stores.js'
import type { Stores, Student } from '../../../helpers/built-ins.js'

/**
 * `Accept: application/x-ndjson` on a collection streams every matching record,
 * one JSON object a line, on every store; a client that goes away stops it.
 */
interface Watch { pulled: number, closed: boolean }

/** The students' record store, counting the batches the server pulls and noticing when the stream is closed. */
function watched (inner: RecordStore, watch: Watch): RecordStore {
  return overriding(inner, {
    batches: (q) => (async function * () {
      try {
        for await (const batch of inner.batches(q)) { watch.pulled++; yield batch }
      } finally { watch.closed = true }
    })()
  })
}

async function * once<R> (records: R[]): AsyncGenerator<R[]> { yield records }

export const NDJSON = { accept: 'application/x-ndjson' }

/** Registers the suite for each kind: ndjson.slow.test.ts (memory, SQLite) and ndjson-pg.test.ts (PostgreSQL) call it. */
export function ndjsonSuite (kinds: StoreKind[]): void {
  for (const kind of kinds) suiteOn(kind)
}

function suiteOn (kind: StoreKind): void {
  describe.skipIf(kind.skip !== undefined)(`NDJSON export, ${kind.name} store${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
    let stores: Stores
    let server: RunningServer
    const watch: Watch = { pulled: 0, closed: false }
    beforeAll(kind.setup)
    afterAll(kind.teardown)
    beforeEach(async () => {
      stores = await kind.fresh()
      watch.pulled = 0
      watch.closed = false
      server = await startServer({}, { stores: withRecordStores(stores, (store, name) => name === 'students' ? watched(store, watch) : store) })
    })
    afterEach(async () => {
      await server.close()
      await stores.close()
    })

    it('streams every matching record in order, one JSON object a line, with the count when asked', async () => {
      const records = Array.from({ length: 2600 }, (_, i) => ({ id: i, firstName: `F${i % 13}`, lastName: `Ln ${(i * 7919) % 2600}`, age: i % 80 }))
      await stores.students.importAll(once(records))
      const res = await request(`${server.origin}/students?age[gte]=18&sort=-lastName&count=true`, { headers: NDJSON })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/)
      expect(res.headers.get('vary')).toMatch(/Accept/)
      const expected = records.filter((r) => r.age >= 18).sort((a, b) => a.lastName < b.lastName ? 1 : a.lastName > b.lastName ? -1 : a.id - b.id)
      expect(res.headers.get('x-total-count')).toBe(String(expected.length))
      expect(res.text.endsWith('\n')).toBe(true)
      expect(res.text.split('\n').slice(0, -1).map((line) => JSON.parse(line) as Student)).toEqual(expected)
      expect(watch.pulled).toBeGreaterThan(1)
      expect(watch.closed).toBe(true)
      // The same under /v2, and capped by an explicit limit.
      const capped = await request(`${server.origin}/v2/students?age[gte]=18&sort=-lastName&limit=3`, { headers: NDJSON })
      expect(capped.text).toBe(expected.slice(0, 3).map((s) => `${JSON.stringify(s)}\n`).join(''))
    })

    it('answers an empty 200 when nothing matches, and JSON errors before the stream starts', async () => {
      const empty = await request(`${server.origin}/students?firstName=Nobody`, { headers: NDJSON })
      expect(empty.status).toBe(200)
      expect(empty.text).toBe('')
      const bad = await request(`${server.origin}/students?nonsense=1`, { headers: NDJSON })
      expect(bad.status).toBe(400)
      expect(bad.headers.get('content-type')).toMatch(/^application\/json/)
      expect(bad.body.isSuccessful).toBe(false)
      const v2 = await request(`${server.origin}/v2/students?nonsense=1`, { headers: NDJSON })
      expect(v2.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    })

    it('stops and frees the store\'s cursor when the client goes away mid-stream', async () => {
      const name = 'x'.repeat(200)
      const total = kind.name === 'memory' ? 100_000 : 20_000
      await stores.students.importAll(once(Array.from({ length: total }, (_, i) => ({ id: i, firstName: name, lastName: name, age: i % 100 }))))
      const controller = new AbortController()
      const res = await fetch(`${server.origin}/students?sort=age`, { headers: NDJSON, signal: controller.signal })
      const reader = (res.body as ReadableStream<Uint8Array>).getReader()
      expect((await reader.read()).done).toBe(false)
      controller.abort()
      for (let i = 0; i < 50 && !watch.closed; i++) await sleep(50)
      expect(watch.closed).toBe(true)
      const pulled = watch.pulled
      if (kind.name === 'memory') expect(pulled).toBeLessThan(total / 1000) // stopped well before the end
      await sleep(200)
      expect(watch.pulled).toBe(pulled)
      // Nothing was left open: the server and the store go on answering and writing.
      expect((await request(`${server.origin}/students/1`)).body.body.age).toBe(1)
      expect((await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'A', lastName: 'B', age: 1 } })).status).toBe(201)
      if (kind.name === 'postgres') {
        const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
        await client.connect()
        // This file's database only: the other lane's files hold transactions of their own on the same server.
        expect(kind.databaseName?.()).toMatch(/^rqs_t_[0-9a-f]+$/)
        const rows = (await client.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'rqs' AND state LIKE 'idle in transaction%' AND datname = $1", [kind.databaseName?.()])).rows
        await client.end()
        expect(rows[0].n).toBe(0)
      }
    })

    it('streams every matching record past any page size: no default limit, no maximum; an explicit limit caps it (issue 19)', async () => {
      const many = Array.from({ length: 1234 }, (_, i) => ({ id: BigInt(i + 1), name: `N${i}`, city: i % 2 === 0 ? 'Kiel' : 'Bonn', postalCode: String(i) }))
      await stores.addresses.importAll(once(many))
      const lines = (text: string): string[] => text.split('\n').slice(0, -1)
      for (const path of ['/addresses?count=true', '/v2/addresses?count=true']) {
        const all = await request(`${server.origin}${path}`, { headers: NDJSON })
        expect(all.headers.get('x-total-count')).toBe('1234')
        expect(lines(all.text).map((l) => JSON.parse(l).name)).toEqual(many.map((a) => a.name))
      }
      const kiel = await request(`${server.origin}/addresses?city=Kiel&sort=-id`, { headers: NDJSON })
      expect(lines(kiel.text)).toHaveLength(617)
      expect(lines((await request(`${server.origin}/addresses?limit=600`, { headers: NDJSON })).text)).toHaveLength(600)
      expect(lines((await request(`${server.origin}/addresses?limit=5000`, { headers: NDJSON })).text)).toHaveLength(1234)
      // JSON pages keep their default of 50 and their maximum of 500.
      const page = await request(`${server.origin}/addresses`)
      expect(page.body.items).toHaveLength(50)
      expect(page.body.next).toMatch(/^\/addresses\?limit=50&cursor=/)
      const tooLarge = await request(`${server.origin}/addresses?limit=501`)
      expect(tooLarge.status).toBe(400)
      expect(tooLarge.body.errors).toEqual([expect.objectContaining({ error: 'FIELD_OUT_OF_RANGE', detail: 'querystring.limit must be <= 500' })])
      expect((await request(`${server.origin}/addresses?limit=0`, { headers: NDJSON })).status).toBe(400)

      await stores.students.importAll(once(Array.from({ length: 800 }, (_, i) => ({ id: i, firstName: 'F', lastName: `L${i}`, age: i % 90 }))))
      expect(lines((await request(`${server.origin}/students?limit=700`, { headers: NDJSON })).text)).toHaveLength(700)
      expect(lines((await request(`${server.origin}/v2/students?sort=-age`, { headers: NDJSON })).text)).toHaveLength(800)
      const v1Page = await request(`${server.origin}/students?limit=700`)
      expect(v1Page.status).toBe(400)
      expect(v1Page.body).toEqual({ isSuccessful: false, body: 'Invalid query: limit must be an integer from 1 to 500' })
    })

    it('streams addresses with every digit of 64-bit ids', async () => {
      await stores.addresses.importAll(once([
        { id: 9223372036854775807n, name: 'Max', city: 'Kiel', postalCode: '24103' },
        { id: 2n, name: 'Two', city: 'Bonn', postalCode: '53111' }
      ]))
      const res = await request(`${server.origin}/addresses?sort=-id`, { headers: NDJSON })
      expect(res.text).toBe('{"id":9223372036854775807,"name":"Max","city":"Kiel","postalCode":"24103"}\n{"id":2,"name":"Two","city":"Bonn","postalCode":"53111"}\n')
    })
  })
}
