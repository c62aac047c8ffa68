import { describe, expect, it } from 'vitest'
import { MemoryRecordStore } from '../../src/stores/memory/records.js'
import { columnFor } from '../../src/stores/memory/columns.js'
import { SCAN_CHUNK } from '../../src/stores/memory/query.js'
import type { CollectionDeclaration, RecordQuery, StoredRecord } from '../../src/domain/index.js'
import { memoryStores, type Student, type StudentField, type StudentStore } from '../helpers/built-ins.js'

/**
 * The memory store keeps records in columns by slot (issue 20): under `count`
 * and `sequence` an id is its slot, deletes leave holes, an id far beyond the
 * records held moves the table to ids in a Map; int64 and uuid ids are in a
 * Map from the start. Records are built on read. These tests pin what that
 * layout must not change.
 */
async function * once<T> (records: T[]): AsyncGenerator<T[]> { yield records }

const student = (id: number, age = id % 90): Student => ({ id, firstName: `F${id}`, lastName: `L${(id * 7) % 13}`, age })

/** Every page of `query`, `size` at a time, each from the last one's keyset position. */
async function paged (store: StudentStore, query: RecordQuery<StudentField>, size: number): Promise<number[]> {
  const ids: number[] = []
  let after: RecordQuery<StudentField>['after']
  for (;;) {
    const page = await store.query({ ...query, after, limit: size })
    ids.push(...page.map((s) => s.id))
    if (page.length < size) return ids
    const last = page[page.length - 1] as Student
    after = { keys: query.sort.map((k) => last[k.field as keyof Student] as string | number), id: last.id }
  }
}

