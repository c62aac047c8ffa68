import { afterAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { CollectionChangedError, userTableOf, type CollectionDeclaration, type IdKind, type RecordId, type RecordQuery, type RecordStore, type RecordStores, type StoredField, type StoredRecord } from '../../src/domain/index.js'
import { SQLITE_MIGRATIONS } from '../../src/stores/sqlite/schema.js'
import { migrate } from '../../src/stores/sqlite/migrate.js'
import { tempDir } from './harness.js'
import { openSqliteStores } from '../helpers/built-ins.js'

/**
 * The SQLite store keeps any collection a user declares in one generic table
 * (issue 21): every field type and id rule, across restarts, with added
 * optional fields migrated and any other change of a stored declaration
 * refused; files written before the registry (migration 5) keep their data,
 * counters and change log.
 */

const FIELDS: Record<string, StoredField> = {
  title: { type: 'string', required: true },
  subtitle: { type: 'string', required: false },
  year: { type: 'integer', required: true },
  price: { type: 'number', required: true },
  inPrint: { type: 'boolean', required: true }
}

function books (ids: IdKind, fields: Record<string, StoredField> = FIELDS, overrides: Partial<CollectionDeclaration> = {}): CollectionDeclaration {
  return { name: 'books', table: userTableOf('books'), fields, ids, firstId: 1, putCreates: ids === 'uuid', keptOnUpdate: [], ...overrides }
}

function booksOf (stores: RecordStores): RecordStore {
  const store = stores.collections.get('books')
  if (store === undefined) throw new Error('no books store')
  return store
}

const dune = { title: 'Dune', year: 1965, price: 9.5, inPrint: true }
const solaris = { title: 'Solaris', subtitle: 'Ünïcode Édition', year: 1961, price: 12, inPrint: false }

describe('SQLite collections', () => {
  const tmp = tempDir()
  let files = 0
  const nextPath = (): string => join(tmp.dir, `c${++files}.db`)
  afterAll(() => { tmp.remove() })

  for (const ids of ['sequence', 'uuid'] as const) {
    it(`keeps records of every field type under the ${ids} id rule: create, get, put, delete, query, count, changes, restart`, async () => {
      const path = nextPath()
      const declaration = books(ids)
      let stores = openSqliteStores({ path, collections: [declaration] })
      let store = booksOf(stores)

      const a = await store.create(dune)
      const b = await store.create(solaris)
      expect(a.outcome).toBe('created')
      if (ids === 'sequence') expect([a.record.id, b.record.id]).toEqual([1, 2])
      else expect(typeof a.record.id === 'string' && /^[0-9a-f-]{36}$/.test(a.record.id)).toBe(true)
      // An unset optional field is absent, not undefined or null.
      expect(Object.keys(a.record)).toEqual(['id', 'title', 'year', 'price', 'inPrint'])
      expect(await store.get(a.record.id)).toStrictEqual(a.record)
      expect(await store.get(b.record.id)).toStrictEqual({ id: b.record.id, ...solaris })

      const ids_ = async (q: RecordQuery): Promise<RecordId[]> => (await store.query(q)).map((r) => r.id)
      expect(await ids_({ where: [{ field: 'inPrint', op: 'eq', value: false }], sort: [] })).toEqual([b.record.id])
      expect(await ids_({ where: [{ field: 'inPrint', op: 'eq', value: true }], sort: [] })).toEqual([a.record.id])
      expect(await ids_({ where: [{ field: 'subtitle', op: 'contains', value: 'ÜNÏCODE' }], sort: [] })).toEqual([b.record.id])
      // A condition on an absent optional field never holds.
      expect(await ids_({ where: [{ field: 'subtitle', op: 'ne', value: 'x' }], sort: [] })).toEqual([b.record.id])
      expect(await ids_({ where: [], search: 'édition', sort: [] })).toEqual([b.record.id])
      expect(await ids_({ where: [], search: 'dune', sort: [] })).toEqual([a.record.id])
      // Unset first ascending, as the memory store orders.
      expect(await ids_({ where: [], sort: [{ field: 'subtitle', descending: false }] })).toEqual([a.record.id, b.record.id])
      expect(await ids_({ where: [], sort: [{ field: 'price', descending: true }] })).toEqual([b.record.id, a.record.id])
      expect(await store.count({ where: [{ field: 'year', op: 'gt', value: 1962 }] })).toBe(1)
      expect(await store.query({ where: [{ field: 'price', op: 'eq', value: 12 }], sort: [] })).toStrictEqual([{ id: b.record.id, ...solaris }])
      const streamed: StoredRecord[] = []
      for await (const batch of store.batches({ where: [], sort: [] })) streamed.push(...batch)
      expect(streamed).toHaveLength(2)
      expect(streamed.find((r) => r.id === a.record.id)).toStrictEqual(a.record)

      const put = await store.put(a.record.id, { ...dune, subtitle: 'Book one', inPrint: false })
      expect(put).toEqual({ outcome: 'replaced', record: { id: a.record.id, ...dune, subtitle: 'Book one', inPrint: false } })
      expect(await store.put(a.record.id, dune, { kind: 'matches', current: a.record })).toEqual({ outcome: 'precondition-failed' })
      const missing = ids === 'sequence' ? 99 : '00000000-0000-4000-8000-000000000000'
      const created = await store.put(missing, dune)
      expect(created.outcome).toBe(ids === 'uuid' ? 'created' : 'not-found')
      expect(await store.delete(b.record.id)).toEqual({ outcome: 'deleted' })
      expect(await store.get(b.record.id)).toBeUndefined()
      expect(await store.count({ where: [] })).toBe(ids === 'uuid' ? 2 : 1)

      const changes = (await stores.changes.since(0, 100)).filter((c) => c.service === 'books')
      expect(changes.map((c) => c.kind)).toEqual(['created', 'created', 'replaced', ...(ids === 'uuid' ? ['created'] : []), 'deleted'])
      expect(changes[0]?.record).toStrictEqual(a.record)
      expect(changes[2]?.record).toStrictEqual(put.outcome === 'replaced' ? put.record : undefined)
      expect(changes.at(-1)?.id).toBe(b.record.id)
      await stores.close()

      stores = openSqliteStores({ path, collections: [declaration] })
      store = booksOf(stores)
      expect(await store.get(a.record.id)).toStrictEqual({ id: a.record.id, ...dune, subtitle: 'Book one', inPrint: false })
      expect(await ids_({ where: [{ field: 'subtitle', op: 'eq', value: 'Book one' }], sort: [] })).toEqual([a.record.id])
      // A sequence never issues an id again, also after a restart.
      const c = await store.create(dune)
      if (ids === 'sequence') expect(c.record.id).toBe(3)
      await stores.close()
    })

    it(`imports records under the ${ids} id rule: the last line of an id wins, one change each, ids go on after them`, async () => {
      const path = nextPath()
      const stores = openSqliteStores({ path, collections: [books(ids)] })
      try {
        const store = booksOf(stores)
        const id = (n: number): RecordId => ids === 'sequence' ? n : `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`
        async function * source (): AsyncGenerator<StoredRecord[]> {
          yield [{ id: id(10), ...dune }, { id: id(3), ...solaris }]
          yield [{ id: id(10), ...dune, title: 'Dune Messiah', subtitle: 'Two' }]
        }
        expect(await store.importAll(source())).toBe(3)
        expect(await store.query({ where: [], sort: [] })).toStrictEqual([
          { id: id(3), ...solaris },
          { id: id(10), ...dune, title: 'Dune Messiah', subtitle: 'Two' }
        ])
        expect(await store.count({ where: [], search: 'messiah' })).toBe(1)
        const changes = await stores.changes.since(0, 100)
        expect(changes.map((c) => [c.kind, c.id])).toEqual([['created', id(3)], ['created', id(10)]])
        const next = await store.create(dune)
        if (ids === 'sequence') expect(next.record.id).toBe(11)
        expect(await store.count({ where: [] })).toBe(3)
      } finally {
        await stores.close()
      }
    })
  }

  it('gives int64 ids as bigints and integer fields as numbers', async () => {
    const stores = openSqliteStores({ path: nextPath(), collections: [books('int64', FIELDS, { putCreates: true })] })
    try {
      const store = booksOf(stores)
      expect((await store.put(2n, dune)).outcome).toBe('created')
      const a = await store.create(dune)
      const b = await store.create(solaris)
      // Generated ids skip the one a PUT holds.
      expect([a.record.id, b.record.id]).toEqual([1n, 3n])
      expect(await store.get(3n)).toStrictEqual({ id: 3n, ...solaris })
      expect(await store.query({ where: [{ field: 'year', op: 'lt', value: 1962 }], sort: [] })).toStrictEqual([{ id: 3n, ...solaris }])
    } finally {
      await stores.close()
    }
  })

  it('adds a field declared as optional on restart: old records lack it, new ones have it, filters and the search see it', async () => {
    const path = nextPath()
    const first = openSqliteStores({ path, collections: [books('sequence')] })
    const old = await first.collections.get('books')?.create(dune)
    await first.close()

    const extended = books('sequence', { ...FIELDS, isbn: { type: 'string', required: false }, pages: { type: 'integer', required: false } })
    const stores = openSqliteStores({ path, collections: [extended] })
    try {
      const store = booksOf(stores)
      expect(await store.get(1)).toStrictEqual(old?.record)
      const added = await store.create({ ...solaris, isbn: 'ISBN-0-15-683750-X', pages: 204 })
      expect(added.record).toStrictEqual({ id: 2, ...solaris, isbn: 'ISBN-0-15-683750-X', pages: 204 })
      expect(await store.get(2)).toStrictEqual(added.record)
      expect((await store.query({ where: [{ field: 'pages', op: 'gte', value: 200 }], sort: [] })).map((r) => r.id)).toEqual([2])
      expect((await store.query({ where: [{ field: 'isbn', op: 'contains', value: 'isbn-0' }], sort: [] })).map((r) => r.id)).toEqual([2])
      expect(await store.count({ where: [], search: '683750' })).toBe(1)
      expect((await store.query({ where: [], sort: [{ field: 'pages', descending: true }] })).map((r) => r.id)).toEqual([2, 1])
      const change = (await stores.changes.since(0, 100)).at(-1)
      expect(change?.record).toStrictEqual(added.record)
    } finally {
      await stores.close()
    }
    // Opened again with the same declaration: nothing to do.
    const again = openSqliteStores({ path, collections: [extended] })
    expect(await again.collections.get('books')?.count({ where: [] })).toBe(2)
    await again.close()
  })

  const refused: Array<[string, CollectionDeclaration, string[]]> = [
    ['a changed type', books('sequence', { ...FIELDS, year: { type: 'string', required: true } }), ['year: type integer → string']],
    ['a removed field', books('sequence', Object.fromEntries(Object.entries(FIELDS).filter(([name]) => name !== 'price'))), ['price: removed']],
    ['a field made required', books('sequence', { ...FIELDS, subtitle: { type: 'string', required: true } }), ['subtitle: optional → required']],
    ['a field added as required', books('sequence', { ...FIELDS, isbn: { type: 'string', required: true } }), ['isbn: added as required']],
    ['another id type', books('uuid'), ['id: type number → string']]
  ]
  for (const [what, declaration, changes] of refused) {
    it(`refuses to open a file whose stored collection differs by ${what}, naming the change, and changes nothing`, async () => {
      const path = nextPath()
      const first = openSqliteStores({ path, collections: [books('sequence')] })
      await first.collections.get('books')?.create(dune)
      await first.close()
      let error: unknown
      try { openSqliteStores({ path, collections: [declaration] }) } catch (err) { error = err }
      expect(error).toBeInstanceOf(CollectionChangedError)
      expect((error as CollectionChangedError).collection).toBe('books')
      expect((error as CollectionChangedError).changes).toEqual(changes)
      expect((error as Error).message).toBe(`collection books no longer matches the one stored in ${path}: ${changes.join('; ')} ` +
        '(rqs keeps stored data: declare added fields as optional, or use a new collection name)')
      const stores = openSqliteStores({ path, collections: [books('sequence')] })
      expect(await stores.collections.get('books')?.get(1)).toStrictEqual({ id: 1, ...dune })
      await stores.close()
    })
  }

  it('switching the students id rule keeps the file open: count and sequence store the same ids', async () => {
    const path = nextPath()
    const spec = openSqliteStores({ path })
    await spec.students.create({ firstName: 'A', lastName: 'B', age: 1 })
    await spec.close()
    const sequence = openSqliteStores({ path, studentIds: 'sequence' })
    expect((await sequence.students.create({ firstName: 'C', lastName: 'D', age: 2 })).id).toBe(1)
    await sequence.close()
  })

  it('opens a file written at migration 5 with its records, counters and change log, and the next creates get the ids its counters say', async () => {
    const path = nextPath()
    const db = new Database(path)
    migrate(db, SQLITE_MIGRATIONS.slice(0, 5))
    db.exec(`
      INSERT INTO rqs_students (id, first_name, last_name, age, first_name_folded, last_name_folded)
        VALUES (0, 'Ada', 'Lovelace', 36, 'ada', 'lovelace'), (5, 'Alan', 'Turing', 41, 'alan', 'turing');
      UPDATE rqs_student_count SET n = 2, next_id = 9;
      INSERT INTO rqs_addresses (id, name, city, postal_code, name_folded, city_folded, postal_code_folded)
        VALUES (1, 'Home', 'Berlin', '10115', 'home', 'berlin', '10115'), (7, 'Work', 'Köln', '50667', 'work', 'köln', '50667');
      UPDATE rqs_address_ids SET next = 7;
      DELETE FROM rqs_students WHERE id = 5;
      UPDATE rqs_student_count SET n = 1;
    `)
    db.close()

    const stores = openSqliteStores({ path, studentIds: 'sequence' })
    try {
      expect(await stores.students.list()).toEqual([{ id: 0, firstName: 'Ada', lastName: 'Lovelace', age: 36 }])
      expect(await stores.addresses.list({ limit: 10 })).toEqual([
        { id: 1n, name: 'Home', city: 'Berlin', postalCode: '10115' },
        { id: 7n, name: 'Work', city: 'Köln', postalCode: '50667' }
      ])
      expect(await stores.addresses.count({ where: [], search: 'KÖLN' })).toBe(1)
      const before = await stores.changes.since(0, 100)
      expect(before.map((c) => [c.service, c.kind, c.id])).toEqual([
        ['students', 'created', 0], ['students', 'created', 5], ['addresses', 'created', 1n], ['addresses', 'created', 7n], ['students', 'deleted', 5]
      ])
      // sequence: one past the highest id ever issued (9); addresses: 7 is taken, so 8.
      expect((await stores.students.create({ firstName: 'Grace', lastName: 'Hopper', age: 85 })).id).toBe(9)
      expect((await stores.addresses.create({ name: 'Club', city: 'Bonn', postalCode: '53111' })).id).toBe(8n)
      const after = await stores.changes.since(0, 100)
      expect(after.slice(0, before.length)).toEqual(before)
      expect(after.slice(before.length).map((c) => [c.service, c.kind, c.id])).toEqual([['students', 'created', 9], ['addresses', 'created', 8n]])
    } finally {
      await stores.close()
    }
    // count: id = the records held (2 now).
    const spec = openSqliteStores({ path })
    expect((await spec.students.create({ firstName: 'Edsger', lastName: 'Dijkstra', age: 72 })).id).toBe(2)
    await spec.close()

    const file = new Database(path, { readonly: true })
    expect(file.prepare('SELECT collection, n, next FROM rqs_counters ORDER BY collection').all()).toEqual([
      { collection: 'addresses', n: 3, next: 9 },
      { collection: 'students', n: 3, next: 10 }
    ])
    expect(file.prepare("SELECT count(*) FROM sqlite_master WHERE name IN ('rqs_student_count', 'rqs_address_ids')").pluck().get()).toBe(0)
    file.close()
  })
})
