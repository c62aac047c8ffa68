import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../../helpers/server.js'
import { LOCAL_STORES, storeKinds } from '../../../stores/harness.js'
import { CSV, csvListSuite, once } from './csv.suite.js'
import type { RecordStore } from '../../../../src/domain/index.js'
import { overriding, withRecordStores } from '../../../helpers/stores.js'
import type { Stores } from '../../../helpers/built-ins.js'

/** `Accept: text/csv` on collection lists (issue 22) on memory and SQLite; PostgreSQL: csv-pg.test.ts. */
csvListSuite(storeKinds(LOCAL_STORES))

describe('CSV streaming and negotiation (memory store)', () => {
  let stores: Stores
  let server: RunningServer
  const watch = { pulled: 0, closed: false }
  beforeEach(async () => {
    stores = await storeKinds(['memory'])[0]?.fresh() as Stores
    watch.pulled = 0
    watch.closed = false
    // The students' record store, counting the batches the server pulls and noticing when the walk is closed.
    const students = (target: RecordStore): RecordStore => overriding(target, {
      batches: (q) => (async function * () {
        try {
          for await (const batch of target.batches(q)) { watch.pulled++; yield batch }
        } finally { watch.closed = true }
      })()
    })
    server = await startServer({}, { stores: withRecordStores(stores, (store, name) => name === 'students' ? students(store) : store) })
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
    // The API description says so: the lists' 200 answers are also NDJSON and CSV, the items' are not.
    const doc = (await request(`${server.origin}/openapi.json`)).body
    for (const path of ['/v1/students', '/v2/students', '/addresses']) {
      expect(Object.keys(doc.paths[path].get.responses['200'].content), path).toEqual(expect.arrayContaining(['application/x-ndjson', 'text/csv']))
    }
    expect(Object.keys(doc.paths['/v2/students/{id}'].get.responses['200'].content)).not.toContain('text/csv')
  })
})
