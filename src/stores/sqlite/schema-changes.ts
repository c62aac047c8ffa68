import type Database from 'better-sqlite3'
import type { CollectionDeclaration, RecordStore, SavedDeclaration, SchemaChanges, SchemaFindings, SchemaHistoryEntry, SchemaPlan, StoredField } from '../../domain/index.js'
import { findingsOf } from '../schema-changes.js'
import { UNIQUE_INDEX_INFIX } from '../unique-index.js'
import { createTriggers, dropTriggers, registeredFields, syncCollections } from './collections.js'
import { fieldLayouts, quoted, type FieldLayout } from './layout.js'

/**
 * Changes of collections on SQLite, each in one BEGIN IMMEDIATE transaction
 * taken in its own turn of the group commit (no write of another request
 * sees it half done): renamed columns (RENAME COLUMN), dropped ones (their
 * indexes, then DROP COLUMN), widened kinds in the registry; then the
 * start's own step (./collections.ts) adds fields with their default,
 * converts kinds and builds the unique indexes, and the change triggers are
 * written for the new fields, and the indexes made and dropped as declared. The declarations and their history are kept
 * in rqs_schema and rqs_schema_history.
 */
export interface SqliteSchemaParts<S extends RecordStore> {
  db: Database.Database
  path: string
  /** The stores' collections, which a change updates. */
  collections: Map<string, S>
  /** The change log's declarations, which a change updates. */
  declarations: Map<string, CollectionDeclaration>
  /** Runs `work` alone, between the group commit's batches. */
  exclusive: <R>(work: () => Promise<R>) => Promise<R>
  open: (declaration: CollectionDeclaration) => S
  /** A collection removed: its part in the references goes. */
  removed: (name: string) => void
}

const TABLES = `
  CREATE TABLE IF NOT EXISTS rqs_schema (name TEXT PRIMARY KEY NOT NULL, version INTEGER NOT NULL, source TEXT);
  CREATE TABLE IF NOT EXISTS rqs_schema_history (name TEXT NOT NULL, version INTEGER NOT NULL, at TEXT NOT NULL, caller TEXT NOT NULL, plan TEXT NOT NULL, source TEXT, PRIMARY KEY (name, version));`

export class SqliteSchema<S extends RecordStore> implements SchemaChanges {
  readonly #parts: SqliteSchemaParts<S>
  #ready = false

  constructor (parts: SqliteSchemaParts<S>) {
    this.#parts = parts
  }

  async inspect (plan: SchemaPlan, before: CollectionDeclaration): Promise<SchemaFindings> {
    const store = this.#parts.collections.get(before.name)
    return store === undefined ? { records: 0, lost: {}, unconvertible: [], duplicates: [] } : await findingsOf(store, plan)
  }

  async apply (plan: SchemaPlan, before: CollectionDeclaration | undefined, after: CollectionDeclaration | undefined, entry: SchemaHistoryEntry): Promise<RecordStore | undefined> {
    const { db, path, collections, declarations } = this.#parts
    return await this.#parts.exclusive(async () => {
      this.#tables()
      db.transaction(() => {
        if (before !== undefined && after === undefined) removeTable(db, before)
        if (before !== undefined && after !== undefined) reshape(db, plan, before)
        if (after !== undefined) {
          syncCollections(db, [after], path)
          createTriggers(db, after)
        }
        recordEntry(db, entry)
      }).immediate()
      if (after === undefined) {
        collections.delete(plan.collection)
        declarations.delete(plan.collection)
        this.#parts.removed(plan.collection)
        return undefined
      }
      const store = this.#parts.open(after)
      collections.set(plan.collection, store)
      declarations.set(plan.collection, after)
      return store
    })
  }

  async open (declaration: CollectionDeclaration): Promise<RecordStore> {
    const { db, path, collections, declarations } = this.#parts
    return await this.#parts.exclusive(async () => {
      db.transaction(() => { syncCollections(db, [declaration], path) }).immediate()
      const store = this.#parts.open(declaration)
      collections.set(declaration.name, store)
      declarations.set(declaration.name, declaration)
      return store
    })
  }

  async record (entry: SchemaHistoryEntry): Promise<void> {
    const { db } = this.#parts
    await this.#parts.exclusive(async () => {
      this.#tables()
      db.transaction(() => { recordEntry(db, entry) }).immediate()
    })
  }

  async saved (): Promise<SavedDeclaration[]> {
    this.#tables()
    return this.#parts.db.prepare<[], { name: string, version: number, source: string | null }>('SELECT name, version, source FROM rqs_schema ORDER BY rowid').all()
      .map((r) => ({ name: r.name, version: r.version, source: r.source === null ? null : JSON.parse(r.source) as unknown }))
  }

  async history (name: string): Promise<SchemaHistoryEntry[]> {
    this.#tables()
    return this.#parts.db.prepare<[string], { name: string, version: number, at: string, caller: string, plan: string, source: string | null }>('SELECT name, version, at, caller, plan, source FROM rqs_schema_history WHERE name = ? ORDER BY version').all(name)
      .map((r) => ({ name: r.name, version: r.version, at: r.at, caller: r.caller, plan: JSON.parse(r.plan) as SchemaPlan, source: r.source === null ? null : JSON.parse(r.source) as unknown }))
  }

  #tables (): void {
    if (this.#ready) return
    this.#parts.db.exec(TABLES)
    this.#ready = true
  }
}

