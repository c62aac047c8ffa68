import type Database from 'better-sqlite3'
import { CollectionChangedError, DuplicateKeyError, type CollectionDeclaration, type RecordId, type RecordInput } from '../../domain/index.js'
import { duplicatesFound, UNIQUE_INDEX_INFIX, uniqueIndexes } from '../unique-index.js'
import { fieldLayouts, quoted, sqlValue, type FieldLayout } from './layout.js'

/**
 * Unique keys on SQLite (issue 29 item 6): a UNIQUE INDEX per key, so the
 * file itself refuses a duplicate whoever writes it (another process on the
 * same file too); NULLs are distinct in a SQLite unique index, as an unset
 * field holds no key. Made at start to match the declaration, in the
 * migrations' transaction; a key over records that already share values
 * stops the start naming them.
 */
export function syncUniqueIndexes (db: Database.Database, declaration: CollectionDeclaration, where: string): void {
  const wanted = uniqueIndexes(declaration)
  const table = declaration.table
  const prefix = `${table.slice(0, 40)}${UNIQUE_INDEX_INFIX}`
  const held = db.prepare<[string], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?")
    .all(table).map((r) => r.name).filter((name) => name.startsWith(prefix))
  for (const name of held) if (!wanted.has(name)) db.exec(`DROP INDEX ${quoted(name)}`)
  const layouts = fieldLayouts(declaration.fields)
  for (const [name, key] of wanted) {
    if (held.includes(name)) continue
    const columns = columnsOf(layouts, key)
    const groups = db.prepare<[], { values: string, ids: string }>(`SELECT json_array(${columns.join(', ')}) AS "values", group_concat(id, ', ') AS ids FROM ${quoted(table)}
      WHERE ${columns.map((c) => `${c} IS NOT NULL`).join(' AND ')} GROUP BY ${columns.join(', ')} HAVING count(*) > 1 LIMIT 6`).all()
    if (groups.length > 0) throw new CollectionChangedError(declaration.name, [duplicatesFound(key, groups)], where)
    db.exec(`CREATE UNIQUE INDEX ${quoted(name)} ON ${quoted(table)} (${columns.join(', ')})`)
  }
}

function columnsOf (layouts: readonly FieldLayout[], key: readonly string[]): string[] {
  return key.map((field) => quoted((layouts.find((l) => l.name === field) as FieldLayout).column))
}

/**
 * A write's failure as DuplicateKeyError when a unique index refused it,
 * naming the key and the record holding its values (`own`: the record the
 * write replaces, which holds none against itself). Anything else: undefined.
 */
export function duplicateOf (db: Database.Database, declaration: CollectionDeclaration, err: unknown, input: RecordInput | undefined, own?: RecordId): DuplicateKeyError | undefined {
  if ((err as { code?: unknown } | null)?.code !== 'SQLITE_CONSTRAINT_UNIQUE' || declaration.unique === undefined) return undefined
  const layouts = fieldLayouts(declaration.fields)
  // "UNIQUE constraint failed: rqs_col_books.title, rqs_col_books.year": the index's columns, in its order.
  const failed = ((err as Error).message.split(': ')[1] ?? '').split(', ').map((name) => name.slice(name.lastIndexOf('.') + 1)).join(',')
  for (const key of declaration.unique) {
    const columns = columnsOf(layouts, key)
    if (key.map((field) => (layouts.find((l) => l.name === field) as FieldLayout).column).join(',') !== failed) continue
    if (input === undefined) return new DuplicateKeyError(declaration.name, key, undefined)
    const values = key.map((field) => sqlValue(input[field]))
    const row = db.prepare(`SELECT id FROM ${quoted(declaration.table)} WHERE ${columns.map((c) => `${c} = ?`).join(' AND ')}${own === undefined ? '' : ' AND id <> ?'} LIMIT 1`)
      .get(...values, ...(own === undefined ? [] : [own])) as { id: RecordId } | undefined
    return new DuplicateKeyError(declaration.name, key, row?.id)
  }
  return undefined
}
