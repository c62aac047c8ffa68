import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { columnOf, userTableOf, type CollectionDeclaration, type RecordStore, type StoredField } from '../../src/domain/index.js'
import { fieldColumns, POSTGRES_COLUMNS, SQLITE_COLUMNS } from '../../src/stores/column-names.js'
import { tempDir } from './harness.js'
import { openSqliteStores } from '../helpers/built-ins.js'

/**
 * Column names (issue 36, item 5): today's names wherever they work, so an
 * existing table keeps its layout; the internal namespace only where a name
 * is taken, handed out in declared order so a field added later never moves
 * an existing column.
 */

/** The names every release before issue 36 gave: snake_case, the folded copy `<column>_folded`. */
function todays (fields: Record<string, StoredField>): Map<string, { column: string, folded?: string }> {
  return new Map(Object.entries(fields).map(([name, f]) => [name, f.type === 'string' ? { column: columnOf(name), folded: `${columnOf(name)}_folded` } : { column: columnOf(name) }]))
}

const fieldName = fc.stringMatching(/^[a-z][A-Za-z0-9]{0,20}$/)
const fieldType = fc.constantFrom<StoredField['type']>('string', 'integer', 'number', 'boolean')

describe('column names', () => {
  it('are today\'s for every declaration whose names did not collide', () => {
    fc.assert(fc.property(fc.dictionary(fieldName, fieldType, { maxKeys: 12 }), (types) => {
      const fields = Object.fromEntries(Object.entries(types).filter(([name]) => name !== 'id').map(([name, type]) => [name, { type, required: false }]))
      const old = todays(fields)
      const names = [...old.values()].flatMap((c) => [c.column, ...(c.folded === undefined ? [] : [c.folded])])
      fc.pre(new Set(names).size === names.length && !names.some((n) => POSTGRES_COLUMNS.reserved.includes(n)))
      expect(fieldColumns(fields, SQLITE_COLUMNS)).toEqual(old)
      expect(fieldColumns(fields, POSTGRES_COLUMNS)).toEqual(old)
    }), { numRuns: 300 })
  })

  it('give a taken name an internal one (a double underscore no field reaches), cut as PostgreSQL would', () => {
    const names = fieldColumns({ s: { type: 'string', required: true }, sFolded: { type: 'string', required: true }, ctid: { type: 'integer', required: true }, [`a${'b'.repeat(62)}`]: { type: 'string', required: true } }, POSTGRES_COLUMNS)
    expect(names.get('s')).toEqual({ column: 's', folded: 's_folded' })
    expect(names.get('sFolded')?.column).toMatch(/^s_folded__[0-9a-f]{8}$/)
    expect(names.get('sFolded')?.folded).toBe('s_folded_folded')
    expect(names.get('ctid')?.column).toMatch(/^ctid__[0-9a-f]{8}$/)
    expect(names.get(`a${'b'.repeat(62)}`)).toEqual({ column: `a${'b'.repeat(62)}`, folded: expect.stringMatching(/^a b{39}__[0-9a-f]{8}_f$/.source.replace(' ', '')) })
    for (const c of names.values()) for (const n of [c.column, c.folded ?? '']) expect(n.length).toBeLessThanOrEqual(63)
  })
})

describe('upgrading a SQLite table from today\'s layout', () => {
  const dir = tempDir()
  afterAll(() => { dir.remove() })
  const declaration = (fields: Record<string, StoredField>): CollectionDeclaration =>
    ({ name: 'books', table: userTableOf('books'), fields, ids: 'sequence', firstId: 1, putCreates: false, keptOnUpdate: [] })

  it.each([
    ['s, then sFolded', { s: { type: 'string', required: true } }, { sFolded: { type: 'string', required: false } }],
    ['sFolded, then s', { sFolded: { type: 'string', required: true } }, { s: { type: 'string', required: false } }]
  ] as Array<[string, Record<string, StoredField>, Record<string, StoredField>]>)('adds a colliding field to a held table (%s) and keeps the records', async (what, first, added) => {
    const path = join(dir.dir, `${what.replace(/\W+/g, '-')}.db`)
    const before = openSqliteStores({ path, collections: [declaration(first)] })
    const [name] = Object.keys(first) as [string]
    await (before.collections.get('books') as RecordStore).create({ [name]: 'Dune' })
    await before.close()
    const after = openSqliteStores({ path, collections: [declaration({ ...first, ...added })] })
    try {
      const books = after.collections.get('books') as RecordStore
      const [other] = Object.keys(added) as [string]
      expect(await books.get(1)).toEqual({ id: 1, [name]: 'Dune' })
      const { record } = await books.create({ [name]: 'Emma', [other]: 'Austen' })
      expect(await books.get(record.id)).toEqual({ id: record.id, [name]: 'Emma', [other]: 'Austen' })
      expect(await books.count({ where: [{ field: other, op: 'contains', value: 'AUST' }] })).toBe(1)
      expect(await books.count({ where: [{ field: name, op: 'contains', value: 'dun' }] })).toBe(1)
    } finally {
      await after.close()
    }
  })
})