/** The declaration's version and its history entry. */
function recordEntry (db: Database.Database, entry: SchemaHistoryEntry): void {
  const source = entry.source === null ? null : JSON.stringify(entry.source)
  db.prepare('INSERT INTO rqs_schema (name, version, source) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET version = excluded.version, source = excluded.source').run(entry.name, entry.version, source)
  db.prepare('INSERT OR IGNORE INTO rqs_schema_history (name, version, at, caller, plan, source) VALUES (?, ?, ?, ?, ?, ?)').run(entry.name, entry.version, entry.at, entry.caller, JSON.stringify(entry.plan), source)
}

/** A collection removed: its table (indexes and triggers with it), its counter and its registry row. */
function removeTable (db: Database.Database, before: CollectionDeclaration): void {
  db.exec(`DROP TABLE IF EXISTS ${quoted(before.table)}`)
  db.prepare('DELETE FROM rqs_counters WHERE collection = ?').run(before.name)
  db.prepare('DELETE FROM rqs_collections WHERE name = ?').run(before.name)
}

/**
 * What the start's step cannot do: columns renamed and dropped, kinds
 * widened in the registry. The triggers and unique indexes name columns, so
 * they go first; the start's step makes them again for the new declaration.
 */
function reshape (db: Database.Database, plan: SchemaPlan, before: CollectionDeclaration): void {
  const table = quoted(before.table)
  dropTriggers(db, before.table)
  const uniques = db.prepare<[string], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?").all(before.table)
  for (const { name } of uniques) if (name.includes(UNIQUE_INDEX_INFIX)) db.exec(`DROP INDEX ${quoted(name)}`)
  const old = fieldLayouts(before.fields)
  const layoutOf = (name: string): FieldLayout => old.find((l) => l.name === name) as FieldLayout
  const dropping = new Set(plan.dropped.flatMap((field) => { const f = layoutOf(field); return f.folded === undefined ? [f.column] : [f.column, f.folded] }))
  // Every index on a dropped column goes first, whatever its name (an index made under a
  // field's earlier name follows the column through RENAME COLUMN), or DROP COLUMN fails.
  for (const { name } of db.prepare<[string], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL").all(before.table)) {
    const columns = db.prepare<[], { name: string }>(`PRAGMA index_info(${quoted(name)})`).all()
    if (columns.some((c) => dropping.has(c.name))) db.exec(`DROP INDEX ${quoted(name)}`)
  }
  for (const field of plan.dropped) {
    const f = layoutOf(field)
    db.exec(`ALTER TABLE ${table} DROP COLUMN ${quoted(f.column)}`)
    if (f.folded !== undefined) db.exec(`ALTER TABLE ${table} DROP COLUMN ${quoted(f.folded)}`)
  }
  // Renamed in two steps through a free name, so two fields may swap names.
  const renamed = plan.renamed.map(({ from, to }, i) => ({ was: layoutOf(from), to, step: `rqs_renaming_${i}` }))
  for (const r of renamed) {
    // The index named after the old name goes; the start's step makes the new name's, if declared.
    db.exec(`DROP INDEX IF EXISTS ${quoted(`${before.table}_${r.was.column}`)}`)
    db.exec(`ALTER TABLE ${table} RENAME COLUMN ${quoted(r.was.column)} TO ${quoted(r.step)}`)
    if (r.was.folded !== undefined) db.exec(`ALTER TABLE ${table} RENAME COLUMN ${quoted(r.was.folded)} TO ${quoted(`${r.step}_folded`)}`)
  }
  // The registry as the start's step should find it: renamed, dropped and widened fields already done.
  const fields: Record<string, StoredField> = {}
  const renames = new Map(plan.renamed.map((r) => [r.from, r.to]))
  const widened = new Map(plan.converted.filter((c) => c.from === 'integer' && c.to === 'number').map((c) => [c.field, c.to]))
  for (const [name, field] of Object.entries(before.fields)) {
    if (plan.dropped.includes(name)) continue
    const now = renames.get(name) ?? name
    fields[now] = { ...field, type: widened.get(now) ?? field.type }
  }
  const next = fieldLayouts(fields)
  for (const r of renamed) {
    const f = next.find((l) => l.name === r.to) as FieldLayout
    db.exec(`ALTER TABLE ${table} RENAME COLUMN ${quoted(r.step)} TO ${quoted(f.column)}`)
    if (r.was.folded !== undefined && f.folded !== undefined) db.exec(`ALTER TABLE ${table} RENAME COLUMN ${quoted(`${r.step}_folded`)} TO ${quoted(f.folded)}`)
  }
  db.prepare('UPDATE rqs_collections SET fields = ? WHERE name = ?').run(registeredFields({ ...before, fields }), before.name)
}
