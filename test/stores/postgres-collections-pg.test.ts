import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { userTableOf, type CollectionDeclaration, type RecordStore, type StoredField, type StoredRecord } from '../../src/domain/index.js'
import { POSTGRES_MIGRATIONS } from '../../src/stores/postgres/schema.js'
import { migrate as migratePostgres } from '../../src/stores/postgres/migrate.js'
import { CollectionChangedError } from '../../src/domain/index.js'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, type TestDatabase } from './harness.js'
import { openPostgresStores, type Stores } from '../helpers/built-ins.js'

/** A user collection with every field type, ids from a sequence. */
function books (fields: Record<string, StoredField> = {}, name = 'books'): CollectionDeclaration {
  return {
    name,
    table: userTableOf(name),
    fields: {
      title: { type: 'string', required: false },
      year: { type: 'integer', required: true },
      price: { type: 'number', required: true },
      inPrint: { type: 'boolean', required: true },
      ...fields
    },
    ids: 'sequence',
    firstId: 1,
    putCreates: false,
    keptOnUpdate: []
  }
}

/** UUID ids; a write by id creates, and keeps `author` on update. */
const NOTES: CollectionDeclaration = {
  name: 'field-notes',
  table: userTableOf('field-notes'),
  fields: { author: { type: 'string', required: true }, text: { type: 'string', required: true }, pinned: { type: 'boolean', required: false } },
  ids: 'uuid',
  firstId: 1,
  putCreates: true,
  keptOnUpdate: ['author']
}

async function * batches (records: StoredRecord[]): AsyncIterable<StoredRecord[]> {
  yield records.slice(0, 2)
  yield records.slice(2)
}

