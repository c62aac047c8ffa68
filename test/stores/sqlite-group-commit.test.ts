import { afterAll, afterEach, expect, it } from 'vitest'
import { closeSync, openSync, readSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { IdempotencyKeyUsedError, PRECONDITION_FAILED, type CreateResult, type KeyedWrite, type RecordInput, type RecordStore } from '../../src/domain/index.js'
import { tempDir } from './harness.js'
import { memoryStores, openSqliteStores, type Stores } from '../helpers/built-ins.js'

/**
 * Group commit (issue 20): the writes made in one turn of the event loop
 * commit in one SQLite transaction. Each must still get its own outcome and
 * error, behave as if the writes ran one after another in arrival order, and
 * be on disk once its promise resolves; checkpoints leave the commit path
 * but keep the WAL bounded.
 */

const tmp = tempDir()
afterAll(() => { tmp.remove() })
const open: Stores[] = []
afterEach(async () => { for (const s of open.splice(0)) await s.close() })
let files = 0
function sqlite (path = join(tmp.dir, `g${files++}.db`)): { stores: Stores, students: RecordStore, path: string } {
  const stores = openSqliteStores({ path })
  open.push(stores)
  return { stores, students: stores.collections.get('students')!, path }
}
const ada = (n: number): RecordInput => ({ firstName: `Ada${n}`, lastName: 'Lovelace', age: 36 })

it('a write failing in the middle of a group is undone alone: the others commit, it gets its own error', async () => {
  const { stores, students, path } = sqlite()
  await students.create(ada(0))
  const failure = new Error('answer failed')
  // The answer is made inside the write's savepoint, after its record and change were written.
  const throwing: KeyedWrite<CreateResult> = { key: 'k1', fingerprint: 'f', answer: () => { throw failure } }
  const writes = [
    students.create(ada(1)),
    students.create(ada(2), throwing),
    students.put(0, ada(9), { kind: 'absent' }),
    students.create(ada(3))
  ]
  const settled = await Promise.allSettled(writes)
  expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled'])
  expect((settled[1] as PromiseRejectedResult).reason).toBe(failure)
  expect((settled[0] as PromiseFulfilledResult<CreateResult>).value).toMatchObject({ outcome: 'created', record: { id: 1 } })
  expect((settled[2] as PromiseFulfilledResult<unknown>).value).toBe(PRECONDITION_FAILED)
  // Nothing of the failed write is left: not its record (id 2 went to the next create), its change, or a kept answer.
  expect((settled[3] as PromiseFulfilledResult<CreateResult>).value).toMatchObject({ outcome: 'created', record: { id: 2, firstName: 'Ada3' } })
  expect(await students.count({ where: [] })).toBe(3)
  expect((await stores.changes.since(0, 100)).map((c) => c.kind)).toEqual(['created', 'created', 'created'])
  expect(await students.keptWrite?.('k1')).toBeUndefined()
  const db = new Database(path, { readonly: true })
  try {
    expect(db.prepare('SELECT first_name FROM rqs_students ORDER BY id').pluck().all()).toEqual(['Ada0', 'Ada1', 'Ada3'])
  } finally { db.close() }
})

it('writes made together answer exactly as the same writes run one after another (count id rule)', async () => {
  const { students } = sqlite()
  const reference = memoryStores().collections.get('students')!
  // Creates, deletes and PUTs mixed so the count rule replaces and reuses ids.
  const ops: Array<(s: RecordStore) => Promise<unknown>> = []
  for (let i = 0; i < 60; i++) {
    const k = (i * 7) % 5
    if (k === 3) ops.push(async (s) => await s.delete(i % 9))
    else if (k === 4) ops.push(async (s) => await s.put(i % 11, ada(i)))
    else ops.push(async (s) => await s.create(ada(i)))
  }
  const expected: unknown[] = []
  for (const op of ops) expected.push(await op(reference))
  // All 60 issued in one turn: one group.
  expect(await Promise.all(ops.map(async (op) => await op(students)))).toEqual(expected)
  expect(await students.query({ where: [], sort: [] })).toEqual(await reference.query({ where: [], sort: [] }))
})

it('concurrent creates under the count rule get distinct ids, in arrival order', async () => {
  const { students } = sqlite()
  const made = await Promise.all(Array.from({ length: 200 }, async (_, i) => await students.create(ada(i))))
  expect(made.map((m) => m.outcome)).toEqual(Array(200).fill('created'))
  expect(made.map((m) => (m as { record: { id: unknown } }).record.id)).toEqual(Array.from({ length: 200 }, (_, i) => i))
  expect(made.map((m) => (m as unknown as { record: { firstName: unknown } }).record.firstName)).toEqual(Array.from({ length: 200 }, (_, i) => `Ada${i}`))
})

it('a key replayed within the same group gets the first write\'s kept answer, and one record is made', async () => {
  const { students } = sqlite()
  const keyed = (tag: string): KeyedWrite<CreateResult> => ({
    key: 'same-key',
    fingerprint: 'fp',
    answer: (r) => ({ status: 201, headers: { tag }, body: JSON.stringify(r) })
  })
  const [first, second] = await Promise.allSettled([students.create(ada(1), keyed('first')), students.create(ada(1), keyed('second'))])
  expect(first.status).toBe('fulfilled')
  expect(second.status).toBe('rejected')
  const err = (second as PromiseRejectedResult).reason as IdempotencyKeyUsedError
  expect(err).toBeInstanceOf(IdempotencyKeyUsedError)
  expect(err.kept).toEqual({ fingerprint: 'fp', answer: { status: 201, headers: { tag: 'first' }, body: JSON.stringify((first as PromiseFulfilledResult<CreateResult>).value) } })
  expect(await students.count({ where: [] })).toBe(1)
})

it('a write whose promise resolved is on disk: another connection reads it at once', async () => {
  const { students, path } = sqlite()
  const reader = new Database(path, { readonly: true })
  try {
    const ids = reader.prepare('SELECT id FROM rqs_students ORDER BY id').pluck()
    const pending = [students.create(ada(1)), students.create(ada(2))]
    // Issued but not yet committed: the group runs after this turn.
    expect(ids.all()).toEqual([])
    await Promise.all(pending)
    expect(ids.all()).toEqual([0, 1])
  } finally { reader.close() }
})

it('two connections on one file write concurrently without losing or doubling an id', async () => {
  const a = sqlite()
  const b = sqlite(a.path)
  const made = await Promise.all(Array.from({ length: 100 }, async (_, i) => await (i % 2 === 0 ? a : b).students.create(ada(i))))
  const ids = made.map((m) => Number((m as { record: { id: unknown } }).record.id)).sort((x, y) => x - y)
  expect(ids).toEqual(Array.from({ length: 100 }, (_, i) => i))
})

it('under steady writes, checkpoints off the commit path let the WAL start again from the top instead of growing', async () => {
  const { students, path } = sqlite()
  // The WAL header's checkpoint sequence number (bytes 12–15) goes up each time the WAL starts again from the top.
  const restarts = (): number => {
    const header = Buffer.alloc(16)
    const fd = openSync(`${path}-wal`, 'r')
    try { readSync(fd, header, 0, 16, 0) } finally { closeSync(fd) }
    return header.readUInt32BE(12)
  }
  // Groups back to back, never a pause: a checkpoint running beside them never finds the WAL all copied by itself.
  const end = Date.now() + 10_000
  let round = 0
  while (restarts() < 3) {
    if (Date.now() > end) throw new Error(`the WAL started again only ${restarts()} times`)
    round++
    await Promise.all(Array.from({ length: 50 }, async (_, i) => await students.create({ firstName: `${round}-${i}-${'x'.repeat(500)}`, lastName: 'L', age: 1 })))
  }
  expect(await students.count({ where: [] })).toBe(round * 50)
})

it('a unit of work runs in a turn of its own: after the writes queued before it commit, before those queued after it', async () => {
  const { stores, students } = sqlite()
  const order: string[] = []
  const before = students.create(ada(1)).then(() => { order.push('before') })
  const unit = stores.atomically(async (u) => {
    order.push('unit')
    // The write queued before the unit is committed: the unit's own connection sees it.
    expect(await u.collections.get('students')?.get(0)).toMatchObject({ firstName: 'Ada1' })
    return (await u.collections.get('students')!.create(ada(2))).record.id
  }).then((id) => { order.push('unit done'); return id })
  const after = students.create(ada(3)).then((r) => { order.push('after'); return r.record.id })
  expect(await Promise.all([before, unit, after])).toEqual([undefined, 1, 2])
  expect(order).toEqual(['before', 'unit', 'unit done', 'after'])
})
