import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { UndeclaredFieldError } from '../../src/domain/index.js'
import type { RecordQuery } from '../../src/domain/index.js'
import { compileCount, compileSelect, type SqlDialect } from '../../src/stores/sql-query.js'
import { storeKinds } from './harness.js'
import type { Stores } from '../helpers/built-ins.js'

/**
 * Issue 19, item 2: a field name reaches a store only from the collection's
 * declared fields. A name every object inherits (`constructor`, `toString`,
 * `__proto__` …) is refused by every store with UndeclaredFieldError before
 * anything runs: no SQL holding `function Object() { [native code] }` as a
 * column, no comparison with a record's prototype.
 */
const INHERITED = [...Object.getOwnPropertyNames(Object.prototype), 'prototype']

const ALL: Array<(field: string) => RecordQuery> = [
  (field) => ({ where: [{ field, op: 'eq', value: 1 }], sort: [] }),
  (field) => ({ where: [{ field, op: 'gt', value: 'a' }], sort: [{ field: 'id', descending: false }] }),
  (field) => ({ where: [{ field, op: 'contains', value: 'a' }], sort: [] }),
  (field) => ({ where: [], sort: [{ field, descending: true }] })
]

async function rejection (work: () => Promise<unknown>): Promise<unknown> {
  return await work().then(() => 'resolved', (err: unknown) => err)
}

describe('SQL is built from declared columns only', () => {
  const dialect: SqlDialect = { placeholder: () => '?', contains: (c, n) => `instr(${c}, ${n})` }
  const table = { name: 'rqs_students', columns: { id: 'id', age: 'age' }, kinds: { id: 'integer', age: 'integer' } as const, select: 'id, age', folded: {} }

  it.each(INHERITED)('compileSelect and compileCount refuse "%s" before writing any SQL', (field) => {
    for (const query of ALL) {
      expect(() => compileSelect(table, dialect, query(field))).toThrow(UndeclaredFieldError)
    }
    expect(() => compileCount(table, dialect, { where: [{ field, op: 'eq', value: 1 }] })).toThrow(UndeclaredFieldError)
    expect(compileSelect(table, dialect, { where: [{ field: 'age', op: 'eq', value: 1 }], sort: [] }).text).toBe('SELECT id, age FROM rqs_students WHERE age = ? ORDER BY id')
  })
})

for (const kind of storeKinds(['memory', 'sqlite', 'postgres'])) { // every store: this file is in the postgres lane
  describe.skipIf(kind.skip !== undefined)(`${kind.name} store: only declared fields${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
    let stores: Stores
    beforeAll(kind.setup)
    afterAll(kind.teardown)
    beforeEach(async () => {
      stores = await kind.fresh()
      await stores.students.create({ firstName: 'Ada', lastName: 'Lovelace', age: 36 })
      await stores.addresses.create({ name: 'Ada', city: 'Berlin', postalCode: '10115' })
    })
    afterEach(async () => { await stores.close() })

    it('query, count and batches refuse every inherited property name as a field, and go on answering', async () => {
      for (const collection of [stores.students, stores.addresses] as const) {
        const store = collection as unknown as { query: (q: RecordQuery) => Promise<unknown>, count: (q: RecordQuery) => Promise<number>, batches: (q: RecordQuery) => AsyncIterable<unknown> }
        for (const field of INHERITED) {
          for (const query of ALL) {
            expect(await rejection(async () => await store.query(query(field))), `query ${field}`).toBeInstanceOf(UndeclaredFieldError)
            expect(await rejection(async () => { for await (const batch of store.batches(query(field))) void batch }), `batches ${field}`).toBeInstanceOf(UndeclaredFieldError)
          }
          expect(await rejection(async () => await store.count(ALL[0]!(field))), `count ${field}`).toBeInstanceOf(UndeclaredFieldError)
        }
        expect(await store.count({ where: [], sort: [] })).toBe(1)
      }
    })
  })
}
