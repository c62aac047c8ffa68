import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IdempotencyKeyUsedError } from '../../src/domain/index.js'
import type { DeleteResult, KeptAnswer, KeyedWrite, ReplaceResult } from '../../src/domain/index.js'
import { FakeClock } from '../helpers/clock.js'
import { kindLabel, type StoreKind } from './harness.js'
import type { Address, PutResult, Student, StudentInput } from '../helpers/built-ins.js'

/**
 * Keyed writes on every store: the key and the answer are kept with the
 * write (atomically in the SQL stores), a second write under the key writes
 * nothing and hands back the kept answer, concurrent writes under one key
 * write once, a write that changed nothing keeps nothing, and keys expire.
 */
const ada: StudentInput = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }
const home = { name: 'Home', city: 'Berlin', postalCode: '10115' }

function keyed<R> (key: string, fingerprint = `fp-${key}`, answer: (r: R) => KeptAnswer | undefined = (r) => ({ status: 201, headers: { etag: '"x"' }, body: JSON.stringify(r, (_k, v: unknown) => typeof v === 'bigint' ? v.toString() : v) })): KeyedWrite<R> {
  return { key, fingerprint, answer }
}

async function usedKey (write: Promise<unknown>): Promise<IdempotencyKeyUsedError> {
  const err = await write.then(() => undefined, (e: unknown) => e)
  expect(err).toBeInstanceOf(IdempotencyKeyUsedError)
  return err as IdempotencyKeyUsedError
}

/** Registers the suite for each kind: idempotency.test.ts (memory, SQLite) and idempotency-pg.test.ts (PostgreSQL) call it. */
export function idempotencySuite (kinds: StoreKind[]): void {
  for (const kind of kinds) suiteOn(kind)
}

