import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { StoreKind } from './harness.js'
import type { Student, StudentInput } from '../helpers/built-ins.js'

/**
 * --student-ids sequence on every store: an id is never issued twice, so no
 * acknowledged create is ever overwritten; and `count` (the spec's rule, the
 * default) keeps the high-water mark too, so switching never reuses an id.
 */
const person = (i: number): StudentInput => ({ firstName: `F${i}`, lastName: `L${i}`, age: i })

/** Registers the suite for each kind: student-ids.test.ts (memory, SQLite) and student-ids-pg.test.ts (PostgreSQL) call it. */
export function studentIdsSuite (kinds: StoreKind[]): void {
  for (const kind of kinds) suiteOn(kind)
}

function suiteOn (kind: StoreKind): void {
  describe.skipIf(kind.skip !== undefined)(`${kind.name} store, --student-ids sequence${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
    beforeAll(kind.setup)
    afterAll(kind.teardown)

    it('gives one past the highest id ever issued, so a create after deletes overwrites nothing', async () => {
      const stores = await kind.fresh({ studentIds: 'sequence' })
      try {
        const s = stores.students
        expect((await s.create(person(0))).id).toBe(0)
        expect((await s.create(person(1))).id).toBe(1)
        expect((await s.create(person(2))).id).toBe(2)
        expect(await s.delete(2)).toEqual({ outcome: 'deleted' })
        expect(await s.delete(0)).toEqual({ outcome: 'deleted' })
        // `count` would give 1 here and overwrite student 1.
        expect(await s.create(person(3))).toEqual({ id: 3, ...person(3) })
        expect(await s.list()).toEqual([{ id: 1, ...person(1) }, { id: 3, ...person(3) }])
        expect(await s.delete(3)).toEqual({ outcome: 'deleted' })
        expect(await s.delete(1)).toEqual({ outcome: 'deleted' })
        expect((await s.create(person(4))).id).toBe(4) // empty again, still no reuse
      } finally {
        await stores.close()
      }
    })

    it('gives concurrent creates distinct ids and keeps every one', async () => {
      const stores = await kind.fresh({ studentIds: 'sequence' })
      try {
        await stores.students.create(person(0))
        await stores.students.delete(0)
        const created = await Promise.all(Array.from({ length: 30 }, (_, i) => stores.students.create(person(i))))
        expect(created.map((s) => s.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1))
        expect(await stores.students.list()).toEqual([...created].sort((a, b) => a.id - b.id))
      } finally {
        await stores.close()
      }
    })

    it('never overwrites an acknowledged create, for any sequence of operations (property)', async () => {
      const command = fc.oneof(
        { arbitrary: fc.constant({ op: 'create' as const }), weight: 3 },
        { arbitrary: fc.record({ op: fc.constant('delete' as const), id: fc.nat(10) }), weight: 2 }
      )
      await fc.assert(fc.asyncProperty(fc.array(command, { maxLength: 20 }), async (commands) => {
        const stores = await kind.fresh({ studentIds: 'sequence' })
        try {
          const held = new Map<number, Student>()
          let next = 0
          for (const [i, c] of commands.entries()) {
            if (c.op === 'create') {
              const s = await stores.students.create(person(i))
              expect(s.id).toBe(next++)
              held.set(s.id, s)
            } else {
              expect((await stores.students.delete(c.id)).outcome).toBe(held.delete(c.id) ? 'deleted' : 'not-found')
            }
          }
          expect(await stores.students.list()).toEqual([...held.values()].sort((a, b) => a.id - b.id))
        } finally {
          await stores.close()
        }
      }), { numRuns: kind.name === 'memory' ? 100 : 15 })
    })

    it.skipIf(!kind.durable)('keeps counting after a restart, and after creates under the count rule', async () => {
      // Under `count` (the spec): 0, 1, 2, delete 2, create → 2 again; the highest ever issued is 2.
      const first = await kind.fresh({ studentIds: 'count' })
      try {
        for (let i = 0; i < 3; i++) await first.students.create(person(i))
        await first.students.delete(2)
        expect((await first.students.create(person(9))).id).toBe(2)
        await first.students.delete(2)
        await first.students.delete(1)
      } finally {
        await first.close()
      }
      const second = await kind.reopen({ studentIds: 'sequence' })
      if (second === undefined) throw new Error('durable store did not reopen')
      try {
        expect((await second.students.create(person(3))).id).toBe(3)
        expect((await second.students.list()).map((s) => s.id)).toEqual([0, 3])
      } finally {
        await second.close()
      }
      const third = await kind.reopen({ studentIds: 'sequence' })
      try {
        expect((await third?.students.create(person(4)))?.id).toBe(4)
      } finally {
        await third?.close()
      }
    })
  })
}
