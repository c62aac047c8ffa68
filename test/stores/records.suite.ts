import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { IdempotencyKeyUsedError, matcher, sortComparator, userTableOf, type CollectionDeclaration, type Condition, type RecordQuery, type RecordStore, type SortKey, type StoredRecord } from '../../src/domain/index.js'
import { fieldKindsOf } from '../../src/domain/index.js'
import { kindLabel, type StoreKind } from './harness.js'
import type { Stores } from '../helpers/built-ins.js'

/**
 * The record engine's conformance suite (issue 21): one generic table per
 * declaration, exercised with declarations unlike the built-in ones (every
 * field type, optional fields, each id rule, PUT that creates and keeps a
 * field), the same on memory, SQLite and PostgreSQL. Each test declares
 * collections of its own name, so a database shared by the file's tests
 * (PostgreSQL) gives each test empty tables.
 */
let made = 0

function declarations (): { books: CollectionDeclaration, tags: CollectionDeclaration, notes: CollectionDeclaration } {
  const n = ++made
  const declare = (name: string, rest: Omit<CollectionDeclaration, 'name' | 'table'>): CollectionDeclaration => ({ name, table: userTableOf(name), ...rest })
  return {
    books: declare(`books-${n}`, {
      fields: {
        title: { type: 'string', required: true },
        year: { type: 'integer', required: false },
        price: { type: 'number', required: false },
        available: { type: 'boolean', required: false }
      },
      ids: 'sequence',
      firstId: 1,
      putCreates: false,
      keptOnUpdate: []
    }),
    tags: declare(`tags-${n}`, { fields: { label: { type: 'string', required: true }, weight: { type: 'number', required: true } }, ids: 'uuid', firstId: 1, putCreates: false, keptOnUpdate: [] }),
    notes: declare(`notes-${n}`, { fields: { author: { type: 'string', required: true }, text: { type: 'string', required: true } }, ids: 'int64', firstId: 1, putCreates: true, keptOnUpdate: ['author'] })
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

async function * once<R> (records: R[]): AsyncGenerator<R[]> {
  yield records
}

async function all (store: RecordStore, query: Partial<RecordQuery> = {}): Promise<StoredRecord[]> {
  return await store.query({ where: [], sort: [], ...query })
}

/** Registers the suite for each kind: records.slow.test.ts (memory, SQLite) and records-pg.test.ts (PostgreSQL) call it. */
export function recordsSuite (kinds: StoreKind[]): void {
  for (const kind of kinds) suiteOn(kind)
}

function suiteOn (kind: StoreKind): void {
  describe.skipIf(kind.skip !== undefined)(`${kindLabel(kind)} store, declared collections${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
    let stores: Stores
    let declared: ReturnType<typeof declarations>
    let books: RecordStore
    let tags: RecordStore
    let notes: RecordStore

    beforeAll(kind.setup)
    afterAll(kind.teardown)
    beforeEach(async () => {
      declared = declarations()
      stores = await kind.fresh({ collections: Object.values(declared) })
      books = stores.collections.get(declared.books.name) as RecordStore
      tags = stores.collections.get(declared.tags.name) as RecordStore
      notes = stores.collections.get(declared.notes.name) as RecordStore
    })
    afterEach(async () => { await stores.close() })

    it('keeps the built-in collections first, then the declared ones, each with its declaration', () => {
      expect([...stores.collections.keys()]).toEqual(['students', 'addresses', declared.books.name, declared.tags.name, declared.notes.name])
      expect(books.declaration).toEqual(declared.books)
    })

    it('creates records in declaration order, optional fields absent when unset, every type as given', async () => {
      const first = await books.create({ title: 'Dune', year: 1965, price: 9.5, available: true })
      expect(first).toEqual({ outcome: 'created', record: { id: 1, title: 'Dune', year: 1965, price: 9.5, available: true } })
      expect(Object.keys(first.record)).toEqual(['id', 'title', 'year', 'price', 'available'])
      const bare = await books.create({ title: 'Emma' })
      expect(bare.record).toEqual({ id: 2, title: 'Emma' })
      expect(await books.get(2)).toEqual({ id: 2, title: 'Emma' })
      expect(await books.get(1)).toEqual(first.record)
      const no = await books.create({ title: 'No', available: false, price: -0.25 })
      expect(await books.get(no.record.id)).toEqual({ id: 3, title: 'No', price: -0.25, available: false })
      expect(await books.get(99)).toBeUndefined()
    })

    it('sequence ids are never reused, also after a delete of the highest', async () => {
      await books.create({ title: 'a' })
      const b = await books.create({ title: 'b' })
      expect(await books.delete(b.record.id)).toEqual({ outcome: 'deleted' })
      expect((await books.create({ title: 'c' })).record.id).toBe(3)
    })

    it('uuid ids are random version 4 UUIDs, read back by id', async () => {
      const a = await tags.create({ label: 'red', weight: 1 })
      const b = await tags.create({ label: 'blue', weight: 2 })
      expect(a.record.id).toMatch(UUID)
      expect(b.record.id).not.toBe(a.record.id)
      expect(await tags.get(a.record.id)).toEqual({ id: a.record.id, label: 'red', weight: 1 })
      expect(await tags.get('00000000-0000-4000-8000-000000000000')).toBeUndefined()
    })

    it('put replaces a held record (unset optional fields go), and is not-found for a missing one unless the declaration creates', async () => {
      const { record } = await books.create({ title: 'Dune', year: 1965, available: true })
      expect(await books.put(record.id, { title: 'Dune', price: 12 })).toEqual({ outcome: 'replaced', record: { id: record.id, title: 'Dune', price: 12 } })
      expect(await books.get(record.id)).toEqual({ id: record.id, title: 'Dune', price: 12 })
      expect(await books.put(42, { title: 'x' })).toEqual({ outcome: 'not-found' })
      expect(await books.get(42)).toBeUndefined()

      expect(await notes.put(9223372036854775807n, { author: 'Ada', text: 'hi' })).toEqual({ outcome: 'created', record: { id: 9223372036854775807n, author: 'Ada', text: 'hi' } })
      // keptOnUpdate: the stored author stays, the text changes.
      expect(await notes.put(9223372036854775807n, { author: 'Eve', text: 'bye' })).toEqual({ outcome: 'replaced', record: { id: 9223372036854775807n, author: 'Ada', text: 'bye' } })
    })

    it('int64 ids start at 1 and skip ids a put already holds', async () => {
      await notes.put(2n, { author: 'a', text: 'two' })
      expect((await notes.create({ author: 'a', text: 'x' })).record.id).toBe(1n)
      expect((await notes.create({ author: 'a', text: 'y' })).record.id).toBe(3n)
    })

    it('bulk creates as creates one at a time would: ids in turn past held ones, a change each in order, the count', async () => {
      await notes.put(300n, { author: 'a', text: 'held' })
      await notes.put(301n, { author: 'a', text: 'held' })
      const before = (await stores.changes.window()).latest
      const made = await notes.createMany(Array.from({ length: 600 }, (_, i) => ({ author: 'a', text: `n${i}` })))
      // int64: 1 … 299, then past the two a put holds, 302 … 602.
      const ids = Array.from({ length: 600 }, (_, i) => BigInt(i < 299 ? i + 1 : i + 3))
      expect(made.map((r) => r.outcome)).toEqual(ids.map(() => 'created'))
      expect(made.map((r) => r.record)).toEqual(ids.map((id, i) => ({ id, author: 'a', text: `n${i}` })))
      expect((await notes.create({ author: 'a', text: 'next' })).record.id).toBe(603n)
      const changes = await stores.changes.since(before, 1000)
      expect(changes.slice(0, 600).map((c) => [c.kind, c.id, c.record])).toEqual(made.map((r) => ['created', r.record.id, r.record]))
      expect(await notes.count({ where: [] })).toBe(603)

      await books.create({ title: 'first' })
      const shelf = await books.createMany(Array.from({ length: 777 }, (_, i) => ({ title: `b${i}`, ...(i % 2 === 0 ? { year: i } : {}), available: i % 3 === 0 })))
      expect(shelf.map((r) => r.record.id)).toEqual(Array.from({ length: 777 }, (_, i) => i + 2))
      expect(await books.get(778)).toEqual({ id: 778, title: 'b776', year: 776, available: false })
      expect((await books.create({ title: 'last' })).record.id).toBe(779)
      expect(await books.count({ where: [] })).toBe(779)

      const labels = await tags.createMany([{ label: 'a', weight: 1 }, { label: 'b', weight: 2 }, { label: 'c', weight: 3 }])
      expect(new Set(labels.map((r) => r.record.id)).size).toBe(3)
      for (const { record } of labels) expect(await tags.get(record.id)).toEqual(record)
      expect(await tags.count({ where: [] })).toBe(3)
    })

    it('writes by id honour their condition: compare-and-set on the whole record, absent, present', async () => {
      const { record } = await books.create({ title: 'Dune', year: 1965 })
      expect(await books.put(record.id, { title: 'Dune 2' }, { kind: 'matches', current: { ...record, year: 1 } })).toEqual({ outcome: 'precondition-failed' })
      expect(await books.put(record.id, { title: 'Dune 2' }, { kind: 'absent' })).toEqual({ outcome: 'precondition-failed' })
      expect((await books.put(record.id, { title: 'Dune 2' }, { kind: 'matches', current: record })).outcome).toBe('replaced')
      expect(await books.delete(record.id, { kind: 'matches', current: record })).toEqual({ outcome: 'precondition-failed' })
      expect(await books.delete(record.id, { kind: 'present' })).toEqual({ outcome: 'deleted' })
      expect(await books.delete(record.id)).toEqual({ outcome: 'not-found' })
      expect(await notes.put(5n, { author: 'a', text: 't' }, { kind: 'present' })).toEqual({ outcome: 'precondition-failed' })
      expect(await notes.get(5n)).toBeUndefined()
    })

    it('filters by every field type; an unset optional field satisfies no condition; the search reads string fields only', async () => {
      await books.importAll(once([
        { id: 1, title: 'Dune', year: 1965, price: 9.5, available: true },
        { id: 2, title: 'Emma', year: 1815, available: false },
        { id: 3, title: 'Ulysses', price: 20 },
        { id: 4, title: '1984', year: 1949, price: 7.25, available: true }
      ]))
      const ids = async (where: Condition[], search?: string): Promise<unknown[]> => (await all(books, { where, search })).map((r) => r.id)
      expect(await ids([{ field: 'available', op: 'eq', value: true }])).toEqual([1, 4])
      expect(await ids([{ field: 'available', op: 'ne', value: true }])).toEqual([2])
      expect(await ids([{ field: 'price', op: 'lt', value: 10 }])).toEqual([1, 4])
      expect(await ids([{ field: 'price', op: 'gte', value: 9.5 }])).toEqual([1, 3])
      expect(await ids([{ field: 'year', op: 'ne', value: 1965 }])).toEqual([2, 4])
      expect(await ids([{ field: 'year', op: 'gt', value: 1900 }])).toEqual([1, 4])
      expect(await ids([{ field: 'title', op: 'contains', value: 'MM' }])).toEqual([2])
      expect(await ids([], '19')).toEqual([4]) // the title "1984", not the years
      expect(await books.count({ where: [{ field: 'price', op: 'ne', value: 1 }] })).toBe(3)
    })

    it('sorts by a number descending (ties by id), by text, and pages by keyset', async () => {
      const ids = ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b', '00000000-0000-4000-8000-00000000000c', '00000000-0000-4000-8000-00000000000d']
      await tags.importAll(once([
        { id: ids[0] as string, label: 'a', weight: 5 }, { id: ids[1] as string, label: 'b', weight: 7.5 }, { id: ids[2] as string, label: 'c', weight: 5 }, { id: ids[3] as string, label: 'd', weight: -1 }
      ]))
      const order = (records: readonly StoredRecord[]): unknown[] => records.map((r) => ids.indexOf(r.id as string))
      const sort: SortKey[] = [{ field: 'weight', descending: true }]
      expect(order(await all(tags, { sort }))).toEqual([1, 2, 0, 3])
      expect(order(await all(tags, { sort, limit: 2 }))).toEqual([1, 2])
      expect(order(await all(tags, { sort, after: { keys: [5], id: ids[2] as string } }))).toEqual([0, 3])
      expect(order(await all(tags, { sort: [{ field: 'label', descending: false }], after: { keys: ['b'], id: ids[1] as string } }))).toEqual([2, 3])
      expect(order(await all(tags, { sort: [{ field: 'id', descending: true }], limit: 3 }))).toEqual([3, 2, 1])
      const streamed: unknown[] = []
      for await (const batch of tags.batches({ where: [], sort })) streamed.push(...order(batch))
      expect(streamed).toEqual([1, 2, 0, 3])
    })

    it('imports all or nothing: the last line of an id wins, sequence goes on past the imported ids', async () => {
      expect(await books.importAll(once([{ id: 7, title: 'x' }, { id: 3, title: 'y' }, { id: 7, title: 'z', available: false }]))).toBe(3)
      expect(await all(books)).toEqual([{ id: 3, title: 'y' }, { id: 7, title: 'z', available: false }])
      expect((await books.create({ title: 'next' })).record.id).toBe(8)
      async function * failing (): AsyncGenerator<StoredRecord[]> {
        yield [{ id: 20, title: 'never' }]
        throw new Error('bad line')
      }
      await expect(books.importAll(failing())).rejects.toThrow('bad line')
      expect(await books.get(20)).toBeUndefined()
      const tag = { id: '3f0b1d6e-9c1a-4c55-8d1e-2b6f7e0a9c11', label: 'kept', weight: 3 }
      await tags.importAll(once([tag]))
      expect(await tags.get(tag.id)).toEqual(tag)
    })

    it('records a change per write under the collection\'s name, the record as stored (booleans as booleans, ids typed)', async () => {
      const before = (await stores.changes.window()).latest
      const { record } = await books.create({ title: 'Dune', available: false })
      await books.put(record.id, { title: 'Dune', year: 1965, available: true })
      await books.delete(record.id)
      const tag = (await tags.create({ label: 'red', weight: 1 })).record
      await notes.put(12345678901234567n, { author: 'a', text: 't' })
      const changes = (await stores.changes.since(before, 100)).map((c) => ({ service: c.service, kind: c.kind, id: c.id, record: c.record }))
      expect(changes).toEqual([
        { service: declared.books.name, kind: 'created', id: record.id, record: { id: record.id, title: 'Dune', available: false } },
        { service: declared.books.name, kind: 'replaced', id: record.id, record: { id: record.id, title: 'Dune', year: 1965, available: true } },
        { service: declared.books.name, kind: 'deleted', id: record.id, record: null },
        { service: declared.tags.name, kind: 'created', id: tag.id, record: tag },
        { service: declared.notes.name, kind: 'created', id: 12345678901234567n, record: { id: 12345678901234567n, author: 'a', text: 't' } }
      ])
    })

    it('keeps a keyed write\'s answer with it: a second write with the key writes nothing', async () => {
      const keyed = { key: `k-${made}`, fingerprint: 'f', answer: () => ({ status: 201, headers: {}, body: 'kept' }) }
      await books.create({ title: 'once' }, keyed)
      await expect(books.create({ title: 'twice' }, keyed)).rejects.toBeInstanceOf(IdempotencyKeyUsedError)
      expect(await all(books)).toEqual([{ id: 1, title: 'once' }])
      expect((await books.keptWrite?.(keyed.key))?.answer.body).toBe('kept')
    })

    it.skipIf(!kind.durable)('keeps records and the next id across a restart', async () => {
      await books.create({ title: 'a', available: true })
      const b = await books.create({ title: 'b' })
      await books.delete(b.record.id)
      const tag = (await tags.create({ label: 'x', weight: 1 })).record
      await stores.close()
      stores = await kind.reopen({ collections: Object.values(declared) }) as Stores
      books = stores.collections.get(declared.books.name) as RecordStore
      expect(await all(books)).toEqual([{ id: 1, title: 'a', available: true }])
      expect((await books.create({ title: 'c' })).record.id).toBe(3)
      expect(await stores.collections.get(declared.tags.name)?.get(tag.id)).toEqual(tag)
    })

    it('answers filters, sorts and keyset pages as the reference does (property)', async () => {
      const record = fc.record({
        title: fc.constantFrom('a', 'B', 'ab', 'Äb', 'z'),
        year: fc.option(fc.integer({ min: 1990, max: 1994 }), { nil: undefined }),
        price: fc.option(fc.constantFrom(0, 1.5, -2, 3.25), { nil: undefined }),
        available: fc.option(fc.boolean(), { nil: undefined })
      }, { requiredKeys: ['title'] })
      const condition: fc.Arbitrary<Condition> = fc.oneof(
        fc.record({ field: fc.constant('year'), op: fc.constantFrom('eq', 'ne', 'gt', 'gte', 'lt', 'lte'), value: fc.integer({ min: 1990, max: 1994 }) }),
        fc.record({ field: fc.constant('price'), op: fc.constantFrom('eq', 'ne', 'gt', 'lte'), value: fc.constantFrom(0, 1.5, -2, 3.25) }),
        fc.record({ field: fc.constant('available'), op: fc.constantFrom('eq', 'ne'), value: fc.boolean() }),
        fc.record({ field: fc.constant('title'), op: fc.constantFrom('eq', 'contains', 'gt'), value: fc.constantFrom('a', 'b', 'ä') })
      ) as fc.Arbitrary<Condition>
      // Sorts over required fields and the id (the HTTP layer offers no sort by an optional field).
      const sort = fc.uniqueArray(fc.record({ field: fc.constantFrom('title', 'id'), descending: fc.boolean() }), { selector: (k) => k.field, maxLength: 2 })
      const kinds = fieldKindsOf(declared.books)
      let run = 0
      await fc.assert(fc.asyncProperty(fc.array(record, { maxLength: 12 }), fc.array(condition, { maxLength: 2 }), sort, fc.integer({ min: 1, max: 4 }), async (inputs, where, keys, pageSize) => {
        const store = (await kind.fresh({ collections: [{ ...declared.books, name: `${declared.books.name}-p${++run}`, table: userTableOf(`${declared.books.name}-p${run}`) }] }))
        try {
          const target = [...store.collections.values()][2] as RecordStore
          const records = inputs.map((r, i) => ({ id: i + 1, ...Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)) }) as StoredRecord)
          await target.importAll(once(records))
          const expected = records.filter(matcher({ where }, kinds)).sort(sortComparator(keys))
          expect(await target.query({ where, sort: keys })).toEqual(expected)
          expect(await target.count({ where })).toBe(expected.length)
          const walked: StoredRecord[] = []
          let after: RecordQuery['after']
          for (;;) {
            const page = await target.query({ where, sort: keys, after, limit: pageSize })
            walked.push(...page)
            if (page.length < pageSize) break
            const last = page[page.length - 1] as StoredRecord
            after = { keys: keys.map((k) => last[k.field] as string | number), id: last.id }
          }
          expect(walked).toEqual(expected)
        } finally {
          await store.close()
        }
      }), { numRuns: kind.name === 'memory' ? 100 : 25 })
    })
  })
}
