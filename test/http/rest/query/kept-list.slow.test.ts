import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../../helpers/server.js'
import { withRecordStores } from '../../../helpers/stores.js'
import type { RecordStores } from '../../../../src/domain/index.js'
import { STREAM_FROM } from '../../../../src/records/index.js'
import { KEEP_UP_TO_CHARS } from '../../../../src/http/rest/query/kept-list.js'
import { recordEtag } from '../../../../src/http/rest/record-etags.js'
import { security } from '../../security/helpers.js'
import { memoryStores, type Address, type Stores, type Student } from '../../../helpers/built-ins.js'

/**
 * "Serialise once" (issue 12): with the memory store a whole student list is
 * built once per store revision and sent again until a write. These tests
 * hold the kept answers to the uncached ones, byte for byte, and show every
 * kind of write in the very next read.
 */

const V2 = { accept: 'application/vnd.rqs.v2+json' }
/** Text JSON must escape: quotes, backslash, control characters, U+2028, and a character outside the BMP. */
const AWKWARD = 'Zoë "Quote" \\ back\nline\ttab\u2028 😀 </script>'

async function * once<T> (records: T[]): AsyncGenerator<T[]> { yield records }

/** The same stores with their revision hidden: what a store without one gets (one serialisation, or a stream). */
function withoutRevision (stores: Stores): RecordStores {
  const hide = <T extends object>(store: T): T => new Proxy(store, {
    get: (target, key) => {
      if (key === 'revision') return undefined
      const value: unknown = Reflect.get(target, key)
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
    }
  })
  // The services' views copy the revision of the record store they are built over: none here.
  return withRecordStores(stores, hide)
}

async function addStudents (stores: Stores, n: number, name = (i: number): string => `${AWKWARD} ${i}`): Promise<void> {
  for (let i = 0; i < n; i++) await stores.students.create({ firstName: name(i), lastName: AWKWARD, age: i })
}

describe('a kept whole list is the uncached answer, byte for byte', () => {
  let stores: Stores
  let kept: RunningServer
  let plain: RunningServer
  beforeEach(async () => {
    stores = memoryStores()
    kept = await startServer({}, { stores })
    plain = await startServer({}, { stores: withoutRevision(stores) })
  })
  afterEach(async () => { await kept.close(); await plain.close() })

  /** Every way to ask for a whole list: path, headers, and whether the answer is the v1 envelope. */
  const EVERY_WAY = [
    ['/students', {}, true],
    ['/v1/students', {}, true],
    ['/students', { accept: 'application/json' }, true],
    ['/students', { accept: 'application/vnd.rqs.v1+json' }, true],
    ['/students', V2, false],
    ['/v2/students', {}, false]
  ] as const

  const expectSameBytes = async (ways: ReadonlyArray<typeof EVERY_WAY[number]> = EVERY_WAY): Promise<void> => {
    const list = await stores.students.list()
    for (const [path, headers, envelope] of ways) {
      const expected = JSON.stringify(envelope ? { isSuccessful: true, body: list } : list)
      const uncached = await request(`${plain.origin}${path}`, { headers })
      const built = await request(`${kept.origin}${path}`, { headers }) // built and kept
      const again = await request(`${kept.origin}${path}`, { headers }) // the kept bytes
      for (const res of [uncached, built, again]) {
        expect(res.status, path).toBe(200)
        expect(res.text, path).toBe(expected)
        expect(res.headers.get('content-type'), path).toBe(uncached.headers.get('content-type'))
        expect(res.headers.get('vary'), path).toBe(uncached.headers.get('vary'))
      }
    }
  }

  it('with no record', async () => { await expectSameBytes() })

  it('with one record whose text needs escaping', async () => {
    await addStudents(stores, 1)
    await expectSameBytes()
  })

  it('with many records, just below the streaming threshold and from it on', async () => {
    await addStudents(stores, STREAM_FROM - 1)
    await expectSameBytes()
    await addStudents(stores, 2)
    await expectSameBytes()
  })

  it('with a list too long to keep (streamed every time)', async () => {
    const long = 'x'.repeat(190)
    await addStudents(stores, Math.ceil(KEEP_UP_TO_CHARS / 200), (i) => `${long}${i}`)
    expect(JSON.stringify(await stores.students.list()).length).toBeGreaterThan(KEEP_UP_TO_CHARS)
    const twoWays = [EVERY_WAY[0], EVERY_WAY[4]]
    await expectSameBytes(twoWays)
    await stores.students.delete(3)
    await expectSameBytes(twoWays)
  }, 60_000) // 24 answers of 6 MB: slow on a busy machine

  it('when HEAD asks, the same headers and no body', async () => {
    await addStudents(stores, 3)
    await request(`${kept.origin}/students`) // kept
    const head = await request(`${kept.origin}/students`, { method: 'HEAD' })
    const uncached = await request(`${plain.origin}/students`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.text).toBe('')
    expect(head.headers.get('content-length')).toBe(uncached.headers.get('content-length'))
  })
})