function suiteOn (kind: StoreKind): void {
  describe.skipIf(kind.skip !== undefined)(`${kindLabel(kind)} store, Idempotency-Key${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
    beforeAll(kind.setup)
    afterAll(kind.teardown)

    it('keeps the answer with the write; the same key again writes nothing and returns it', async () => {
      const stores = await kind.fresh()
      try {
        const created = await stores.students.create(ada, keyed<Student>('k1'))
        const kept = { fingerprint: 'fp-k1', answer: { status: 201, headers: { etag: '"x"' }, body: JSON.stringify(created) } }
        expect(await stores.students.keptWrite?.('k1')).toEqual(kept)
        const again = await usedKey(stores.students.create(ada, keyed<Student>('k1', 'fp-other')))
        expect(again.kept).toEqual(kept)
        expect(await stores.students.list()).toEqual([created])
        expect(await stores.students.keptWrite?.('nope')).toBeUndefined()
      } finally {
        await stores.close()
      }
    })

    it('covers every write of both record stores, with one key space', async () => {
      const stores = await kind.fresh()
      try {
        const s = await stores.students.create(ada)
        await stores.students.replace({ ...s, age: 37 }, undefined, keyed<ReplaceResult<Student>>('replace'))
        await usedKey(stores.students.replace({ ...s, age: 99 }, undefined, keyed<ReplaceResult<Student>>('replace')))
        expect((await stores.students.get(s.id))?.age).toBe(37)
        await stores.students.delete(s.id, { kind: 'present' }, keyed<DeleteResult>('delete'))
        await usedKey(stores.students.delete(s.id, undefined, keyed<DeleteResult>('delete')))

        const a = await stores.addresses.create(home, keyed<Address>('address'))
        await usedKey(stores.addresses.create(home, keyed<Address>('address')))
        await usedKey(stores.addresses.put(5n, home, undefined, keyed<PutResult>('address'))) // the key space is shared
        await stores.addresses.put(5n, home, undefined, keyed<PutResult>('put'))
        await usedKey(stores.addresses.put(5n, { ...home, city: 'Kiel' }, undefined, keyed<PutResult>('put')))
        await stores.addresses.delete(a.id, { kind: 'matches', current: a }, keyed<DeleteResult>('del-address'))
        await usedKey(stores.addresses.delete(5n, undefined, keyed<DeleteResult>('del-address')))
        expect(await stores.addresses.list({ limit: 10 })).toEqual([{ id: 5n, ...home }])
        expect(await stores.addresses.keptWrite?.('put')).toMatchObject({ fingerprint: 'fp-put' })
      } finally {
        await stores.close()
      }
    })

    it('keeps nothing for a write that changed nothing, so the key stays free', async () => {
      const stores = await kind.fresh()
      try {
        const nothing = (r: ReplaceResult<Student>): KeptAnswer | undefined => r.outcome === 'replaced' ? { status: 200, headers: {}, body: 'ok' } : undefined
        expect(await stores.students.replace({ id: 3, ...ada }, undefined, keyed('free', 'fp', nothing))).toEqual({ outcome: 'not-found' })
        expect(await stores.students.keptWrite?.('free')).toBeUndefined()
        await stores.students.create(ada)
        expect((await stores.students.replace({ id: 0, ...ada, age: 1 }, undefined, keyed('free', 'fp', nothing))).outcome).toBe('replaced')
        expect(await stores.students.keptWrite?.('free')).toEqual({ fingerprint: 'fp', answer: { status: 200, headers: {}, body: 'ok' } })
      } finally {
        await stores.close()
      }
    })

    it('lets concurrent writes under one key write exactly once', async () => {
      const stores = await kind.fresh()
      try {
        const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => stores.students.create({ ...ada, age: i }, keyed<Student>('race'))))
        const written = results.filter((r) => r.status === 'fulfilled')
        expect(written).toHaveLength(1)
        for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(IdempotencyKeyUsedError)
        expect(await stores.students.list()).toEqual([(written[0] as PromiseFulfilledResult<Student>).value])
      } finally {
        await stores.close()
      }
    })

    it('forgets a key after the retention window, measured on the store\'s clock', async () => {
      const retentionMs = 60_000
      const clock = new FakeClock()
      const stores = await kind.fresh({ idempotencyRetentionMs: retentionMs, clock })
      try {
        await stores.students.create(ada, keyed<Student>('short'))
        clock.advance(retentionMs - 1)
        await usedKey(stores.students.create(ada, keyed<Student>('short'))) // kept to the last millisecond
        expect(await stores.students.keptWrite?.('short')).toMatchObject({ fingerprint: 'fp-short' })
        clock.advance(1)
        expect(await stores.students.keptWrite?.('short')).toBeUndefined()
        await stores.students.create(ada, keyed<Student>('short', 'fp-new')) // the expired key is taken over
        expect(await stores.students.keptWrite?.('short')).toMatchObject({ fingerprint: 'fp-new' })
        expect(await stores.students.list()).toHaveLength(2)
      } finally {
        await stores.close()
      }
    })

    it.skipIf(!kind.durable)('writes nothing when keeping the answer fails (one transaction)', async () => {
      const stores = await kind.fresh()
      try {
        const failing = keyed<Student>('boom', 'fp', () => { throw new Error('cannot render') })
        await expect(stores.students.create(ada, failing)).rejects.toThrow('cannot render')
        expect(await stores.students.list()).toEqual([])
        expect(await stores.students.keptWrite?.('boom')).toBeUndefined()
        expect((await stores.students.create(ada)).id).toBe(0) // the count did not move either
      } finally {
        await stores.close()
      }
    })

    it.skipIf(!kind.durable)('keeps keys across a restart and between instances', async () => {
      const first = await kind.fresh()
      let created: Student
      try {
        created = await first.students.create(ada, keyed<Student>('lasting'))
      } finally {
        await first.close()
      }
      const second = await kind.reopen()
      try {
        expect(await second?.students.keptWrite?.('lasting')).toMatchObject({ fingerprint: 'fp-lasting' })
        await usedKey((second as NonNullable<typeof second>).students.create(ada, keyed<Student>('lasting')))
        expect(await second?.students.list()).toEqual([created])
      } finally {
        await second?.close()
      }
    })
  })
}
