import { describe, expect, it } from 'vitest'
import { IdempotencyKeyUsedError } from '../../src/domain/index.js'
import { memoryStores } from '../helpers/built-ins.js'

/** The revision the HTTP layer keeps serialised lists by (src/http/query/kept-list.ts): every write moves it, nothing else does. */
async function * once<T> (records: T[]): AsyncGenerator<T[]> { yield records }

const ada = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }
const berlin = { name: 'Ada', city: 'Berlin', postalCode: '10115' }

describe('the memory student store\'s revision', () => {
  it('advances on create, replace, delete, id reuse and import; not on reads or refused writes', async () => {
    const store = memoryStores({ studentIds: 'count' }).students
    const moves = async (step: () => Promise<unknown>): Promise<boolean> => {
      const before = (store.revision?.current ?? -1)
      await step()
      return (store.revision?.current ?? -1) !== before
    }
    expect(await moves(async () => await store.create(ada))).toBe(true)
    expect(await moves(async () => await store.create(ada))).toBe(true)
    expect(await moves(async () => await store.replace({ id: 0, ...ada, age: 37 }))).toBe(true)
    expect(await moves(async () => await store.delete(0))).toBe(true)
    expect(await moves(async () => await store.create(ada))).toBe(true) // id 1 again: the count rule reuses it
    expect(await moves(async () => await store.importAll(once([{ id: 7, ...ada }])))).toBe(true)

    expect(await moves(async () => await store.list())).toBe(false)
    expect(await moves(async () => await store.get(1))).toBe(false)
    expect(await moves(async () => await store.query({ where: [], sort: [] }))).toBe(false)
    expect(await moves(async () => await store.replace({ id: 99, ...ada }))).toBe(false) // not found
    expect(await moves(async () => await store.delete(99))).toBe(false)
    expect(await moves(async () => await store.replace({ id: 1, ...ada }, { kind: 'matches', current: { id: 1, ...ada, age: 1 } }))).toBe(false)
  })

  it('does not move when an Idempotency-Key replays a write', async () => {
    const store = memoryStores({ studentIds: 'count' }).students
    const keyed = { key: 'k', fingerprint: 'f', answer: () => ({ status: 201, headers: {}, body: '' }) }
    await store.create(ada, keyed)
    const at = (store.revision?.current ?? -1)
    await expect(store.create(ada, keyed)).rejects.toBeInstanceOf(IdempotencyKeyUsedError)
    expect((store.revision?.current ?? -1)).toBe(at)
  })
})

describe('the memory address store\'s revision', () => {
  it('advances on create, put (update and create), delete and import; not on reads', async () => {
    const store = memoryStores().addresses
    const revisions = [(store.revision?.current ?? -1)]
    const step = async (write: () => Promise<unknown>): Promise<void> => { await write(); revisions.push((store.revision?.current ?? -1)) }
    await step(async () => await store.create(berlin))
    await step(async () => await store.put(1n, { ...berlin, city: 'Bonn' }))
    await step(async () => await store.put(5n, berlin))
    await step(async () => await store.delete(5n))
    await step(async () => await store.importAll(once([{ id: 9n, ...berlin }])))
    expect(new Set(revisions).size).toBe(revisions.length)

    const at = (store.revision?.current ?? -1)
    await store.get(1n)
    await store.query({ where: [], sort: [] })
    await store.delete(12345n) // nothing there
    expect((store.revision?.current ?? -1)).toBe(at)
  })
})