describe.each([
  ['a short list', 3],
  ['a streamed list', STREAM_FROM + 2]
])('every write is in the next whole list and the next read (%s)', (_name, size) => {
  let stores: Stores
  let server: RunningServer
  beforeAll(async () => {
    stores = memoryStores()
    await addStudents(stores, size)
    server = await startServer({}, { stores })
  })
  afterAll(async () => { await server.close() })

  /** Both versions' whole lists (read twice, so the second is the kept one) hold exactly what the store holds. */
  const expectCurrent = async (): Promise<Student[]> => {
    const list = await stores.students.list()
    for (let i = 0; i < 2; i++) {
      expect((await request(`${server.origin}/students`)).text).toBe(JSON.stringify({ isSuccessful: true, body: list }))
      expect((await request(`${server.origin}/students`, { headers: V2 })).text).toBe(JSON.stringify(list))
    }
    return list
  }
  const expectRead = async (id: number, student: Omit<Student, 'id'>): Promise<void> => {
    expect((await request(`${server.origin}/students/${id}`)).body).toEqual({ isSuccessful: true, body: { id, ...student } })
    expect((await request(`${server.origin}/v2/students/${id}`)).body).toEqual({ id, ...student })
  }

  it('create (v1 and v2)', async () => {
    await expectCurrent()
    const v1 = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'Grace', lastName: 'Hopper', age: 85 } })
    expect((await expectCurrent()).at(-1)).toEqual(v1.body.body)
    await expectRead(v1.body.body.id as number, { firstName: 'Grace', lastName: 'Hopper', age: 85 })
    const v2 = await request(`${server.origin}/v2/students`, { method: 'POST', json: { firstName: 'Alan', lastName: AWKWARD, age: 41 } })
    expect((await expectCurrent()).at(-1)).toEqual(v2.body)
  })

  it('replace (v1 PUT /students, v2 PUT /students/{id} and PUT /students)', async () => {
    await expectCurrent()
    await request(`${server.origin}/students`, { method: 'PUT', json: { id: 1, firstName: 'One', lastName: 'V1', age: 1 } })
    expect((await expectCurrent())[1]).toEqual({ id: 1, firstName: 'One', lastName: 'V1', age: 1 })
    await expectRead(1, { firstName: 'One', lastName: 'V1', age: 1 })
    await request(`${server.origin}/v2/students/2`, { method: 'PUT', json: { firstName: 'Two', lastName: 'V2', age: 2 } })
    expect((await expectCurrent())[2]).toEqual({ id: 2, firstName: 'Two', lastName: 'V2', age: 2 })
    await request(`${server.origin}/v2/students`, { method: 'PUT', json: { id: 2, firstName: 'Two', lastName: 'Again', age: 3 } })
    expect((await expectCurrent())[2]).toEqual({ id: 2, firstName: 'Two', lastName: 'Again', age: 3 })
    await expectRead(2, { firstName: 'Two', lastName: 'Again', age: 3 })
  })

  it('delete (v1 and v2), then a create that reuses an id (the spec\'s count rule)', async () => {
    const before = await expectCurrent()
    await request(`${server.origin}/students/0`, { method: 'DELETE' })
    expect((await expectCurrent()).map((s) => s.id)).not.toContain(0)
    expect((await request(`${server.origin}/students/0`)).status).toBe(404)
    await request(`${server.origin}/v2/students/1`, { method: 'DELETE' })
    expect((await expectCurrent())).toHaveLength(before.length - 2)
    // Two fewer records: the next id is one that is held, and the create overwrites it.
    const reused = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'Reused', lastName: 'Id', age: 9 } })
    const id = reused.body.body.id as number
    expect(before.map((s) => s.id)).toContain(id)
    expect((await expectCurrent()).find((s) => s.id === id)).toEqual({ id, firstName: 'Reused', lastName: 'Id', age: 9 })
    await expectRead(id, { firstName: 'Reused', lastName: 'Id', age: 9 })
  })

  it('a replayed Idempotency-Key write: once in the list, unchanged by the replay', async () => {
    await expectCurrent()
    const post = { method: 'POST', headers: { 'idempotency-key': `kept-${size}` }, json: { firstName: 'Once', lastName: 'Only', age: 1 } }
    const first = await request(`${server.origin}/students`, post)
    const after = await expectCurrent()
    const replay = await request(`${server.origin}/students`, post)
    expect(replay.text).toBe(first.text)
    expect(await expectCurrent()).toEqual(after)
    expect(after.filter((s) => s.firstName === 'Once')).toHaveLength(1)
  })

  it('an import into the store (as `rqs import` does)', async () => {
    await expectCurrent()
    await stores.students.importAll(once([{ id: 5000, firstName: 'Imported', lastName: AWKWARD, age: 5 }]))
    expect((await expectCurrent()).at(-1)).toEqual({ id: 5000, firstName: 'Imported', lastName: AWKWARD, age: 5 })
    await expectRead(5000, { firstName: 'Imported', lastName: AWKWARD, age: 5 })
  })
})

