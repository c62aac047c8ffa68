import { describe, expect, it } from 'vitest'
import { SCAN_CHUNK } from '../../src/stores/memory/query.js'
import { memoryStores, type Student, type StudentStore } from '../helpers/built-ins.js'

/**
 * Issue 19, item 12: a search or count that reads every record of the memory
 * store lets other requests run every SCAN_CHUNK records, instead of holding
 * the event loop for the whole scan; what it answers stays one snapshot.
 */
const RECORDS = SCAN_CHUNK * 4 + 17

async function filled (): Promise<StudentStore> {
  const store = memoryStores().students
  const records: Student[] = Array.from({ length: RECORDS }, (_, i) => ({ id: i, firstName: i % 3 === 0 ? 'Σοφία' : 'Ada', lastName: `L${(i * 7919) % RECORDS}`, age: i % 90 }))
  await store.importAll((async function * () { yield records })())
  return store
}

/** How many turns of the event loop (setImmediate callbacks) ran while `work` was pending. */
async function turnsDuring (work: Promise<unknown>): Promise<number> {
  let turns = 0
  let done = false
  const tick = (): void => {
    if (done) return
    turns++
    setImmediate(tick)
  }
  setImmediate(tick)
  await work
  done = true
  return turns
}

describe('memory store scans (issue 19)', () => {
  it('a count, a search and a sorted page that read every record let the event loop turn between chunks', async () => {
    const store = await filled()
    await store.query({ where: [], sort: [{ field: 'lastName', descending: true }], limit: 1 }) // builds the index first
    expect(await turnsDuring(store.count({ where: [], search: 'zzz' }))).toBeGreaterThanOrEqual(3)
    expect(await turnsDuring(store.query({ where: [{ field: 'lastName', op: 'contains', value: 'none' }], sort: [], limit: 10 }))).toBeGreaterThanOrEqual(3)
    expect(await turnsDuring(store.query({ where: [], search: 'σοφια', sort: [{ field: 'lastName', descending: true }, { field: 'age', descending: false }] }))).toBeGreaterThanOrEqual(3)
  })

  it('answers from one snapshot: writes made while a scan waits neither disturb nor show in it', async () => {
    const store = await filled()
    for (const sort of [[], [{ field: 'lastName' as const, descending: false }], [{ field: 'lastName' as const, descending: true }, { field: 'age' as const, descending: false }]]) {
      const before = await store.query({ where: [], search: 'ada', sort })
      const scanning = store.query({ where: [], search: 'ada', sort })
      const counting = store.count({ where: [], search: 'ada' })
      // While both wait between chunks: delete records the scan has not reached yet, add and replace others.
      await new Promise((resolve) => setImmediate(resolve))
      for (let id = RECORDS - 1; id > RECORDS - 200; id--) await store.delete(id)
      for (let i = 0; i < 100; i++) await store.replace({ id: i * 7 + 1, firstName: 'Ada', lastName: `A${i}`, age: 1 })
      const added = await store.create({ firstName: 'Ada', lastName: 'A', age: 2 })
      expect(await scanning).toEqual(before)
      expect(await counting).toBe(before.length)
      // The live indexes took every write.
      const after = await store.query({ where: [], search: 'ada', sort })
      expect(after).toContainEqual(added)
      expect(after.some((s) => s.id === RECORDS - 2)).toBe(false)
      expect(after.find((s) => s.id === 8)).toMatchObject({ lastName: 'A1' })
    }
  })
})
