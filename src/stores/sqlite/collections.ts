import type Database from 'better-sqlite3'
import { CollectionChangedError, convertsFrom, fold, idTypeOf, indexKeysOf, KINDS, shapeChanges, unconvertible, type CollectionDeclaration, type FieldData, type StoredField } from '../../domain/index.js'
import { fieldLayouts, literal, quoted, sqlValue, type FieldLayout } from './layout.js'
import { syncUniqueIndexes } from './unique.js'
import { compoundIndexName, INDEX_INFIX } from '../declared-indexes.js'

/**
 * The collection registry (rqs_collections, migration 6): what each table of
 * the file holds. On open every declaration is compared with it: an unknown
 * one gets its table, indexes, change triggers and counter row; one that only
 * adds optional fields gets their columns (old records lack them, as NULL);
 * any other difference would drop or reinterpret stored data, so it stops
 * the open with CollectionChangedError. The caller runs this inside the
 * migrations' BEGIN IMMEDIATE transaction, so two processes opening one file
 * at once agree on the outcome.
 */

interface RegistryRow {
  tableName: string
  idType: string
  fields: string
}

export function syncCollections (db: Database.Database, declarations: readonly CollectionDeclaration[], where: string): void {
  const find = db.prepare<[string], RegistryRow>('SELECT table_name AS tableName, id_type AS idType, fields FROM rqs_collections WHERE name = ?')
  for (const declaration of declarations) {
    const row = find.get(declaration.name)
    if (row === undefined) {
      createCollection(db, declaration)
      syncFieldIndexes(db, declaration)
      syncUniqueIndexes(db, declaration, where)
      continue
    }
    const stored = JSON.parse(row.fields) as Record<string, StoredField>
    const { changes, added, converted } = differences(row, stored, declaration)
    if (changes.length > 0) throw new CollectionChangedError(declaration.name, changes, where)
    // Conversions and default fills rewrite records without a write of theirs: no trigger sees them (addFields makes them again after).
    if (added.length > 0 || converted.length > 0) dropTriggers(db, declaration.table)
    if (converted.length > 0) convertFields(db, declaration, stored, converted, where)
    if (added.length > 0 || converted.length > 0) addFields(db, declaration, added)
    // A new optional field inside an object changes only the registered shape.
    else if (row.fields !== registeredFields(declaration)) db.prepare('UPDATE rqs_collections SET fields = ? WHERE name = ?').run(registeredFields(declaration), declaration.name)
    syncFieldIndexes(db, declaration)
    syncUniqueIndexes(db, declaration, where)
  }
}

/**
 * Fields whose kind takes over their stored values (a date-time field kept
 * as text before): each value rewritten in its new kind's form, in the
 * migrations' transaction, and the folded copy dropped when the new kind has
 * none. A value it cannot take stops the open naming the records. No
 * record is announced in the change feed (the caller dropped the triggers):
 * a change of a collection is no write of its records, on every store.
 */
function convertFields (db: Database.Database, declaration: CollectionDeclaration, stored: Record<string, StoredField>, converted: readonly string[], where: string): void {
  const layouts = fieldLayouts(declaration.fields)
  const table = quoted(declaration.table)
  for (const name of converted) {
    const f = layouts.find((l) => l.name === name) as FieldLayout
    const was = (stored[name] as StoredField).type
    const canonical = KINDS[f.type].canonical ?? ((value: unknown) => value as string)
    const rows = db.prepare<[], { id: unknown, value: unknown }>(`SELECT id, ${quoted(f.column)} AS value FROM ${table} WHERE ${quoted(f.column)} IS NOT NULL`).safeIntegers(true).all()
    const bad = rows.filter((r) => canonical(r.value) === undefined)
    if (bad.length > 0) throw new CollectionChangedError(declaration.name, [unconvertible(was, f.type, name, bad)], where)
    const update = db.prepare(`UPDATE ${table} SET ${quoted(f.column)} = ? WHERE id = ?`)
    for (const r of rows) {
      const value = canonical(r.value)
      if (value !== r.value) update.run(value, r.id)
    }
    // The folded copy's name as the stored declaration laid it out (all its fields: a colliding name moved).
    const folded = fieldLayouts(stored).find((l) => l.name === name)?.folded
    if (folded !== undefined && f.folded === undefined) db.exec(`ALTER TABLE ${table} DROP COLUMN ${quoted(folded)}`)
  }
}