describe('with --metrics (the stores behind counting twins)', () => {
  it('a write is in the next whole list', async () => {
    const stores = memoryStores()
    const server = await startServer({ security: security({ metrics: true }) }, { stores })
    try {
      expect((await request(`${server.origin}/students`)).body.body).toEqual([])
      await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'Ada', lastName: 'Lovelace', age: 36 } })
      expect((await request(`${server.origin}/students`)).body.body).toEqual([{ id: 0, firstName: 'Ada', lastName: 'Lovelace', age: 36 }])
    } finally {
      await server.close()
    }
  })
})

describe('address ETags (kept by record)', () => {
  let stores: Stores
  let server: RunningServer
  beforeAll(async () => {
    stores = memoryStores()
    server = await startServer({}, { stores })
  })
  afterAll(async () => { await server.close() })

  /** The ETag computed afresh from the record's fields (issue 28: the one scheme of every record, src/http/rest/record-etags.ts). */
  const etagOf = (a: Address): string => recordEtag({ id: a.id, name: a.name, city: a.city, postalCode: a.postalCode })
  const read = async (id: bigint): Promise<Awaited<ReturnType<typeof request>>> => await request(`${server.origin}/addresses/${id}`)
  const expectListed = async (address: Address): Promise<void> => {
    const page = await request(`${server.origin}/addresses?limit=500`)
    expect(page.body.items).toContainEqual({ ...address, id: Number(address.id) })
  }

  it('is the same value on every read of one record, changes with a write, and is in the next list', async () => {
    const created = await request(`${server.origin}/addresses`, { method: 'POST', json: { name: AWKWARD, city: 'Berlin', postalCode: '10115' } })
    const id = BigInt(created.body.id as number)
    const stored: Address = { id, name: AWKWARD, city: 'Berlin', postalCode: '10115' }
    expect(created.headers.get('etag')).toBe(etagOf(stored))
    const first = await read(id)
    const second = await read(id)
    expect(first.headers.get('etag')).toBe(etagOf(stored))
    expect(second.headers.get('etag')).toBe(etagOf(stored))
    expect((await request(`${server.origin}/addresses/${id}`, { headers: { 'if-none-match': etagOf(stored) } })).status).toBe(304)
    await expectListed(stored)

    // PUT that updates keeps the stored name.
    const put = await request(`${server.origin}/addresses/${id}`, { method: 'PUT', json: { name: 'ignored', city: 'Bonn', postalCode: '53111' } })
    const updated: Address = { ...stored, city: 'Bonn', postalCode: '53111' }
    expect(put.headers.get('etag')).toBe(etagOf(updated))
    const after = await read(id)
    expect(after.body).toEqual({ ...updated, id: Number(id) })
    expect(after.headers.get('etag')).toBe(etagOf(updated))
    expect(after.headers.get('etag')).not.toBe(etagOf(stored))
    expect((await request(`${server.origin}/addresses/${id}`, { headers: { 'if-none-match': etagOf(stored) } })).status).toBe(200)
    await expectListed(updated)

    // The same fields again: a new record object, the same ETag value.
    await request(`${server.origin}/addresses/${id}`, { method: 'PUT', json: { city: 'Berlin', postalCode: '10115' } })
    expect((await read(id)).headers.get('etag')).toBe(etagOf(stored))
  })

  it('follows PUT creating, DELETE, and an import', async () => {
    const made: Address = { id: 77n, name: 'Grace', city: 'Arlington', postalCode: '22201' }
    const put = await request(`${server.origin}/addresses/77`, { method: 'PUT', json: { name: 'Grace', city: 'Arlington', postalCode: '22201' } })
    expect(put.status).toBe(201)
    expect(put.headers.get('etag')).toBe(etagOf(made))
    expect((await read(77n)).headers.get('etag')).toBe(etagOf(made))
    await expectListed(made)

    expect((await request(`${server.origin}/addresses/77`, { method: 'DELETE' })).status).toBe(204)
    expect((await read(77n)).status).toBe(404)
    expect((await request(`${server.origin}/addresses?limit=500`)).body.items.map((a: Address) => a.id)).not.toContain(77)

    const imported: Address = { id: 78n, name: 'Imported', city: AWKWARD, postalCode: '' }
    await stores.addresses.importAll(once([imported]))
    expect((await read(78n)).headers.get('etag')).toBe(etagOf(imported))
    await expectListed(imported)
  })
})

