import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { RecordStore } from '../../../src/domain/index.js'
import { StoreUnavailableError } from '../../../src/domain/index.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { storeKinds, type StoreKind } from '../../stores/harness.js'
import { memoryStores, type Stores } from '../../helpers/built-ins.js'

/**
 * Issue 18, defect 1: with --metrics on, every NDJSON list and every student
 * list of 1 000 records or more answered 500 on every store ("Cannot read
 * private member #queries"): the metrics wrapped each store with
 * Object.create() and forgot `batches`. The stores are now decorated by a real
 * object implementing the whole contract (src/stores/observed.ts).
 */
const RECORDS = 1200

async function * once<T> (items: T[]): AsyncIterable<readonly T[]> {
  yield items
}

async function seeded (kind: StoreKind): Promise<Stores> {
  const stores = await kind.fresh()
  await stores.students.importAll(once(Array.from({ length: RECORDS }, (_, id) => ({ id, firstName: `F${id}`, lastName: 'L', age: id % 100 }))))
  await stores.addresses.importAll(once(Array.from({ length: RECORDS }, (_, i) => ({ id: BigInt(i + 1), name: `N${i}`, city: 'Oslo', postalCode: '0150' }))))
  return stores
}

for (const kind of storeKinds(['memory', 'sqlite', 'postgres'])) { // every store: this file is in the postgres lane
  describe.skipIf(kind.skip !== undefined)(`--metrics with lists on the ${kind.name} store${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
    let stores: Stores
    let server: RunningServer

    beforeAll(async () => {
      await kind.setup()
      stores = await seeded(kind)
      server = await startServer({ security: { metrics: true } }, { stores })
    })
    afterAll(async () => {
      await server?.close()
      await stores?.close()
      await kind.teardown()
    })

    it('answers a whole student list of more than 1 000 records (v1 and v2)', async () => {
      const v1 = await request(`${server.origin}/students`)
      expect(v1.status).toBe(200)
      expect(v1.body.body).toHaveLength(RECORDS)
      const v2 = await request(`${server.origin}/students`, { headers: { accept: 'application/vnd.rqs.v2+json' } })
      expect(v2.status).toBe(200)
      expect(v2.body).toHaveLength(RECORDS)
    })

    it('streams every student and every address as NDJSON', async () => {
      for (const path of ['/students', '/addresses']) {
        const res = await request(`${server.origin}${path}`, { headers: { accept: 'application/x-ndjson' } })
        expect(res.status, path).toBe(200)
        const lines = res.text.split('\n').filter((l) => l !== '')
        expect(lines.length, path).toBeGreaterThanOrEqual(50)
        for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow()
      }
    })
  })
}

describe('--metrics counts a failure that happens while a list streams', () => {
  let server: RunningServer
  afterEach(async () => { await server?.close() })

  it('a store whose stream fails half-way is a counted store error, not an uncounted 500', async () => {
    const base = memoryStores()
    // A stream that fails on its first batch, as a database whose connection drops mid-walk.
    const students = new Proxy(base.collections.get('students') as RecordStore, {
      get (target, property, receiver) {
        if (property === 'batches') return () => ({ [Symbol.asyncIterator]: () => ({ next: async () => { throw new StoreUnavailableError() } }) })
        if (property === 'revision') return undefined
        const value = Reflect.get(target, property, receiver) as unknown
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
      }
    })
    // The collection's store: with --metrics the server reaches it through the decorator, which counts the failure.
    const collections = new Map(base.collections).set('students', students)
    server = await startServer({ security: { metrics: true } }, { stores: { ...base, collections } })
    const res = await request(`${server.origin}/students`, { headers: { accept: 'application/x-ndjson' } })
    expect(res.status).toBe(503)
    const metrics = await request(`${server.origin}/metrics`)
    const line = metrics.text.split('\n').find((l) => l.startsWith('rqs_store_errors_total{') && l.includes('operation="batches"') && l.includes('store="students"'))
    expect(line).toBeDefined()
    expect(Number(line?.slice(line.lastIndexOf(' ') + 1))).toBe(1)
  })
})