describe.skipIf(SKIP_POSTGRES)(`PostgreSQL: declared collections${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  let database: TestDatabase
  beforeAll(async () => { database = await createTestDatabase() })
  afterAll(async () => { await database?.drop() })

  const open = async (collections: CollectionDeclaration[], url = database.url): Promise<Stores> =>
    await openPostgresStores({ url, poolSize: 2, startupWaitMs: 0, collections })
  const store = (stores: Stores, name: string): RecordStore => stores.collections.get(name) as RecordStore

  it('keeps a collection with every field type and sequence ids: writes, queries, import, changes, reopen', async () => {
    const stores = await open([books()])
    try {
      const b = store(stores, 'books')
      const first = await b.create({ title: 'Dune', year: 1965, price: 9.5, inPrint: true })
      expect(first).toEqual({ outcome: 'created', record: { id: 1, title: 'Dune', year: 1965, price: 9.5, inPrint: true } })
      const second = await b.create({ year: 1999, price: 20, inPrint: false })
      expect(second.record).toEqual({ id: 2, year: 1999, price: 20, inPrint: false })
      expect(await b.get(2)).toEqual({ id: 2, year: 1999, price: 20, inPrint: false })
      expect(Object.keys(await b.get(1) as object)).toEqual(['id', 'title', 'year', 'price', 'inPrint'])
      expect(await b.put(2, { title: 'Untitled', year: 2000, price: 0.1, inPrint: true })).toEqual({ outcome: 'replaced', record: { id: 2, title: 'Untitled', year: 2000, price: 0.1, inPrint: true } })
      expect(await b.put(7, { year: 1, price: 1, inPrint: true })).toEqual({ outcome: 'not-found' })
      expect(await b.put(2, { year: 3, price: 1, inPrint: true }, { kind: 'matches', current: { id: 2, year: 2000, price: 0.1, inPrint: true } })).toEqual({ outcome: 'precondition-failed' })
      expect(await b.query({ where: [{ field: 'inPrint', op: 'eq', value: true }], sort: [{ field: 'year', descending: true }] })).toHaveLength(2)
      expect(await b.count({ where: [{ field: 'price', op: 'lt', value: 1 }] })).toBe(1)
      expect(await b.count({ where: [{ field: 'title', op: 'contains', value: 'DUN' }] })).toBe(1)
      expect(await b.count({ where: [], search: 'untit' })).toBe(1)
      expect(await b.delete(1)).toEqual({ outcome: 'deleted' })
      expect(await b.delete(1)).toEqual({ outcome: 'not-found' })
      // An absent optional field: no condition on it holds, as in SQL.
      expect(await b.count({ where: [{ field: 'title', op: 'ne', value: 'x' }] })).toBe(1)
      // Optional fields sort too, records without one first ascending and last descending, as on every store.
      expect((await b.query({ where: [], sort: [{ field: 'title', descending: false }] })).map((r) => r.id)).toEqual([2])

      // Import: the last line of an id wins; the sequence continues past the imported ids.
      const imported = await b.importAll(batches([
        { id: 10, year: 1, price: 1, inPrint: true }, { id: 5, title: 'Five', year: 5, price: 5, inPrint: false }, { id: 10, title: 'Ten', year: 10, price: 10, inPrint: true }
      ]))
      expect(imported).toBe(3)
      expect(await b.get(10)).toEqual({ id: 10, title: 'Ten', year: 10, price: 10, inPrint: true })
      expect((await b.create({ year: 11, price: 11, inPrint: true })).record.id).toBe(11)

      const changes = (await stores.changes.since(0, 100)).filter((c) => c.service === 'books')
      expect(changes.map((c) => [c.kind, c.id])).toEqual([['created', 1], ['created', 2], ['replaced', 2], ['deleted', 1], ['created', 5], ['created', 10], ['created', 11]])
      expect(changes[1]?.record).toEqual({ id: 2, year: 1999, price: 20, inPrint: false })
      expect(changes[5]?.record).toEqual({ id: 10, title: 'Ten', year: 10, price: 10, inPrint: true })
    } finally {
      await stores.close()
    }
    const again = await open([books()])
    try {
      expect(await store(again, 'books').query({ where: [], sort: [] })).toEqual([
        { id: 2, title: 'Untitled', year: 2000, price: 0.1, inPrint: true },
        { id: 5, title: 'Five', year: 5, price: 5, inPrint: false },
        { id: 10, title: 'Ten', year: 10, price: 10, inPrint: true },
        { id: 11, year: 11, price: 11, inPrint: true }
      ])
      expect((await store(again, 'books').create({ year: 12, price: 12, inPrint: false })).record.id).toBe(12)
    } finally {
      await again.close()
    }
  })

  it('keeps a collection with UUID ids, its changes carrying the id', async () => {
    const stores = await open([NOTES])
    try {
      const n = store(stores, 'field-notes')
      const { outcome, record } = await n.create({ author: 'Ann', text: 'first' })
      expect(outcome).toBe('created')
      expect(record.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(await n.get(record.id)).toEqual({ id: record.id, author: 'Ann', text: 'first' })
      // A write by id creates; an update keeps the author.
      const id = 'a0000000-0000-4000-8000-000000000001'
      expect(await n.put(id, { author: 'Bob', text: 'put', pinned: true })).toEqual({ outcome: 'created', record: { id, author: 'Bob', text: 'put', pinned: true } })
      expect(await n.put(id, { author: 'Eve', text: 'again' })).toEqual({ outcome: 'replaced', record: { id, author: 'Bob', text: 'again' } })
      expect(await n.put(id, { author: 'Eve', text: 'x' }, { kind: 'absent' })).toEqual({ outcome: 'precondition-failed' })
      expect(await n.put('b0000000-0000-4000-8000-000000000002', { author: 'Cy', text: 'y' }, { kind: 'absent' })).toMatchObject({ outcome: 'created' })
      expect(await n.count({ where: [{ field: 'pinned', op: 'eq', value: true }] })).toBe(0)
      expect(await n.count({ where: [{ field: 'text', op: 'contains', value: 'AGA' }] })).toBe(1)
      expect(await n.delete(id, { kind: 'matches', current: { id, author: 'Bob', text: 'stale' } })).toEqual({ outcome: 'precondition-failed' })
      expect(await n.delete(id)).toEqual({ outcome: 'deleted' })
      expect(await n.importAll(batches([{ id: 'c0000000-0000-4000-8000-000000000003', author: 'Di', text: 'imported', pinned: false }]))).toBe(1)
      expect(await n.query({ where: [], sort: [] })).toHaveLength(3)

      const changes = (await stores.changes.since(0, 100)).filter((c) => c.service === 'field-notes')
      expect(changes.map((c) => [c.kind, c.id])).toEqual([
        ['created', record.id], ['created', id], ['replaced', id], ['created', 'b0000000-0000-4000-8000-000000000002'], ['deleted', id],
        ['created', 'c0000000-0000-4000-8000-000000000003']
      ])
      expect(changes[1]?.record).toEqual({ id, author: 'Bob', text: 'put', pinned: true })
      expect(changes[5]?.record).toEqual({ id: 'c0000000-0000-4000-8000-000000000003', author: 'Di', text: 'imported', pinned: false })
    } finally {
      await stores.close()
    }
  })

  it('adds a declared optional field to a stored collection; refuses any other change', async () => {
    const before = await open([books({}, 'shelves')])
    await store(before, 'shelves').create({ title: 'Old', year: 1, price: 1, inPrint: true })
    await before.close()
    const withIsbn = books({ isbn: { type: 'string', required: false }, pages: { type: 'integer', required: false } }, 'shelves')
    const after = await open([withIsbn])
    try {
      const b = store(after, 'shelves')
      const old = (await b.query({ where: [{ field: 'title', op: 'eq', value: 'Old' }], sort: [] }))[0]
      expect(old).not.toHaveProperty('isbn')
      const created = await b.create({ title: 'New', year: 2, price: 2, inPrint: true, isbn: '978-3', pages: 300 })
      expect(await b.get(created.record.id)).toEqual({ id: created.record.id, title: 'New', year: 2, price: 2, inPrint: true, isbn: '978-3', pages: 300 })
      expect(await b.count({ where: [{ field: 'pages', op: 'gt', value: 100 }] })).toBe(1)
      expect(await b.count({ where: [], search: '978' })).toBe(1)
      const last = (await after.changes.since(0, 1000)).at(-1)
      expect(last?.record).toEqual(created.record)
    } finally {
      await after.close()
    }
    // Opening with the same declaration again changes nothing.
    await (await open([withIsbn])).close()

    const refused = async (declaration: CollectionDeclaration): Promise<CollectionChangedError> => {
      const error = await open([declaration]).then(async (s) => { await s.close(); return undefined }, (err: unknown) => err)
      expect(error).toBeInstanceOf(CollectionChangedError)
      return error as CollectionChangedError
    }
    const retyped = await refused({ ...withIsbn, fields: { ...withIsbn.fields, year: { type: 'string', required: true } } })
    expect(retyped.changes).toEqual(['year: type integer → string'])
    expect(retyped.message).toMatch(/^collection shelves no longer matches the one stored in 127\.0\.0\.1:5432\/rqs_t_\w+: year: type integer → string .*declare added fields as optional/)
    const { price: _price, ...withoutPrice } = withIsbn.fields
    expect((await refused({ ...withIsbn, fields: withoutPrice })).changes).toEqual(['price: removed'])
    expect((await refused({ ...withIsbn, fields: { ...withIsbn.fields, isbn: { type: 'string', required: true }, owner: { type: 'string', required: true } } })).changes)
      .toEqual(['isbn: optional → required', 'owner: added as required'])
    expect((await refused({ ...withIsbn, ids: 'uuid' })).changes).toEqual(['id: type number → string'])
    // Nothing of a refused open stays: the stored collection still opens.
    const still = await open([withIsbn])
    expect(await store(still, 'shelves').count({ where: [] })).toBe(2)
    await still.close()
  })

  it('counts records a write by id creates under the count rule, and keeps keyed answers', async () => {
    const tallies: CollectionDeclaration = { ...books({}, 'tallies'), ids: 'count', firstId: 1, putCreates: true }
    const stores = await open([tallies])
    try {
      const t = store(stores, 'tallies')
      expect((await t.create({ year: 1, price: 1, inPrint: true })).record.id).toBe(1)
      expect(await t.put(5, { year: 5, price: 5, inPrint: false })).toMatchObject({ outcome: 'created' })
      expect(await t.put(6, { year: 6, price: 6, inPrint: false }, { kind: 'absent' })).toMatchObject({ outcome: 'created' })
      // Three held: the count rule gives firstId + 3 = 4; then 5, which a record holds: replaced.
      expect((await t.create({ year: 4, price: 4, inPrint: true })).record.id).toBe(4)
      expect(await t.create({ year: 50, price: 50, inPrint: true })).toMatchObject({ outcome: 'replaced', record: { id: 5, year: 50 } })
      expect(await t.delete(6, { kind: 'present' })).toEqual({ outcome: 'deleted' })
      // Held 1, 4, 5: the count rule gives 4 again, replacing it.
      expect(await t.create({ year: 0, price: 0, inPrint: true })).toMatchObject({ outcome: 'replaced', record: { id: 4 } })
      const keyed = { key: 'k-1', fingerprint: 'f', answer: () => ({ status: 201, headers: {}, body: 'kept' }) }
      const first = await t.create({ year: 7, price: 7, inPrint: true }, keyed)
      await expect(t.create({ year: 7, price: 7, inPrint: true }, keyed)).rejects.toMatchObject({ kept: { answer: { body: 'kept' } } })
      expect(await t.keptWrite?.('k-1')).toMatchObject({ fingerprint: 'f' })
      expect(first).toMatchObject({ outcome: 'replaced', record: { id: 4, year: 7 } })
      expect(await t.count({ where: [] })).toBe(3)
    } finally {
      await stores.close()
    }
  })

  it('opens a database at migration 6 with its students, addresses, counters and changes intact', async () => {
    const old = await createTestDatabase()
    const pool = new pg.Pool({ connectionString: old.url, max: 1 })
    pool.on('error', () => {})
    try {
      await migratePostgres(pool, POSTGRES_MIGRATIONS.filter((m) => m.version <= 6))
      // Written through the step-6 functions, whose triggers log the changes.
      await pool.query(`SELECT rqs_create_student('Ada', 'Lovelace', 36, 'ada', 'lovelace');
        SELECT rqs_create_student('Alan', 'Turing', 41, 'alan', 'turing');
        SELECT rqs_create_student('Kurt', 'Gödel', 71, 'kurt', 'gödel');
        SELECT rqs_delete_student(1);
        SELECT rqs_create_address('Home', 'Bern', '3000', 'home', 'bern', '3000');
        INSERT INTO rqs_addresses (id, name, city, postal_code, name_folded, city_folded, postal_code_folded) VALUES (2, 'Work', 'Basel', '4000', 'work', 'basel', '4000')`)
      // A sequence rule had run once: next_id is past every id ever issued.
      await pool.query('UPDATE rqs_student_count SET next_id = 9')
      const stores = await openPostgresStores({ url: old.url, poolSize: 2, startupWaitMs: 0, collections: [NOTES] })
      try {
        expect(await stores.students.list()).toEqual([{ id: 0, firstName: 'Ada', lastName: 'Lovelace', age: 36 }, { id: 2, firstName: 'Kurt', lastName: 'Gödel', age: 71 }])
        expect(await stores.addresses.get(2n)).toEqual({ id: 2n, name: 'Work', city: 'Basel', postalCode: '4000' })
        expect(await stores.students.count({ where: [], search: 'GÖDEL' })).toBe(1)
        const changes = await stores.changes.since(0, 100)
        expect(changes.map((c) => [c.seq, c.service, c.kind, c.id])).toEqual([
          [1, 'students', 'created', 0], [2, 'students', 'created', 1], [3, 'students', 'created', 2], [4, 'students', 'deleted', 1],
          [5, 'addresses', 'created', 1n], [6, 'addresses', 'created', 2n]
        ])
        expect(changes[0]?.record).toEqual({ id: 0, firstName: 'Ada', lastName: 'Lovelace', age: 36 })
        // The count rule: 2 records held, so id 2, replacing Kurt; the address sequence skips the taken id 2.
        expect(await stores.students.create({ firstName: 'Grace', lastName: 'Hopper', age: 85 })).toEqual({ id: 2, firstName: 'Grace', lastName: 'Hopper', age: 85 })
        expect((await stores.addresses.create({ name: 'Lab', city: 'Zug', postalCode: '6300' })).id).toBe(3n)
        const next = await stores.changes.since(6, 100)
        expect(next.map((c) => [c.seq, c.service, c.kind, c.id])).toEqual([[7, 'students', 'replaced', 2], [8, 'addresses', 'created', 3n]])
        await store(stores, 'field-notes').create({ author: 'A', text: 'B' })
      } finally {
        await stores.close()
      }
      const sequence = await openPostgresStores({ url: old.url, poolSize: 1, startupWaitMs: 0, studentIds: 'sequence' })
      try {
        expect((await sequence.students.create({ firstName: 'E', lastName: 'F', age: 1 })).id).toBe(9)
        expect(await sequence.students.delete(0)).toEqual({ outcome: 'deleted' })
      } finally {
        await sequence.close()
      }
      const count = await openPostgresStores({ url: old.url, poolSize: 1, startupWaitMs: 0 })
      try {
        // Held: 2 and 9; the count rule gives 2 again.
        expect(await count.students.create({ firstName: 'G', lastName: 'H', age: 2 })).toEqual({ id: 2, firstName: 'G', lastName: 'H', age: 2 })
      } finally {
        await count.close()
      }
    } finally {
      await pool.end()
      await old.drop()
    }
  })
})