describe('a kept address page is the uncached answer, byte for byte', () => {
  let stores: Stores
  let kept: RunningServer
  let plain: RunningServer
  beforeAll(async () => {
    stores = memoryStores()
    kept = await startServer({}, { stores })
    plain = await startServer({}, { stores: withoutRevision(stores) })
  })
  afterAll(async () => { await kept.close(); await plain.close() })

  const TARGETS = [
    '/addresses', '/addresses?limit=2', '/addresses?limit=2&count=true', '/addresses?city=Berlin&count=true',
    '/addresses?sort=-name,city&limit=3', '/addresses?q=zo%C3%AB', '/v2/addresses?limit=1', '/v1/addresses?postalCode%5Bgte%5D=2'
  ]

  /** Every target, and the next link of each, answered alike by both servers, the kept one twice. */
  const expectSamePages = async (): Promise<void> => {
    for (const first of TARGETS) {
      for (let target: string | undefined = first, hops = 0; target !== undefined && hops < 3; hops++) {
        const uncached = await request(`${plain.origin}${target}`)
        expect(uncached.status, target).toBe(200)
        for (let i = 0; i < 2; i++) {
          const res = await request(`${kept.origin}${target}`)
          expect(res.text, target).toBe(uncached.text)
          for (const header of ['content-type', 'link', 'x-total-count', 'vary']) expect(res.headers.get(header), `${target} ${header}`).toBe(uncached.headers.get(header))
        }
        target = uncached.body.next as string | undefined
      }
    }
  }

  it('with no address, a few, and after each kind of write', async () => {
    await expectSamePages()
    for (let i = 0; i < 5; i++) await stores.addresses.create({ name: `${AWKWARD} ${i}`, city: i % 2 === 0 ? 'Berlin' : 'Bonn', postalCode: String(i) })
    await expectSamePages()
    await request(`${kept.origin}/addresses/2`, { method: 'PUT', json: { city: 'Berlin', postalCode: '9' } })
    await expectSamePages()
    await request(`${kept.origin}/addresses/9223372036854775807`, { method: 'PUT', json: { name: 'Last', city: 'Berlin', postalCode: '3' } })
    await expectSamePages()
    await request(`${kept.origin}/addresses/1`, { method: 'DELETE' })
    await expectSamePages()
    await stores.addresses.importAll(once([{ id: 40n, name: 'Imported', city: 'Berlin', postalCode: '4' }]))
    await expectSamePages()
  })
})
