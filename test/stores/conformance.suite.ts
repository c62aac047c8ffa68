import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { kindLabel, type StoreKind } from './harness.js'
import type { AddressInput, Stores, Student, StudentInput } from '../helpers/built-ins.js'

/**
 * The one store conformance suite: every contract in src/stores/types.ts,
 * run unchanged against memory, SQLite and PostgreSQL.
 */
const MAX_ID = 9223372036854775807n
const ada: StudentInput = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }
const alan: StudentInput = { firstName: 'Alan', lastName: 'Turing', age: 41 }
const grace: StudentInput = { firstName: 'Grace', lastName: 'Hopper', age: 85 }
const home: AddressInput = { name: 'Home', city: 'Berlin', postalCode: '10115' }
const work: AddressInput = { name: 'Work', city: 'Paris', postalCode: '75001' }

/** Registers the suite for each kind: conformance.slow.test.ts (memory, SQLite) and conformance-pg.test.ts (PostgreSQL) call it. */
export function conformanceSuite (kinds: StoreKind[]): void {
  for (const kind of kinds) suiteOn(kind)
}

function suiteOn (kind: StoreKind): void {
  describe.skipIf(kind.skip !== undefined)(`${kindLabel(kind)} store${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
    let stores: Stores

    beforeAll(kind.setup)
    afterAll(kind.teardown)
    beforeEach(async () => { stores = await kind.fresh() })
    afterEach(async () => { await stores.close() })

    it('answers ping', async () => {
      await expect(stores.ping()).resolves.toBeUndefined()
    })

    describe('students', () => {
      it('starts empty', async () => {
        expect(await stores.students.list()).toEqual([])
        expect(await stores.students.get(0)).toBeUndefined()
        expect(await stores.students.get(Number.MAX_SAFE_INTEGER)).toBeUndefined()
      })

      it('numbers ids 0, 1, 2 in creation order and lists them ascending', async () => {
        expect(await stores.students.create(ada)).toEqual({ id: 0, ...ada })
        expect(await stores.students.create(alan)).toEqual({ id: 1, ...alan })
        expect(await stores.students.create(grace)).toEqual({ id: 2, ...grace })
        expect(await stores.students.get(1)).toEqual({ id: 1, ...alan })
        expect(await stores.students.list()).toEqual([{ id: 0, ...ada }, { id: 1, ...alan }, { id: 2, ...grace }])
      })

      it('after a delete, gives the next create id = records held, replacing the record stored there', async () => {
        await stores.students.create(ada)
        await stores.students.create(alan)
        await stores.students.create(grace)
        expect(await stores.students.delete(0)).toEqual({ outcome: 'deleted' })
        const d = { firstName: 'Dan', lastName: 'Ritchie', age: 70 }
        expect(await stores.students.create(d)).toEqual({ id: 2, ...d })
        expect(await stores.students.list()).toEqual([{ id: 1, ...alan }, { id: 2, ...d }])
        // Two records held, so the next create gets 2 again.
        expect((await stores.students.create(ada)).id).toBe(2)
        expect(await stores.students.delete(2)).toEqual({ outcome: 'deleted' })
        expect((await stores.students.create(grace)).id).toBe(1)
        expect(await stores.students.list()).toEqual([{ id: 1, ...grace }])
      })

      it('replaces an existing record and never creates one', async () => {
        await stores.students.create(ada)
        expect(await stores.students.replace({ id: 0, ...alan })).toEqual({ outcome: 'replaced', record: { id: 0, ...alan } })
        expect(await stores.students.get(0)).toEqual({ id: 0, ...alan })
        expect(await stores.students.replace({ id: 5, ...grace })).toEqual({ outcome: 'not-found' })
        expect(await stores.students.get(5)).toBeUndefined()
        expect(await stores.students.list()).toHaveLength(1)
      })

      it('applies write conditions on replace', async () => {
        const stored = await stores.students.create(ada)
        const stale: Student = { ...stored, age: 99 }
        expect(await stores.students.replace({ id: 0, ...alan }, { kind: 'matches', current: stale })).toEqual({ outcome: 'precondition-failed' })
        expect(await stores.students.replace({ id: 0, ...alan }, { kind: 'absent' })).toEqual({ outcome: 'precondition-failed' })
        expect(await stores.students.get(0)).toEqual(stored)
        expect(await stores.students.replace({ id: 0, ...alan }, { kind: 'matches', current: stored })).toEqual({ outcome: 'replaced', record: { id: 0, ...alan } })
        expect(await stores.students.replace({ id: 0, ...grace }, { kind: 'present' })).toEqual({ outcome: 'replaced', record: { id: 0, ...grace } })
        // A missing record is not-found whatever the condition.
        expect(await stores.students.replace({ id: 7, ...grace }, { kind: 'present' })).toEqual({ outcome: 'not-found' })
        expect(await stores.students.replace({ id: 7, ...grace }, { kind: 'matches', current: { id: 7, ...grace } })).toEqual({ outcome: 'not-found' })
      })

      it('deletes once, then reports not-found', async () => {
        await stores.students.create(ada)
        expect(await stores.students.delete(0)).toEqual({ outcome: 'deleted' })
        expect(await stores.students.get(0)).toBeUndefined()
        expect(await stores.students.delete(0)).toEqual({ outcome: 'not-found' })
        expect(await stores.students.list()).toEqual([])
      })

      it('applies write conditions on delete and keeps the count right', async () => {
        const stored = await stores.students.create(ada)
        await stores.students.create(alan)
        expect(await stores.students.delete(0, { kind: 'matches', current: { ...stored, lastName: 'Byron' } })).toEqual({ outcome: 'precondition-failed' })
        expect(await stores.students.delete(0, { kind: 'absent' })).toEqual({ outcome: 'precondition-failed' })
        expect(await stores.students.get(0)).toEqual(stored)
        expect(await stores.students.delete(0, { kind: 'matches', current: stored })).toEqual({ outcome: 'deleted' })
        expect(await stores.students.delete(9, { kind: 'present' })).toEqual({ outcome: 'not-found' })
        expect((await stores.students.create(grace)).id).toBe(1) // one record held
      })

      it('stores text and numbers exactly, quotes and all', async () => {
        const odd = { firstName: "Robert'); DROP TABLE rqs_students;--", lastName: 'Ünïcødé 🎓 "x" \\ %_', age: 2147483647 }
        const long = { firstName: 'x'.repeat(200), lastName: '', age: 0 }
        await stores.students.create(odd)
        await stores.students.create(long)
        expect(await stores.students.get(0)).toEqual({ id: 0, ...odd })
        expect(await stores.students.get(1)).toEqual({ id: 1, ...long })
      })

      it('gives concurrent creates exactly the ids a one-at-a-time order would', async () => {
        const created = await Promise.all(Array.from({ length: 40 }, (_, i) => stores.students.create({ ...ada, age: i })))
        expect(created.map((s) => s.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i))
        const listed = await stores.students.list()
        expect(listed).toEqual([...created].sort((a, b) => a.id - b.id))
      })

      it('follows the id rule for any sequence of operations (property, against a reference model)', async () => {
        const input = fc.record({ firstName: fc.string({ maxLength: 8 }), lastName: fc.string({ maxLength: 8 }), age: fc.integer({ min: 0, max: 150 }) })
        const command = fc.oneof(
          { arbitrary: fc.record({ op: fc.constant('create' as const), input }), weight: 4 },
          { arbitrary: fc.record({ op: fc.constant('delete' as const), id: fc.nat(8) }), weight: 2 },
          { arbitrary: fc.record({ op: fc.constant('replace' as const), id: fc.nat(8), input }), weight: 1 },
          { arbitrary: fc.record({ op: fc.constant('get' as const), id: fc.nat(8) }), weight: 1 }
        )
        const numRuns = kind.name === 'memory' ? 200 : 40
        await fc.assert(fc.asyncProperty(fc.array(command, { maxLength: 25 }), async (commands) => {
          const run = await kind.fresh()
          try {
            const model = new ReferenceStudents()
            for (const c of commands) {
              switch (c.op) {
                case 'create': expect(await run.students.create(c.input)).toEqual(model.create(c.input)); break
                case 'delete': expect(await run.students.delete(c.id)).toEqual(model.delete(c.id)); break
                case 'replace': expect(await run.students.replace({ id: c.id, ...c.input })).toEqual(model.replace({ id: c.id, ...c.input })); break
                case 'get': expect(await run.students.get(c.id)).toEqual(model.get(c.id)); break
              }
            }
            expect(await run.students.list()).toEqual(model.list())
          } finally {
            await run.close()
          }
        }), { numRuns })
      })
    })

    describe('addresses', () => {
      it('creates records under distinct, positive 64-bit ids', async () => {
        const a = await stores.addresses.create(home)
        const b = await stores.addresses.create(work)
        expect(typeof a.id).toBe('bigint')
        expect(a.id).toBeGreaterThan(0n)
        expect(b.id).not.toBe(a.id)
        expect(await stores.addresses.get(a.id)).toEqual({ id: a.id, ...home })
        expect(await stores.addresses.get(b.id)).toEqual({ id: b.id, ...work })
        expect(await stores.addresses.get(424242n)).toBeUndefined()
      })

      it('PUT stores a new record under an unknown id, then updates city and postal code only, idempotently', async () => {
        expect(await stores.addresses.put(77n, home)).toEqual({ outcome: 'created', record: { id: 77n, ...home } })
        const moved = { name: 'Ignored', city: 'Hamburg', postalCode: '20095' }
        const updated = { outcome: 'updated', record: { id: 77n, name: 'Home', city: 'Hamburg', postalCode: '20095' } }
        expect(await stores.addresses.put(77n, moved)).toEqual(updated)
        expect(await stores.addresses.put(77n, moved)).toEqual(updated)
        expect(await stores.addresses.get(77n)).toEqual(updated.record)
      })

      it('never generates an id a PUT already holds', async () => {
        for (const id of [1n, 2n, 3n, 5n]) await stores.addresses.put(id, { ...work, name: `put ${id}` })
        const created = await Promise.all([1, 2, 3, 4].map((i) => stores.addresses.create({ ...home, name: `post ${i}` })))
        const ids = created.map((a) => a.id)
        expect(new Set(ids).size).toBe(4)
        for (const id of ids) expect([1n, 2n, 3n, 5n]).not.toContain(id)
        for (const id of [1n, 2n, 3n, 5n]) expect((await stores.addresses.get(id))?.name).toBe(`put ${id}`)
        for (const a of created) expect(await stores.addresses.get(a.id)).toEqual(a)
      })

      it('keeps the largest 64-bit id exactly', async () => {
        expect(await stores.addresses.put(MAX_ID, home)).toEqual({ outcome: 'created', record: { id: MAX_ID, ...home } })
        expect(await stores.addresses.get(MAX_ID)).toEqual({ id: MAX_ID, ...home })
        expect(await stores.addresses.get(MAX_ID - 1n)).toBeUndefined()
        const next = await stores.addresses.create(work) // generation is unaffected by a PUT far ahead
        expect(next.id).not.toBe(MAX_ID)
      })

      it('lists ascending by id with limit, after, city and postal code', async () => {
        for (const id of [30n, 10n, 20n, 40n]) await stores.addresses.put(id, id === 20n ? work : { ...home, name: `n${id}` })
        const ids = async (q: Parameters<Stores['addresses']['list']>[0]): Promise<bigint[]> => (await stores.addresses.list(q)).map((a) => a.id)
        expect(await ids({ limit: 10 })).toEqual([10n, 20n, 30n, 40n])
        expect(await ids({ limit: 2 })).toEqual([10n, 20n])
        expect(await ids({ limit: 2, after: 20n })).toEqual([30n, 40n])
        expect(await ids({ limit: 10, city: 'Berlin' })).toEqual([10n, 30n, 40n])
        expect(await ids({ limit: 10, city: 'Berlin', after: 10n, postalCode: '10115' })).toEqual([30n, 40n])
        expect(await ids({ limit: 10, postalCode: '75001' })).toEqual([20n])
        expect(await ids({ limit: 10, city: 'Nowhere' })).toEqual([])
        expect((await stores.addresses.list({ limit: 1, after: 30n }))[0]).toEqual({ id: 40n, ...home, name: 'n40' })
      })

      it('applies write conditions on PUT', async () => {
        expect(await stores.addresses.put(9n, home, { kind: 'present' })).toEqual({ outcome: 'precondition-failed' })
        expect(await stores.addresses.put(9n, home, { kind: 'matches', current: { id: 9n, ...home } })).toEqual({ outcome: 'precondition-failed' })
        expect(await stores.addresses.get(9n)).toBeUndefined()
        expect(await stores.addresses.put(9n, home, { kind: 'absent' })).toEqual({ outcome: 'created', record: { id: 9n, ...home } })
        expect(await stores.addresses.put(9n, work, { kind: 'absent' })).toEqual({ outcome: 'precondition-failed' })
        expect(await stores.addresses.put(9n, work, { kind: 'matches', current: { id: 9n, ...home, city: 'Stale' } })).toEqual({ outcome: 'precondition-failed' })
        expect(await stores.addresses.put(9n, work, { kind: 'matches', current: { id: 8n, ...home } })).toEqual({ outcome: 'precondition-failed' })
        expect(await stores.addresses.get(9n)).toEqual({ id: 9n, ...home })
        const moved = { id: 9n, name: 'Home', city: 'Paris', postalCode: '75001' }
        expect(await stores.addresses.put(9n, work, { kind: 'matches', current: { id: 9n, ...home } })).toEqual({ outcome: 'updated', record: moved })
        expect(await stores.addresses.put(9n, home, { kind: 'present' })).toEqual({ outcome: 'updated', record: { id: 9n, ...home } })
      })

      it('deletes once, with conditions; a missing record is not-found whatever the condition', async () => {
        const a = await stores.addresses.create(home)
        expect(await stores.addresses.delete(a.id, { kind: 'matches', current: { ...a, city: 'Stale' } })).toEqual({ outcome: 'precondition-failed' })
        expect(await stores.addresses.delete(a.id, { kind: 'absent' })).toEqual({ outcome: 'precondition-failed' })
        expect(await stores.addresses.get(a.id)).toEqual(a)
        expect(await stores.addresses.delete(a.id, { kind: 'matches', current: a })).toEqual({ outcome: 'deleted' })
        expect(await stores.addresses.delete(a.id, { kind: 'matches', current: a })).toEqual({ outcome: 'not-found' })
        const b = await stores.addresses.create(work)
        expect(await stores.addresses.delete(b.id)).toEqual({ outcome: 'deleted' })
        expect(await stores.addresses.delete(b.id)).toEqual({ outcome: 'not-found' })
        expect(await stores.addresses.get(b.id)).toBeUndefined()
      })

      it('keeps one record under concurrent PUTs on one id', async () => {
        const results = await Promise.all(Array.from({ length: 20 }, (_, i) => stores.addresses.put(500n, { name: `n${i}`, city: `c${i}`, postalCode: `p${i}` })))
        const created = results.filter((r) => r.outcome === 'created')
        expect(created).toHaveLength(1)
        const stored = await stores.addresses.get(500n)
        const creator = created[0]?.outcome === 'created' ? created[0].record : undefined
        expect(stored?.name).toBe(creator?.name)
        expect(Array.from({ length: 20 }, (_, i) => `c${i}`)).toContain(stored?.city)
        expect(stored?.postalCode).toBe(`p${stored?.city.slice(1)}`) // city and postal code from the same PUT
        expect(await stores.addresses.list({ limit: 10 })).toEqual([stored])
      })
    })
  })
}

/** The spec's id rule, literally: a map whose size at creation is the new id. */
class ReferenceStudents {
  readonly records = new Map<number, Student>()

  create (input: StudentInput): Student {
    const s = { id: this.records.size, ...input }
    this.records.set(s.id, s)
    return s
  }

  delete (id: number): { outcome: 'deleted' | 'not-found' } {
    return { outcome: this.records.delete(id) ? 'deleted' : 'not-found' }
  }

  replace (s: Student): unknown {
    if (!this.records.has(s.id)) return { outcome: 'not-found' }
    this.records.set(s.id, s)
    return { outcome: 'replaced', record: s }
  }

  get (id: number): Student | undefined {
    return this.records.get(id)
  }

  list (): Student[] {
    return [...this.records.values()].sort((a, b) => a.id - b.id)
  }
}