/** What differs between the registered collection and its declaration: changes it refuses, added optional fields, and fields whose new kind converts their values. */
function differences (row: RegistryRow, stored: Record<string, StoredField>, declaration: CollectionDeclaration): { changes: string[], added: string[], converted: string[] } {
  const changes: string[] = []
  const added: string[] = []
  const converted: string[] = []
  if (row.tableName !== declaration.table) changes.push(`table: ${row.tableName} → ${declaration.table}`)
  const idType = idTypeOf(declaration)
  if (row.idType !== idType) changes.push(`id: type ${row.idType} → ${idType}`)
  for (const [name, was] of Object.entries(stored)) {
    const now = Object.hasOwn(declaration.fields, name) ? declaration.fields[name] : undefined
    if (now === undefined) {
      changes.push(`${name}: removed`)
      continue
    }
    if (now.type !== was.type && convertsFrom(now.type, was.type)) converted.push(name)
    else if (now.type !== was.type) changes.push(`${name}: type ${was.type} → ${now.type}`)
    if (now.required !== was.required) changes.push(`${name}: ${requiredness(was.required)} → ${requiredness(now.required)}`)
    changes.push(...shapeChanges(name, was, now))
  }
  for (const [name, field] of Object.entries(declaration.fields)) {
    if (Object.hasOwn(stored, name)) continue
    // A required field can be added when it has a default: every record held gets it.
    if (field.required && field.default === undefined) changes.push(`${name}: added as required`)
    else added.push(name)
  }
  return { changes, added, converted }
}

function requiredness (required: boolean): string {
  return required ? 'required' : 'optional'
}

/**
 * A field's column definitions: its own, then its folded copy's (string
 * fields). A required field added to a table that holds records (it has a
 * default, `filled`) is NOT NULL with that default, which SQLite needs to
 * add such a column; every write gives a value all the same.
 */
function columnDefinitions (f: FieldLayout, filled?: FieldData): string[] {
  const notNull = f.required ? ' NOT NULL' : ''
  const check = f.type === 'boolean' ? ` CHECK (${quoted(f.column)} IN (0, 1))` : ''
  const given = (value: unknown): string => !f.required || filled === undefined ? '' : ` DEFAULT ${typeof value === 'string' ? literal(value) : String(value)}`
  const definitions = [`${quoted(f.column)} ${KINDS[f.type].storage.sqlite}${notNull}${given(sqlValue(filled))}${check}`]
  if (f.folded !== undefined) definitions.push(`${quoted(f.folded)} TEXT${notNull}${given(typeof filled === 'string' ? fold(filled) : filled)}`)
  return definitions
}

/**
 * The collection's indexes as declared (every field's own when none are):
 * each ordered by its fields, then id, answering sorted pages, equality
 * filters and keyset positions (a field's own as migration 3's). Indexes of
 * ours the declaration no longer names go: those named after a field's
 * column and those of several fields; unique keys keep theirs (./unique.ts).
 */
export function syncFieldIndexes (db: Database.Database, declaration: CollectionDeclaration): void {
  const { table } = declaration
  const layouts = fieldLayouts(declaration.fields)
  const columnOf = (field: string): string => (layouts.find((l) => l.name === field) as FieldLayout).column
  const wanted = new Map<string, readonly string[]>()
  for (const key of indexKeysOf(declaration)) {
    const columns = key.map(columnOf)
    wanted.set(key.length === 1 ? `${table}_${columns[0] as string}` : compoundIndexName(table, key), columns)
  }
  const ours = new Set(layouts.map((l) => `${table}_${l.column}`))
  const held = db.prepare<[string], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL").all(table).map((r) => r.name)
  for (const name of held) {
    if (wanted.has(name)) continue
    if (ours.has(name) || name.startsWith(`${table.slice(0, 40)}${INDEX_INFIX}`)) db.exec(`DROP INDEX ${quoted(name)}`)
  }
  for (const [name, columns] of wanted) {
    if (!held.includes(name)) db.exec(`CREATE INDEX ${quoted(name)} ON ${quoted(table)} (${[...columns.map(quoted), 'id'].join(', ')})`)
  }
}

function createCollection (db: Database.Database, declaration: CollectionDeclaration): void {
  const fields = fieldLayouts(declaration.fields)
  const table = quoted(declaration.table)
  const id = idTypeOf(declaration) === 'string' ? 'id TEXT PRIMARY KEY NOT NULL' : 'id INTEGER PRIMARY KEY'
  // Its indexes follow (syncFieldIndexes).
  db.exec(`CREATE TABLE ${table} (${[id, ...fields.flatMap(columnDefinitions)].join(', ')})`)
  createTriggers(db, declaration)
  // int64 ids are generated from 1 whatever firstId says, as in the memory store.
  const next = declaration.ids === 'int64' ? 1 : declaration.firstId
  db.prepare('INSERT INTO rqs_counters (collection, n, next) VALUES (?, 0, ?)').run(declaration.name, next)
  db.prepare('INSERT INTO rqs_collections (name, table_name, id_type, fields) VALUES (?, ?, ?, ?)')
    .run(declaration.name, declaration.table, idTypeOf(declaration), registeredFields(declaration))
}

