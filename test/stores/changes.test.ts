import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Change } from '../../src/domain/index.js'
import { FakeClock } from '../helpers/clock.js'
import { LOCAL_STORES, conformanceKinds, storeKinds, type StoreKind } from './harness.js'
import { ada, changeLogSuite, home, pastStamp } from './changes.suite.js'
import { memoryStores } from '../helpers/built-ins.js'

changeLogSuite(conformanceKinds(LOCAL_STORES))

describe('memory store: the change ring', () => {
  it('keeps the last N changes; a subscriber sees the gap when one turn of the event loop writes more than the ring holds', async () => {
    const stores = memoryStores({ memoryChangesKept: 5 })
    const seen: number[] = []
    await stores.changes.subscribe((change) => { seen.push(change.seq) })
    for (let i = 0; i < 8; i++) await stores.students.create({ ...ada, age: i })
    expect(await stores.changes.window()).toEqual({ oldest: 4, latest: 8 })
    expect((await stores.changes.since(0, 10)).map((c) => c.seq)).toEqual([4, 5, 6, 7, 8])
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
    // Twelve writes before the listeners run: only the last five are still there to deliver.
    await Promise.all(Array.from({ length: 12 }, async (_, i) => await stores.addresses.create({ ...home, name: `n${i}` })))
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(seen.slice(8)).toEqual([16, 17, 18, 19, 20])
  })

  it('hands a listener only the changes it does not pass over, telling it the others\' numbers; a listener without `passes` gets every change', async () => {
    const stores = memoryStores()
    const taken: Change[] = []
    const passed: Array<[number, string, string]> = []
    const all: Change[] = []
    await stores.changes.subscribe((change) => { taken.push(change) }, {
      passes: (seq, collection, kind) => {
        if (collection === 'students') return false
        passed.push([seq, collection, kind])
        return true
      }
    })
    await stores.changes.subscribe((change) => { all.push(change) })
    const student = await stores.students.create(ada)
    await stores.addresses.create(home)
    await stores.students.delete(student.id)
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(taken.map((c) => [c.seq, c.service, c.kind])).toEqual([[1, 'students', 'created'], [3, 'students', 'deleted']])
    expect(passed).toEqual([[2, 'addresses', 'created']])
    expect(all.map((c) => c.seq)).toEqual([1, 2, 3])
    // One Change a change, shared by the listeners that take it.
    expect(all[0]).toBe(taken[0])
  })

  it('stamps each change with the store\'s clock', async () => {
    const clock = new FakeClock(Date.UTC(2030, 0, 1))
    const stores = memoryStores({ clock })
    await stores.students.create(ada)
    clock.advance(1500)
    await stores.addresses.create(home)
    expect((await stores.changes.since(0, 10)).map((c) => c.at.toISOString())).toEqual(['2030-01-01T00:00:00.000Z', '2030-01-01T00:00:01.500Z'])
  })

  it('with nobody subscribed, keeps every change for replay; a later subscriber is told the position and gets only what follows', async () => {
    const stores = memoryStores()
    await stores.students.create(ada)
    await stores.addresses.create(home)
    const replayed = await stores.changes.since(0, 10)
    expect(replayed.map((c) => [c.seq, c.service, c.kind, c.id])).toEqual([[1, 'students', 'created', 0], [2, 'addresses', 'created', 1n]])
    expect(replayed[0]!.record).toMatchObject(ada)
    const seen: number[] = []
    const { position } = await stores.changes.subscribe((change) => { seen.push(change.seq) })
    expect(position).toBe(2)
    await stores.students.delete(0)
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(seen).toEqual([3])
    expect((await stores.changes.since(2, 10))[0]).toMatchObject({ seq: 3, service: 'students', kind: 'deleted', id: 0, record: null })
  })
})

describe('SQLite store: retention', () => {
  const [sqlite] = storeKinds(['sqlite']) as [StoreKind]
  beforeAll(sqlite.setup)
  afterAll(sqlite.teardown)

  it('prunes changes older than the retention window on the store\'s clock, oldest first, keeping an unbroken run', async () => {
    const retentionMs = 60_000
    const clock = new FakeClock()
    const stores = await sqlite.fresh({ changesRetentionMs: retentionMs, clock })
    const prune = (): void => { (stores.changes as unknown as { prune: () => void }).prune() }
    try {
      for (let i = 0; i < 3; i++) await stores.students.create({ ...ada, age: i })
      await pastStamp((await stores.changes.since(2, 1))[0]!.at)
      for (let i = 0; i < 2; i++) await stores.addresses.create(home)
      const [fourth, fifth] = await stores.changes.since(3, 2) as [Change, Change]
      prune()
      expect((await stores.changes.since(0, 10)).map((c) => c.seq)).toEqual([1, 2, 3, 4, 5]) // nothing is old yet
      clock.set(fourth.at.getTime() + retentionMs) // 1–3 are older than the window, 4 is just inside it
      prune()
      expect(await stores.changes.window()).toEqual({ oldest: 4, latest: 5 })
      expect((await stores.changes.since(0, 10)).map((c) => c.seq)).toEqual([4, 5])
      clock.set(fifth.at.getTime() + retentionMs + 1)
      prune()
      expect(await stores.changes.window()).toEqual({ oldest: 6, latest: 5 })
      // Numbers are never reused after a prune.
      await stores.students.delete(0)
      expect((await stores.changes.since(0, 10)).map((c) => c.seq)).toEqual([6])
    } finally {
      await stores.close()
    }
  })
})