describe('the memory store\'s slots (issue 20)', () => {
  it('leaves holes where records were deleted: reads, lists and pages pass over them, in both directions', async () => {
    const store = memoryStores({ studentIds: 'sequence' }).students
    for (let i = 0; i < 50; i++) await store.create({ firstName: `F${i}`, lastName: 'L', age: i })
    const deleted = new Set([0, 1, 2, 7, 8, 20, 21, 22, 23, 24, 25, 48, 49])
    for (const id of deleted) expect(await store.delete(id)).toEqual({ outcome: 'deleted' })
    const held = Array.from({ length: 50 }, (_, i) => i).filter((i) => !deleted.has(i))

    expect(await store.get(7)).toBeUndefined()
    expect(await store.get(49)).toBeUndefined()
    expect(await store.get(3)).toEqual({ id: 3, firstName: 'F3', lastName: 'L', age: 3 })
    expect((await store.list()).map((s) => s.id)).toEqual(held)
    expect(await store.count({ where: [] })).toBe(held.length)
    for (const size of [1, 3, 10]) {
      expect(await paged(store, { where: [], sort: [] }, size)).toEqual(held)
      expect(await paged(store, { where: [], sort: [{ field: 'id', descending: true }] }, size)).toEqual([...held].reverse())
      expect(await paged(store, { where: [{ field: 'id', op: 'gte', value: 5 }, { field: 'id', op: 'lt', value: 30 }], sort: [] }, size)).toEqual(held.filter((i) => i >= 5 && i < 30))
    }
    // A position in a hole, or past the end, starts at the next record held.
    expect((await store.query({ where: [], sort: [], after: { keys: [], id: 20 }, limit: 2 })).map((s) => s.id)).toEqual([26, 27])
    expect((await store.query({ where: [], sort: [{ field: 'id', descending: true }], after: { keys: [22], id: 22 }, limit: 2 })).map((s) => s.id)).toEqual([19, 18])
    expect(await store.query({ where: [], sort: [], after: { keys: [], id: 1000 } })).toEqual([])
    expect((await store.create({ firstName: 'New', lastName: 'L', age: 1 })).id).toBe(50) // sequence: never a hole
  })

  it('under the count rule a create at an id still held replaces that record, wherever the holes are', async () => {
    const store = memoryStores({ studentIds: 'count' }).students
    for (let i = 0; i < 4; i++) await store.create({ firstName: `F${i}`, lastName: 'L', age: i })
    await store.delete(1)
    const replaced = await store.createReporting({ firstName: 'Again', lastName: 'L', age: 9 })
    expect(replaced).toEqual({ outcome: 'replaced', record: { id: 3, firstName: 'Again', lastName: 'L', age: 9 } })
    expect(await store.get(3)).toEqual(replaced.record)
    expect((await store.list()).map((s) => s.id)).toEqual([0, 2, 3])
    expect(await store.query({ where: [{ field: 'firstName', op: 'eq', value: 'F3' }], sort: [] })).toEqual([])
    await store.delete(0)
    await store.delete(2)
    expect(await store.createReporting({ firstName: 'One', lastName: 'L', age: 1 })).toMatchObject({ outcome: 'created', record: { id: 1 } })
    expect((await store.list()).map((s) => s.id)).toEqual([1, 3])
  })

  it('an id far beyond the records held (an import) moves the ids to a Map: every record, order and index stays', async () => {
    const store = memoryStores({ studentIds: 'count' }).students
    for (let i = 0; i < 10; i++) await store.create({ firstName: `F${i}`, lastName: `L${9 - i}`, age: i })
    await store.delete(4)
    await store.query({ where: [], sort: [{ field: 'lastName', descending: false }], limit: 1 }) // an index built before the move
    const far = [1e12, 2 ** 40, 123_456_789]
    await store.importAll(once(far.map((id) => student(id))))
    const ids = [0, 1, 2, 3, 5, 6, 7, 8, 9, 123_456_789, 1e12, 2 ** 40]
    expect((await store.list()).map((s) => s.id)).toEqual(ids)
    expect(await paged(store, { where: [], sort: [{ field: 'id', descending: true }] }, 5)).toEqual([...ids].reverse())
    expect(await store.get(1e12)).toEqual(student(1e12))
    expect(await store.get(4)).toBeUndefined()
    expect((await store.query({ where: [], sort: [{ field: 'lastName', descending: false }] })).map((s) => s.lastName))
      .toEqual(['L0', 'L1', 'L2', 'L3', 'L4', 'L6', 'L7', 'L8', 'L9', ...far.map((id) => student(id).lastName)].sort())
    // The count rule goes on: 12 records held, so id 12 (a slot freed by the move is reused, its id is new).
    const created = await store.createReporting({ firstName: 'After', lastName: 'L', age: 1 })
    expect(created).toMatchObject({ outcome: 'created', record: { id: 12 } })
    expect(await store.delete(1e12)).toEqual({ outcome: 'deleted' })
    expect((await store.list()).map((s) => s.id)).toEqual([0, 1, 2, 3, 5, 6, 7, 8, 9, 12, 123_456_789, 2 ** 40])
  })

  it('a scan paused while the ids move to a Map still answers from its snapshot', async () => {
    const store = memoryStores({ studentIds: 'count' }).students
    const records = Array.from({ length: SCAN_CHUNK * 3 }, (_, i) => student(i))
    await store.importAll(once(records))
    const query = { where: [], search: 'f1', sort: [] }
    const before = await store.query(query)
    const scanning = store.query(query)
    await new Promise((resolve) => setImmediate(resolve))
    await store.importAll(once([student(1e12)])) // the move, while the scan waits
    for (let id = SCAN_CHUNK * 3 - 1; id > SCAN_CHUNK * 2; id -= 3) await store.delete(id)
    await store.create({ firstName: 'F1', lastName: 'new', age: 3 })
    expect(await scanning).toEqual(before)
  })

  it('hands out the record it stored as the same object until it is written again', async () => {
    const store = memoryStores().students
    const ada = await store.create({ firstName: 'Ada', lastName: 'Lovelace', age: 36 })
    expect(await store.get(0)).toBe(ada)
    expect(await store.get(0)).toBe(await store.get(0))
    const replaced = await store.replace({ id: 0, firstName: 'Ada', lastName: 'Lovelace', age: 37 })
    expect(replaced.outcome === 'replaced' ? replaced.record : undefined).toBe(await store.get(0))
    expect(ada).toEqual({ id: 0, firstName: 'Ada', lastName: 'Lovelace', age: 36 }) // never changed in place
  })
})