function addFields (db: Database.Database, declaration: CollectionDeclaration, added: readonly string[]): void {
  const all = fieldLayouts(declaration.fields)
  for (const f of all.filter((f) => added.includes(f.name))) {
    // Its index, if it has one, follows (syncFieldIndexes).
    for (const definition of columnDefinitions(f, declaration.fields[f.name]?.default)) db.exec(`ALTER TABLE ${quoted(declaration.table)} ADD COLUMN ${definition}`)
  }
  // An added field with a default gets it in every record held, announced nowhere (the caller dropped the triggers):
  // a change of a collection is no write of its records, as on PostgreSQL, where the column's default does it.
  for (const f of all.filter((f) => added.includes(f.name))) {
    const value = declaration.fields[f.name]?.default
    if (value === undefined) continue
    const folded = f.folded === undefined ? '' : `, ${quoted(f.folded)} = ?`
    db.prepare(`UPDATE ${quoted(declaration.table)} SET ${quoted(f.column)} = ?${folded}`).run(sqlValue(value), ...(f.folded === undefined ? [] : [fold(String(value))]))
  }
  // The triggers name every field: a change must carry the new ones too.
  createTriggers(db, declaration)
  db.prepare('UPDATE rqs_collections SET fields = ? WHERE name = ?').run(registeredFields(declaration), declaration.name)
}

/** The storage-relevant part of the fields: type and required, in declaration order. */
export function registeredFields (declaration: CollectionDeclaration): string {
  const fields: Record<string, StoredField> = {}
  for (const [name, f] of Object.entries(declaration.fields)) fields[name] = { type: f.type, required: f.required, ...(f.items === undefined ? {} : { items: f.items }), ...(f.fields === undefined ? {} : { fields: f.fields }) }
  return JSON.stringify(fields)
}

/**
 * The change log's triggers (as migrations 4 and 5 made for the built-ins):
 * each insert, update of a field's column and delete adds a row to
 * rqs_changes in the write's own transaction, the record as JSON by field
 * name (booleans as true/false, unset optional fields as null). Writing the
 * folded copies alone is no change.
 */
export function createTriggers (db: Database.Database, declaration: CollectionDeclaration): void {
  const fields = fieldLayouts(declaration.fields)
  const table = declaration.table
  const service = literal(declaration.name)
  const at = "CAST(unixepoch('subsec') * 1000 AS INTEGER)"
  const record = `json_object(${fields.map((f) => `${literal(f.name)}, ${jsonValue(f)}`).join(', ')})`
  const insert = "INSERT INTO rqs_changes (service, kind, record_id, record, at) VALUES"
  const of = fields.length === 0 ? '' : ` OF ${fields.map((f) => quoted(f.column)).join(', ')}`
  dropTriggers(db, table)
  db.exec(`
    CREATE TRIGGER ${quoted(`${table}_created`)} AFTER INSERT ON ${quoted(table)} BEGIN
      ${insert} (${service}, 'created', NEW.id, ${record}, ${at});
    END;
    CREATE TRIGGER ${quoted(`${table}_replaced`)} AFTER UPDATE${of} ON ${quoted(table)} BEGIN
      ${insert} (${service}, 'replaced', NEW.id, ${record}, ${at});
    END;
    CREATE TRIGGER ${quoted(`${table}_deleted`)} AFTER DELETE ON ${quoted(table)} BEGIN
      ${insert} (${service}, 'deleted', OLD.id, NULL, ${at});
    END;`)
}

function jsonValue (f: FieldLayout): string {
  const column = `NEW.${quoted(f.column)}`
  if (KINDS[f.type].composite !== undefined) return `json(${column})` // JSON text, kept as JSON in the change's record
  return f.type === 'boolean' ? `CASE ${column} WHEN 1 THEN json('true') WHEN 0 THEN json('false') END` : column
}

/** The change log's triggers of `table`, if it has them. */
export function dropTriggers (db: Database.Database, table: string): void {
  for (const kind of ['created', 'replaced', 'deleted']) db.exec(`DROP TRIGGER IF EXISTS ${quoted(`${table}_${kind}`)}`)
}
