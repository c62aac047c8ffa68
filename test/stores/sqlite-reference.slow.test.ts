import { afterAll, expect, it } from 'vitest'
import { join } from 'node:path'
import { userTableOf, type CollectionDeclaration, type RecordInput, type RecordQuery, type RecordStore } from '../../src/domain/index.js'
import { tempDir } from './harness.js'
import { memoryStores, openSqliteStores, type Stores } from '../helpers/built-ins.js'

/**
 * The memory store is the reference implementation of RecordStore: a user
 * collection with optional and boolean fields, a PUT that creates and a kept
 * field, written by one seeded sequence of creates, PUTs and deletes, must
 * give the same answers, query results (sorts on optional fields, keyset
 * pages) and change log on SQLite, under each id rule with predictable ids.
 */

const tmp = tempDir()
afterAll(() => { tmp.remove() })

for (const ids of ['count', 'sequence', 'int64'] as const) {
  const declaration: CollectionDeclaration = {
    name: 'books',
    table: userTableOf('books'),
    fields: { title: { type: 'string', required: true }, sub: { type: 'string', required: false }, n: { type: 'integer', required: false }, ok: { type: 'boolean', required: false } },
    ids,
    firstId: 1,
    putCreates: true,
    keptOnUpdate: ['title']
  }
  const id = (n: number): number | bigint => ids === 'int64' ? BigInt(n) : n

  it(`answers as the memory store does under the ${ids} id rule`, async () => {
    const stores = [memoryStores({ collections: [declaration] }), openSqliteStores({ path: join(tmp.dir, `${ids}.db`), collections: [declaration] })]
    const books = (s: Stores): RecordStore => s.collections.get('books') as RecordStore
    const answers: unknown[][] = [[], []]
    let seed = 7
    const random = (k: number): number => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % k }
    for (let i = 0; i < 80; i++) {
      const input: Record<string, unknown> = { title: ['a', 'B', 'ç'][random(3)] }
      if (random(2) === 0) input.sub = ['x', 'Y', 'zz'][random(3)]
      if (random(2) === 0) input.n = random(5)
      if (random(2) === 0) input.ok = random(2) === 0
      const op = random(4)
      const target = id(random(10) + 1)
      for (const [k, s] of stores.entries()) {
        const store = books(s)
        const answer = op === 0 ? await store.put(target, input as RecordInput) : op === 1 ? await store.delete(target) : await store.create(input as RecordInput)
        answers[k]?.push(answer)
      }
    }
    const queries: RecordQuery[] = [
      { where: [], sort: [{ field: 'sub', descending: false }] },
      { where: [], sort: [{ field: 'sub', descending: true }] },
      { where: [], sort: [{ field: 'n', descending: true }, { field: 'ok', descending: false }] },
      { where: [{ field: 'ok', op: 'ne', value: true }], sort: [] },
      { where: [{ field: 'n', op: 'lte', value: 2 }], sort: [{ field: 'ok', descending: true }], search: 'Y' },
      { where: [], sort: [{ field: 'sub', descending: false }], limit: 3, after: { keys: ['x'], id: id(3) } }
    ]
    for (const q of queries) for (const [k, s] of stores.entries()) answers[k]?.push(await books(s).query(q), await books(s).count(q))
    for (const [k, s] of stores.entries()) answers[k]?.push((await s.changes.since(0, 1000)).map(({ at: _at, ...change }) => change))
    expect(answers[1]).toEqual(answers[0])
    for (const s of stores) await s.close()
  })
}
