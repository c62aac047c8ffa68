import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Change } from '../../src/domain/index.js'
import { kindLabel, type StoreKind } from './harness.js'
import type { Stores } from '../helpers/built-ins.js'

/**
 * The change log (issue 14) against every store: each write records one
 * change in its own transaction, numbered without gaps in commit order,
 * readable by position and delivered to subscribers, also across instances.
 */
const MAX_ID = 9223372036854775807n
export const ada = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }
export const alan = { firstName: 'Alan', lastName: 'Turing', age: 41 }
export const home = { name: 'Home', city: 'Berlin', postalCode: '10115' }

/** What a test compares: the change without its time. */
export function shape (change: Change): Omit<Change, 'at'> {
  const { at: _at, ...rest } = change
  return rest
}

/** Collects what a subscription delivers. */
export async function collect (stores: Stores): Promise<{ changes: Change[], position: number, stop: () => void }> {
  const changes: Change[] = []
  const subscription = await stores.changes.subscribe((change) => { changes.push(change) })
  return { changes, position: subscription.position, stop: subscription.unsubscribe }
}

export async function until (condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/**
 * Waits (a millisecond or two) until the wall clock has passed `at`, so that
 * the next change the database stamps is later than one stamped at `at`: the
 * SQL stores' triggers stamp changes with the database's clock, in whole
 * milliseconds as JavaScript reads them. The store's clock, which decides what
 * is old enough to prune, is the test's to move.
 */
export async function pastStamp (at: Date): Promise<void> {
  while (Date.now() < at.getTime() + 2) await new Promise((resolve) => setTimeout(resolve, 1))
}

/** Registers the suite for each kind: changes.test.ts (memory, SQLite) and changes-pg.test.ts (PostgreSQL) call it. */
export function changeLogSuite (kinds: StoreKind[]): void {
  for (const kind of kinds) suiteOn(kind)
}

function suiteOn (kind: StoreKind): void {
  describe.skipIf(kind.skip !== undefined)(`${kindLabel(kind)} store: change log${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
    let stores: Stores
    let base: number

    beforeAll(kind.setup)
    afterAll(kind.teardown)
    beforeEach(async () => {
      stores = await kind.fresh()
      base = (await stores.changes.window()).latest
    })
    afterEach(async () => { await stores.close() })

    it('records every create, replace and delete of both collections with the record as the write left it, and nothing for a write that changed nothing', async () => {
      const first = await stores.students.create(ada)
      const second = await stores.students.create(alan)
      await stores.students.replace({ ...first, age: 37 })
      expect(await stores.students.replace({ id: 99, ...ada })).toEqual({ outcome: 'not-found' })
      expect(await stores.students.delete(second.id, { kind: 'matches', current: { ...second, age: 1 } })).toEqual({ outcome: 'precondition-failed' })
      await stores.students.delete(second.id)
      const created = await stores.addresses.create(home)
      await stores.addresses.put(MAX_ID, { name: 'Max', city: 'Kiel', postalCode: '24103' })
      await stores.addresses.put(MAX_ID, { name: 'ignored on update', city: 'Bonn', postalCode: '53111' })
      expect(await stores.addresses.put(MAX_ID, home, { kind: 'absent' })).toEqual({ outcome: 'precondition-failed' })
      await stores.addresses.delete(created.id)
      expect(await stores.addresses.delete(created.id)).toEqual({ outcome: 'not-found' })
      // A keyed write records its change in the same step as its answer.
      await stores.students.create({ firstName: 'Grace', lastName: 'Hopper', age: 85 }, { key: 'k1', fingerprint: 'f', answer: () => ({ status: 201, headers: {}, body: '' }) })

      const changes = await stores.changes.since(base, 100)
      expect(changes.map(shape)).toEqual([
        { seq: base + 1, service: 'students', kind: 'created', id: 0, record: { id: 0, ...ada } },
        { seq: base + 2, service: 'students', kind: 'created', id: 1, record: { id: 1, ...alan } },
        { seq: base + 3, service: 'students', kind: 'replaced', id: 0, record: { id: 0, ...ada, age: 37 } },
        { seq: base + 4, service: 'students', kind: 'deleted', id: 1, record: null },
        { seq: base + 5, service: 'addresses', kind: 'created', id: created.id, record: { id: created.id, ...home } },
        { seq: base + 6, service: 'addresses', kind: 'created', id: MAX_ID, record: { id: MAX_ID, name: 'Max', city: 'Kiel', postalCode: '24103' } },
        { seq: base + 7, service: 'addresses', kind: 'replaced', id: MAX_ID, record: { id: MAX_ID, name: 'Max', city: 'Bonn', postalCode: '53111' } },
        { seq: base + 8, service: 'addresses', kind: 'deleted', id: created.id, record: null },
        { seq: base + 9, service: 'students', kind: 'created', id: 1, record: { id: 1, firstName: 'Grace', lastName: 'Hopper', age: 85 } }
      ])
      for (const change of changes) expect(Math.abs(change.at.getTime() - Date.now())).toBeLessThan(60_000)
      expect(await stores.changes.window()).toEqual({ oldest: expect.any(Number), latest: base + 9 })
      expect((await stores.changes.since(base + 7, 1)).map((c) => c.seq)).toEqual([base + 8])
      expect(await stores.changes.since(base + 9, 10)).toEqual([])
    })

    it('reports a create that overwrites a record (the spec\'s id rule after a delete) as replaced', async () => {
      await stores.students.create(ada)
      await stores.students.create(alan)
      await stores.students.delete(0)
      const overwriting = await stores.students.create({ firstName: 'Dan', lastName: 'Ritchie', age: 70 })
      expect(overwriting.id).toBe(1)
      const last = (await stores.changes.since(base, 10)).at(-1) as Change
      expect(shape(last)).toEqual({ seq: base + 4, service: 'students', kind: 'replaced', id: 1, record: overwriting })
    })

    it('numbers concurrent writes without gaps, in the order they committed', async () => {
      const writes = await Promise.all([
        ...Array.from({ length: 40 }, async (_, i) => await stores.students.create({ ...ada, age: i })),
        ...Array.from({ length: 40 }, async (_, i) => await stores.addresses.create({ ...home, name: `n${i}` }))
      ])
      const changes = await stores.changes.since(base, 1000)
      expect(changes.map((c) => c.seq)).toEqual(Array.from({ length: 80 }, (_, i) => base + i + 1))
      // Student creates take ids 0, 1, 2 … one after the other (the count rule's lock), so their
      // changes, numbered in commit order, list the ids ascending.
      expect(changes.filter((c) => c.service === 'students').map((c) => c.id)).toEqual(Array.from({ length: 40 }, (_, i) => i))
      expect(changes.map((c) => c.record)).toEqual(expect.arrayContaining(writes))
    })

    it('delivers every change after the subscription\'s position to subscribers, in order and once', async () => {
      const a = await collect(stores)
      const b = await collect(stores)
      expect(a.position).toBe(base)
      await Promise.all(Array.from({ length: 30 }, async (_, i) => i % 2 === 0 ? await stores.students.create({ ...ada, age: i }) : await stores.addresses.create(home)))
      await until(() => a.changes.length >= 30 && b.changes.length >= 30, '30 changes')
      const logged = await stores.changes.since(base, 100)
      expect(a.changes).toEqual(logged)
      expect(b.changes).toEqual(logged)
      a.stop()
      await stores.students.delete(0)
      await until(() => b.changes.length === 31, 'the delete')
      expect(a.changes).toHaveLength(30)
      b.stop()
    })

    it('reads the log for the feed only while someone subscribes: a subscriber after 1 000 unheard writes starts at the latest, gets what follows live, and the log replays all', async () => {
      const reads = (): number => stores.changes.feedReads ?? Number.NaN
      // A subscriber that came and went: the feed it started stops with it.
      const first = await collect(stores)
      first.stop()
      const before = reads()
      expect(before).toBeGreaterThanOrEqual(0)
      for (let i = 0; i < 1000; i += 50) await Promise.all(Array.from({ length: 50 }, async (_, j) => await stores.addresses.create({ ...home, postalCode: String(i + j) })))
      // Reading the window numbers what committed (PostgreSQL), which would wake a pump still running.
      expect((await stores.changes.window()).latest).toBe(base + 1000)
      await stores.changes.window()
      expect(reads()).toBe(before)
      const later = await collect(stores)
      expect(later.position).toBe(base + 1000)
      await stores.students.create(ada)
      await stores.addresses.create(home)
      await until(() => later.changes.length === 2, 'the two changes after the subscription')
      expect(later.changes.map(shape)).toEqual([
        { seq: base + 1001, service: 'students', kind: 'created', id: expect.anything(), record: expect.objectContaining(ada) },
        { seq: base + 1002, service: 'addresses', kind: 'created', id: expect.anything(), record: expect.objectContaining(home) }
      ])
      expect(reads()).toBeGreaterThan(before)
      const replayed = [...await stores.changes.since(base, 500), ...await stores.changes.since(base + 500, 600)]
      expect(replayed.map((c) => c.seq)).toEqual(Array.from({ length: 1002 }, (_, i) => base + i + 1))
      expect(replayed.slice(0, 1000).map((c) => c.record?.postalCode).sort()).toEqual(Array.from({ length: 1000 }, (_, i) => String(i)).sort())
      later.stop()
      const after = reads()
      await stores.addresses.create(home)
      await stores.changes.window()
      expect(reads()).toBe(after)
    })

    it.skipIf(!kind.durable)('delivers changes written through another instance on the same data', async () => {
      const other = await kind.reopen() as Stores
      try {
        const here = await collect(stores)
        await other.students.create(ada)
        await other.addresses.put(MAX_ID, home)
        await other.students.delete(0)
        await until(() => here.changes.length === 3, 'three changes from the other instance')
        expect(here.changes.map(shape)).toEqual([
          { seq: base + 1, service: 'students', kind: 'created', id: 0, record: { id: 0, ...ada } },
          { seq: base + 2, service: 'addresses', kind: 'created', id: MAX_ID, record: { id: MAX_ID, ...home } },
          { seq: base + 3, service: 'students', kind: 'deleted', id: 0, record: null }
        ])
        here.stop()
      } finally {
        await other.close()
      }
    })
  })
}
