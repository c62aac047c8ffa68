import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { userTableOf, type CollectionDeclaration, type RecordStore, type StoredField } from '../../src/domain/index.js'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, type TestDatabase } from './harness.js'
import { openPostgresStores } from '../helpers/built-ins.js'

/** As column-names.test.ts on SQLite: a colliding field added to a held PostgreSQL table keeps its records (issue 36, item 5). */
const declaration = (name: string, fields: Record<string, StoredField>): CollectionDeclaration =>
  ({ name, table: userTableOf(name), fields, ids: 'sequence', firstId: 1, putCreates: false, keptOnUpdate: [] })

describe.skipIf(SKIP_POSTGRES)(`PostgreSQL: upgrading a table from today's layout${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  let database: TestDatabase
  beforeAll(async () => { database = await createTestDatabase() })
  afterAll(async () => { await database?.drop() })

  it.each([
    ['s-then-folded', { s: { type: 'string', required: true } }, { sFolded: { type: 'string', required: false } }],
    ['folded-then-s', { sFolded: { type: 'string', required: true } }, { s: { type: 'string', required: false } }],
    ['keyword-added', { title: { type: 'string', required: true } }, { select: { type: 'string', required: false }, ctid: { type: 'integer', required: false } }]
  ] as Array<[string, Record<string, StoredField>, Record<string, StoredField>]>)('adds fields to a held table (%s) and keeps the records', async (name, first, added) => {
    const open = async (fields: Record<string, StoredField>): ReturnType<typeof openPostgresStores> =>
      await openPostgresStores({ url: database.url, poolSize: 2, startupWaitMs: 0, collections: [declaration(name, fields)] })
    const before = await open(first)
    const [held] = Object.keys(first) as [string]
    await (before.collections.get(name) as RecordStore).create({ [held]: 'Dune' })
    await before.close()
    const after = await open({ ...first, ...added })
    try {
      const store = after.collections.get(name) as RecordStore
      expect(await store.get(1)).toEqual({ id: 1, [held]: 'Dune' })
      const input = Object.fromEntries(Object.entries({ ...first, ...added }).map(([field, f]) => [field, f.type === 'string' ? `Emma ${field}` : 7]))
      const { record } = await store.create(input)
      expect(await store.get(record.id)).toEqual({ id: record.id, ...input })
      for (const [field, f] of Object.entries(added)) {
        if (f.type === 'string') expect(await store.count({ where: [{ field, op: 'contains', value: `EMMA ${field.toUpperCase()}` }] })).toBe(1)
        else expect(await store.count({ where: [{ field, op: 'eq', value: 7 }] })).toBe(1)
      }
      expect(await store.count({ where: [{ field: held, op: 'contains', value: 'dun' }] })).toBe(1)
    } finally {
      await after.close()
    }
  }, 60_000)
})
