import type Database from 'better-sqlite3'
import type { CollectionDeclaration, FieldData, RecordId } from '../../domain/index.js'
import type { ReferencedTable } from '../references.js'
import { layoutOf, quoted } from './layout.js'

/**
 * One collection's table as the references between collections read and
 * change it (../references.ts), inside the write's own transaction: whether
 * an id is held, which records name a value, a cascade's delete (the
 * record's change comes from the table's trigger, the count from
 * rqs_counters), set-null's clearing of a field and its folded copy, and
 * remove's taking an id out of a list of references.
 */
export function sqliteReferencedTable (db: Database.Database, declaration: CollectionDeclaration): ReferencedTable {
  const layout = layoutOf(declaration)
  const table = quoted(declaration.table)
  const holds = db.prepare<[RecordId]>(`SELECT 1 FROM ${table} WHERE id = ?`).pluck()
  const remove = db.prepare<[RecordId]>(`DELETE FROM ${table} WHERE id = ?`)
  const uncount = db.prepare<[string]>('UPDATE rqs_counters SET n = n - 1 WHERE collection = ?')
  const where = new Map<string, (value: FieldData) => RecordId[]>()
  const clear = new Map<string, (id: RecordId) => void>()
  const pull = new Map<string, (id: RecordId, value: FieldData) => void>()
  for (const f of layout.fields) {
    const column = quoted(f.column)
    const list = f.type === 'list'
    // A list of references is JSON text: its items are read through json_each.
    const ids = db.prepare<[unknown]>(list
      ? `SELECT id FROM ${table} WHERE EXISTS (SELECT 1 FROM json_each(${column}) WHERE value = ?) ORDER BY id`
      : `SELECT id FROM ${table} WHERE ${column} = ? ORDER BY id`).pluck().safeIntegers(layout.bigintIds)
    where.set(f.name, (value) => ids.all(value) as RecordId[])
    if (list) {
      // The items kept in their order (json_each reads them in order), the deleted id left out; the table's trigger records the change.
      const update = db.prepare<[FieldData, RecordId]>(`UPDATE ${table} SET ${column} = (SELECT json_group_array(value) FROM (SELECT value FROM json_each(${column}) WHERE value <> ? ORDER BY key)) WHERE id = ?`)
      pull.set(f.name, (id, value) => { update.run(value, id) })
    }
    if (f.required) continue
    const columns = [f.column, ...(f.folded === undefined ? [] : [f.folded])]
    const update = db.prepare<[RecordId]>(`UPDATE ${table} SET ${columns.map((c) => `${quoted(c)} = NULL`).join(', ')} WHERE id = ?`)
    clear.set(f.name, (id) => { update.run(id) })
  }
  return {
    declaration,
    holds: (id) => holds.get(id) !== undefined,
    idsWhere: (field, value) => where.get(field)?.(value) ?? [],
    removeNow: (id) => { if (remove.run(id).changes === 1) uncount.run(declaration.name) },
    clearNow: (id, field) => { clear.get(field)?.(id) },
    pullNow: (id, field, value) => { pull.get(field)?.(id, value) }
  }
}
