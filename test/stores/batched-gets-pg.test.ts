import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import pg from 'pg'
import { createTestDatabase, DATABASE_URL, POSTGRES_SKIP_REASON, SKIP_POSTGRES, type TestDatabase } from './harness.js'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js'
import { request, startServer } from '../helpers/server.js'
import { BatchedGets } from '../../src/stores/postgres/batched-gets.js'
import { StoreUnavailableError } from '../../src/domain/index.js'
import { MAX_INT64_ID } from '../../src/domain/index.js'
import { openPostgresStores, type Stores } from '../helpers/built-ins.js'

/**
 * PostgreSQL gets by id are batched: the reads issued in one I/O round go out
 * as one `WHERE id = ANY($1)` statement. What a caller sees must be what one
 * statement per get gave: its own record (or undefined), every acknowledged
 * write, and the store's unavailable error when PostgreSQL is gone.
 */
describe.skipIf(SKIP_POSTGRES)(`PostgreSQL batched gets${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  let database: TestDatabase
  let stores: Stores

  beforeAll(async () => {
    database = await createTestDatabase()
    stores = await openPostgresStores({ url: database.url, poolSize: 4, startupWaitMs: 0 })
    for (let i = 0; i < 3; i++) await stores.students.create({ firstName: `First${i}`, lastName: `Last${i}`, age: 20 + i })
  })
  afterAll(async () => {
    await stores?.close()
    await database?.drop()
  })

  it('sends the gets of one I/O round as one statement, each caller getting its own record or undefined', async () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 2 })
    try {
      const query = vi.spyOn(pool, 'query')
      const gets = new BatchedGets<number, { id: string, first_name: string }, { id: number, firstName: string }>(pool, {
        statement: { name: 'test-students-get-many', text: 'SELECT id, first_name FROM rqs_students WHERE id = ANY($1::bigint[])' },
        idOf: (row) => Number(row.id),
        toRecord: (row) => ({ id: Number(row.id), firstName: row.first_name })
      })
      const answers = await Promise.all([gets.get(0), gets.get(2), gets.get(0), gets.get(99), gets.get(1)])
      expect(query).toHaveBeenCalledTimes(1)
      expect(answers).toEqual([{ id: 0, firstName: 'First0' }, { id: 2, firstName: 'First2' }, { id: 0, firstName: 'First0' }, undefined, { id: 1, firstName: 'First1' }])
      // Two callers of the same id do not share one object.
      expect(answers[0]).not.toBe(answers[2])
      // A get in a later round is a statement of its own.
      expect(await gets.get(1)).toEqual({ id: 1, firstName: 'First1' })
      expect(query).toHaveBeenCalledTimes(2)
    } finally {
      await pool.end()
    }
  })

  it('joins getMany calls and gets of one I/O round into one statement over their distinct ids, each answered in its own order', async () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 2 })
    try {
      const query = vi.spyOn(pool, 'query')
      const gets = new BatchedGets<number, { id: string, first_name: string }, { id: number, firstName: string }>(pool, {
        statement: { name: 'test-students-get-many-2', text: 'SELECT id, first_name FROM rqs_students WHERE id = ANY($1::bigint[])' },
        idOf: (row) => Number(row.id),
        toRecord: (row) => ({ id: Number(row.id), firstName: row.first_name })
      })
      const student = (id: number): { id: number, firstName: string } => ({ id, firstName: `First${id}` })
      const [many, one, again, none] = await Promise.all([gets.getMany([2, 99, 0, 2]), gets.get(1), gets.getMany([1, 0]), gets.getMany([42])])
      expect(query).toHaveBeenCalledTimes(1)
      // The distinct ids, once each.
      expect(([...(query.mock.calls[0]?.[0] as unknown as { values: number[][] }).values[0] ?? []]).sort()).toEqual([0, 1, 2, 42, 99])
      // Missing ids left out, an id asked twice answered twice (as objects of their own), the order as asked.
      expect(many).toEqual([student(2), student(0), student(2)])
      expect(many[0]).not.toBe(many[2])
      expect(one).toEqual(student(1))
      expect(again).toEqual([student(1), student(0)])
      expect(again[1]).not.toBe(many[1])
      expect(none).toEqual([])
      // No ids: no statement.
      expect(await gets.getMany([])).toEqual([])
      expect(query).toHaveBeenCalledTimes(1)
    } finally {
      await pool.end()
    }
  })

  it('sends more distinct ids than one statement takes as several statements of the same round, answering every caller', async () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 2 })
    try {
      const query = vi.spyOn(pool, 'query')
      const gets = new BatchedGets<number, { id: string }, number>(pool, {
        statement: { name: 'test-series', text: 'SELECT id FROM unnest($1::bigint[]) AS s(id) WHERE id % 2 = 0' },
        idOf: (row) => Number(row.id),
        toRecord: (row) => Number(row.id)
      })
      const ids = Array.from({ length: 600 }, (_, i) => i)
      const [all, tail] = await Promise.all([gets.getMany(ids), gets.getMany([598, 599, 1000])])
      expect(query.mock.calls.length).toBeGreaterThan(1)
      expect(all).toEqual(ids.filter((i) => i % 2 === 0))
      expect(tail).toEqual([598, 1000])
    } finally {
      await pool.end()
    }
  })

  it('answers concurrent student gets of different ids, of the same id and of missing ids', async () => {
    const ids = [0, 1, 2, 0, 0, 7, 2, Number.MAX_SAFE_INTEGER, 1]
    const answers = await Promise.all(ids.map(async (id) => await stores.students.get(id)))
    expect(answers).toEqual(ids.map((id) => id <= 2 ? { id, firstName: `First${id}`, lastName: `Last${id}`, age: 20 + id } : undefined))
  })

  it('answers concurrent address gets by 64-bit id, present and missing', async () => {
    const input = { name: 'Ada Lovelace', city: 'London', postalCode: 'W1' }
    await stores.addresses.put(MAX_INT64_ID, input)
    const created = await stores.addresses.create({ ...input, city: 'Paris' })
    const ids = [MAX_INT64_ID, created.id, MAX_INT64_ID - 1n, created.id, 2n ** 62n]
    const answers = await Promise.all(ids.map(async (id) => await stores.addresses.get(id)))
    expect(answers).toEqual([{ id: MAX_INT64_ID, ...input }, created, undefined, created, undefined])
  })

  it('a get issued after a write was acknowledged sees it, whatever reads share its batch', async () => {
    const { students, addresses } = stores
    // Other readers keep every round busy, so the checked read always lands in a shared batch.
    let reading = true
    const readers = Array.from({ length: 8 }, async (_, n) => {
      while (reading) await students.get(n % 4)
    })
    try {
      for (let round = 0; round < 10; round++) {
        const replaced = { id: 1, firstName: 'Replaced', lastName: `Round${round}`, age: round }
        await students.replace(replaced)
        expect(await students.get(1)).toEqual(replaced)

        const created = await students.create({ firstName: 'Created', lastName: `Round${round}`, age: round })
        expect(await students.get(created.id)).toEqual(created)
        expect(await students.delete(created.id)).toEqual({ outcome: 'deleted' })
        expect(await students.get(created.id)).toBeUndefined()

        const put = { name: 'Ada Lovelace', city: `City${round}`, postalCode: `P${round}` }
        await addresses.put(MAX_INT64_ID, put)
        expect(await addresses.get(MAX_INT64_ID)).toEqual({ id: MAX_INT64_ID, ...put })
      }
    } finally {
      reading = false
      await Promise.all(readers)
    }
  })

  describe('when PostgreSQL is unreachable', () => {
    let proxy: TcpProxy
    let proxied: Stores

    beforeAll(async () => {
      const target = new URL(DATABASE_URL as string)
      proxy = await startTcpProxy(target.hostname, Number(target.port === '' ? 5432 : target.port))
      const url = new URL(database.url)
      url.hostname = '127.0.0.1'
      url.port = String(proxy.port)
      proxied = await openPostgresStores({ url: url.toString(), poolSize: 2, startupWaitMs: 0, queryTimeoutMs: 500, connectTimeoutMs: 500 })
    })
    afterEach(() => { proxy.restore() })
    afterAll(async () => {
      proxy?.restore()
      await proxied?.close()
      await proxy?.close()
    })

    /** Concurrent gets of different, equal and missing ids, students and addresses: every one must fail as unavailable. */
    async function everyGetFails (): Promise<void> {
      const gets = [
        proxied.students.get(0), proxied.students.get(1), proxied.students.get(0), proxied.students.get(99),
        proxied.addresses.get(MAX_INT64_ID), proxied.addresses.get(5n)
      ]
      const outcomes = await Promise.allSettled(gets)
      for (const outcome of outcomes) {
        expect(outcome.status).toBe('rejected')
        expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError)
      }
    }

    async function recovers (): Promise<void> {
      // The pool drops the failed connections and opens new ones.
      const [a, b] = await Promise.all([proxied.students.get(0), proxied.students.get(99)])
      expect(a).toEqual({ id: 0, firstName: 'First0', lastName: 'Last0', age: 20 })
      expect(b).toBeUndefined()
    }

    it('fails every waiting get with StoreUnavailableError when connections are dropped, then recovers', async () => {
      await recovers()
      proxy.cut()
      await everyGetFails()
      proxy.restore()
      await recovers()
    })

    it('fails every waiting get with StoreUnavailableError when the network stops answering (query timeout), then recovers', async () => {
      await recovers()
      proxy.freeze()
      await everyGetFails()
      proxy.restore()
      await recovers()
    })

    it('answers 503 to every concurrent GET by id over HTTP, then 200 again', async () => {
      const server = await startServer({}, { stores: proxied })
      const paths = ['/students/0', '/students/0', '/students/1', '/students/99', '/v2/students/2', `/addresses/${MAX_INT64_ID}`]
      try {
        await recovers()
        proxy.freeze()
        const during = await Promise.all(paths.map(async (path) => await request(`${server.origin}${path}`)))
        for (const res of during) {
          expect(res.status).toBe(503)
          expect(res.headers.get('retry-after')).toMatch(/^\d+$/)
        }
        proxy.restore()
        const after = await Promise.all(paths.map(async (path) => (await request(`${server.origin}${path}`)).status))
        expect(after).toEqual([200, 200, 200, 404, 200, 200])
      } finally {
        await server.close()
      }
    })
  })
})
