import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IdempotencyKeyUsedError, UnitOfWorkStalledError, type KeyedWrite, type RecordWrites, type UnitOfWork } from '../../src/domain/index.js'
import type { Stores } from '../helpers/built-ins.js'
import { kindLabel, type StoreKind } from './harness.js'

/**
 * RecordStores.atomically on every store (POST /batch's transaction): the
 * writes of a unit over several collections commit together, or none of
 * them, their changes and id rules included; a keyed unit keeps its answer
 * with them; single writes beside units all land.
 */
const ada = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }
const alan = { firstName: 'Alan', lastName: 'Turing', age: 41 }
const home = { name: 'Home', city: 'Berlin', postalCode: '10115' }

function collection (unit: UnitOfWork, name: string): RecordWrites {
  const found = unit.collections.get(name)
  if (found === undefined) throw new Error(`no ${name} in the unit`)
  return found
}

async function failure (work: Promise<unknown>): Promise<unknown> {
  return await work.then(() => { throw new Error('expected the unit to fail') }, (err: unknown) => err)
}

async function latest (stores: Stores): Promise<number> {
  return (await stores.changes.window()).latest
}

export function unitOfWorkSuite (kinds: StoreKind[]): void {
  for (const kind of kinds) suiteOn(kind)
}

function suiteOn (kind: StoreKind): void {
  describe.skipIf(kind.skip !== undefined)(`${kindLabel(kind)} store, units of work${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
    beforeAll(kind.setup)
    afterAll(kind.teardown)

    it('commits the writes of several collections together; the unit sees its own writes', async () => {
      const stores = await kind.fresh()
      try {
        const before = await latest(stores)
        const result = await stores.atomically(async (unit) => {
          const students = collection(unit, 'students')
          const created = await students.create(ada)
          expect(await students.get(created.record.id)).toEqual(created.record)
          const address = await collection(unit, 'addresses').create(home)
          const replaced = await students.put(created.record.id, alan)
          return { student: replaced, address: address.record }
        })
        expect(result.student.outcome).toBe('replaced')
        expect(await stores.students.list()).toEqual([{ id: 0, ...alan }])
        expect(await stores.addresses.get(result.address.id as bigint)).toEqual(result.address)
        const changes = await stores.changes.since(before, 10)
        expect(changes.map((c) => `${c.service}.${c.kind}`)).toEqual(['students.created', 'addresses.created', 'students.replaced'])
      } finally {
        await stores.close()
      }
    })

    it('applies nothing when the work fails: records, deletes, the count id rule and the change feed are as before', async () => {
      const stores = await kind.fresh()
      try {
        const kept = await stores.students.create(ada)
        await stores.students.create(alan)
        const before = await latest(stores)
        const err = await failure(stores.atomically(async (unit) => {
          const students = collection(unit, 'students')
          await students.create({ ...ada, age: 1 })
          await students.put(kept.id, { ...ada, age: 2 })
          await students.delete(1)
          await collection(unit, 'addresses').create(home)
          throw new RangeError('the third request failed')
        }))
        expect(err).toBeInstanceOf(RangeError)
        expect(await stores.students.list()).toEqual([{ id: 0, ...ada }, { id: 1, ...alan }])
        expect(await stores.addresses.count({ where: [] })).toBe(0)
        expect(await latest(stores)).toBe(before)
        // The count rule counts the records held: the id a rolled-back create took is the next one's again.
        expect((await stores.students.create(ada)).id).toBe(2)
      } finally {
        await stores.close()
      }
    })

    it('keeps a keyed unit\'s answer with its writes, and nothing of one that failed', async () => {
      const stores = await kind.fresh()
      try {
        const keyed = (key: string): KeyedWrite<number> => ({ key, fingerprint: `fp-${key}`, answer: (n) => ({ status: 200, headers: {}, body: String(n) }) })
        const written = await stores.atomically(async (unit) => (await collection(unit, 'students').create(ada)).record.id as number, keyed('u1'))
        const again = await failure(stores.atomically(async (unit) => (await collection(unit, 'students').create(ada)).record.id as number, keyed('u1')))
        expect(again).toBeInstanceOf(IdempotencyKeyUsedError)
        expect((again as IdempotencyKeyUsedError).kept).toEqual({ fingerprint: 'fp-u1', answer: { status: 200, headers: {}, body: String(written) } })
        expect(await stores.students.count({ where: [] })).toBe(1)
        await failure(stores.atomically(async (unit) => { await collection(unit, 'students').create(alan); throw new Error('no') }, keyed('u2')))
        expect(await stores.students.keptWrite?.('u2')).toBeUndefined()
        await stores.atomically(async (unit) => (await collection(unit, 'students').create(alan)).record.id as number, keyed('u2'))
        expect(await stores.students.count({ where: [] })).toBe(2)
      } finally {
        await stores.close()
      }
    })

    it('lets single writes run beside units: every one lands', async () => {
      const stores = await kind.fresh()
      try {
        await Promise.all([
          ...Array.from({ length: 10 }, async () => await stores.atomically(async (unit) => {
            await collection(unit, 'addresses').create(home)
            await collection(unit, 'addresses').create(home)
          })),
          ...Array.from({ length: 10 }, async () => await stores.addresses.create(home))
        ])
        expect(await stores.addresses.count({ where: [] })).toBe(30)
      } finally {
        await stores.close()
      }
    })

    it.skipIf(kind.name === 'postgres')('rolls back a unit that waits for anything but its own operations (the synchronous stores)', async () => {
      const stores = await kind.fresh()
      try {
        const err = await failure(stores.atomically(async (unit) => {
          await collection(unit, 'students').create(ada)
          // Another turn of the event loop: queued after the unit's guard, so it comes after it however loaded the
          // machine (a 5 ms timer could fire first when the loop was held up longer, and the unit then completed).
          await new Promise((resolve) => setImmediate(resolve))
          await collection(unit, 'students').create(alan)
        }))
        expect(err).toBeInstanceOf(UnitOfWorkStalledError)
        expect(await stores.students.count({ where: [] })).toBe(0)
        expect((await stores.students.create(alan)).id).toBe(0)
      } finally {
        await stores.close()
      }
    })
  })
}