describe('the memory store\'s ids in a Map (int64, uuid)', () => {
  it('keeps int64 ids of any size in order, with deletes and paging', async () => {
    const store = memoryStores().addresses
    const berlin = { name: 'Ada', city: 'Berlin', postalCode: '10115' }
    for (const id of [2n ** 62n, 5n, 1n, 9_223_372_036_854_775_807n, 77n]) await store.put(id, { ...berlin, name: `N${id}` })
    await store.delete(77n)
    const created = await store.create(berlin)
    expect(created.id).toBe(2n) // from 1 upwards, skipping ids held
    const ids = [1n, 2n, 5n, 2n ** 62n, 9_223_372_036_854_775_807n]
    expect((await store.query({ where: [], sort: [] })).map((a) => a.id)).toEqual(ids)
    expect((await store.query({ where: [], sort: [], after: { keys: [], id: 5n }, limit: 1 })).map((a) => a.id)).toEqual([2n ** 62n])
    expect((await store.query({ where: [], sort: [{ field: 'id', descending: true }], limit: 2 })).map((a) => a.id)).toEqual([9_223_372_036_854_775_807n, 2n ** 62n])
    expect(await store.get(2n ** 62n)).toEqual({ id: 2n ** 62n, ...berlin, name: `N${2n ** 62n}` })
    expect(await store.get(77n)).toBeUndefined()
  })

  it('keeps uuid ids, optional fields absent when unset, booleans and numbers as written', async () => {
    const declaration: CollectionDeclaration = {
      name: 'things',
      table: 'rqs_col_things',
      fields: {
        label: { type: 'string', required: true },
        note: { type: 'string', required: false },
        count: { type: 'integer', required: false },
        weight: { type: 'number', required: true },
        done: { type: 'boolean', required: false }
      },
      ids: 'uuid',
      firstId: 1,
      putCreates: true,
      keptOnUpdate: []
    }
    const store = new MemoryRecordStore(declaration)
    const a = (await store.create({ label: 'a', weight: 0.5, done: false, count: 0 })).record
    const b = (await store.create({ label: 'b', note: '', weight: -2, count: -7 })).record
    const c = (await store.create({ label: 'c', weight: 1e300, done: true })).record
    expect(a).toEqual({ id: a.id, label: 'a', count: 0, weight: 0.5, done: false })
    expect(Object.keys(b)).toEqual(['id', 'label', 'note', 'count', 'weight'])
    const fresh = new MemoryRecordStore(declaration)
    await fresh.importAll(once([a, b, c]))
    for (const record of [a, b, c]) {
      const read = await fresh.get(record.id) as StoredRecord
      expect(read).toEqual(record)
      expect(Object.keys(read)).toEqual(Object.keys(record))
    }
    const byDone = await fresh.query({ where: [], sort: [{ field: 'done', descending: false }] })
    expect(byDone.map((r) => r.label)).toEqual(['b', 'a', 'c']) // unset first, then false, true
    expect((await fresh.query({ where: [{ field: 'count', op: 'lt', value: 0 }], sort: [] })).map((r) => r.label)).toEqual(['b'])
    expect((await fresh.query({ where: [], sort: [] })).map((r) => r.id)).toEqual([a.id, b.id, c.id].sort())
    await fresh.delete(b.id)
    expect(await fresh.get(b.id)).toBeUndefined()
    expect(await fresh.count({ where: [] })).toBe(2)
  })

  it('a number column given a value that is not a number keeps every value', () => {
    const column = columnFor('integer')
    column.set(0, 1)
    column.set(5, undefined)
    column.set(7, 2n ** 70n)
    expect([column.get(0), column.get(5), column.get(7), column.get(9)]).toEqual([1, undefined, 2n ** 70n, undefined])
  })
})
