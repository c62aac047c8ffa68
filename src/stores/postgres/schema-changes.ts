import pg from 'pg'
import { hasOwnIndex, SchemaChangeFailedError, type CollectionDeclaration, type RecordStore, type SavedDeclaration, type SchemaChanges, type SchemaFindings, type SchemaHistoryEntry, type SchemaPlan, type StoredField } from '../../domain/index.js'
import { findingsOf } from '../schema-changes.js'
import { rethrow } from './errors.js'
import { uniqueIndexName } from '../unique-index.js'
import { columnType, identifier, layoutOf, quoted, type FieldLayout, type TableLayout } from './layout.js'
import { holdingMigrationLock, TableBusyError, untimed, underMigrationLock, withShortLocks } from './migration-lock.js'
import { ensureForeignKeys, type PostgresReferences } from './references.js'
import { addedColumns, ensureCollections, fieldIndex, type Prepared } from './registry.js'
import { inStoredOrder } from './schema-follow.js'

/**
 * Changes of collections on PostgreSQL, under the migrations' advisory lock
 * (so a starting instance never sees half of one), in steps that never
 * hold writers up for long on a big table:
 *
 * 1. the added fields' columns, their defaults in the catalogue (no row is
 *    rewritten), in a short transaction;
 * 2. their indexes and the new unique keys, built CONCURRENTLY (writes go
 *    on); a build that fails (records written meanwhile broke a unique key)
 *    leaves an invalid index, which is dropped with the columns of step 1:
 *    the change fails, the declaration stays as it was;
 * 3. the switch, in one short transaction: renamed and dropped columns,
 *    widened kinds, then the start's own step (./registry.ts): conversions,
 *    routines, the registry row; and the declaration's new version. A
 *    change that only adds fields keeps the routines before it beside the
 *    new ones: a write queued behind the switch inside one finishes (the
 *    new columns take their defaults) instead of failing.
 *
 * Each step that needs the table to itself waits for it at most a moment
 * (./migration-lock.ts, withShortLocks) and tries again later, so writers
 * never queue behind it for longer. The declarations and their history are
 * kept in rqs_schema and rqs_schema_history.
 */
export interface PostgresSchemaParts<S extends RecordStore> {
  pool: pg.Pool
  /** host:port/database, for messages. */
  where: string
  collections: Map<string, S>
  /** The change log's declarations, which a change updates. */
  declarations: Map<string, CollectionDeclaration>
  open: (declaration: CollectionDeclaration, sequence: string | null) => S
  /** The foreign keys' refusals of every collection's writes, which follow a change. */
  references: PostgresReferences
}

const TABLES = `
  CREATE TABLE IF NOT EXISTS rqs_schema (name text PRIMARY KEY, version integer NOT NULL, source jsonb);
  CREATE TABLE IF NOT EXISTS rqs_schema_history (name text NOT NULL, version integer NOT NULL, at timestamptz NOT NULL, caller text NOT NULL, plan jsonb NOT NULL, source jsonb, PRIMARY KEY (name, version))`

/** SQLSTATE unique_violation: a unique index's build met records that share values. */
const UNIQUE_VIOLATION = '23505'

export class PostgresSchema<S extends RecordStore> implements SchemaChanges {
  readonly #parts: PostgresSchemaParts<S>

  constructor (parts: PostgresSchemaParts<S>) {
    this.#parts = parts
  }

  async inspect (plan: SchemaPlan, before: CollectionDeclaration): Promise<SchemaFindings> {
    const store = this.#parts.collections.get(before.name)
    return store === undefined ? { records: 0, lost: {}, unconvertible: [], duplicates: [] } : await findingsOf(store, plan)
  }

  async apply (plan: SchemaPlan, before: CollectionDeclaration | undefined, after: CollectionDeclaration | undefined, entry: SchemaHistoryEntry): Promise<RecordStore | undefined> {
    const { pool, collections, declarations, where, references } = this.#parts
    // Every collection as it will be, for the foreign keys between them (references to and from the changed one).
    const layouts = [...[...declarations.values()].filter((d) => d.name !== plan.collection), ...(after === undefined ? [] : [after])].map(layoutOf)
    const linked = async (client: pg.ClientBase): Promise<void> => { await ensureForeignKeys(client, layouts, where) }
    const sequence = await holdingMigrationLock(pool, async (client) => {
      await client.query(TABLES)
      if (before !== undefined && after !== undefined) return await change(client, plan, before, after, entry, where, linked)
      return await shortly(plan.collection, client, async () => {
        if (before !== undefined) await removeTable(client, before)
        const held = after === undefined ? null : await ensured(client, layoutOf(after), where)
        if (after !== undefined) await linked(client)
        await recordEntry(client, entry)
        return held
      })
    }).catch(rethrow) // another instance's newer version (the registry's trigger) is the domain's SchemaChangedError
    references.redeclare(layouts)
    if (after === undefined) {
      collections.delete(plan.collection)
      declarations.delete(plan.collection)
      return undefined
    }
    const store = this.#parts.open(after, sequence)
    collections.set(plan.collection, store)
    declarations.set(plan.collection, after)
    return store
  }

  async open (read: CollectionDeclaration): Promise<RecordStore> {
    let declaration = read
    const sequence = await this.#locked(async (client) => {
      // A kept declaration comes back from jsonb with its fields in another order than its table's routines take them.
      declaration = await inStoredOrder(client, read)
      return await ensured(client, layoutOf(declaration), this.#parts.where)
    })
    const store = this.#parts.open(declaration, sequence)
    this.#parts.collections.set(declaration.name, store)
    this.#parts.declarations.set(declaration.name, declaration)
    // Its foreign keys (made by the change that created it) answer as the domain's refusals, as those declared at start do.
    this.#parts.references.redeclare([...this.#parts.declarations.values()].map(layoutOf))
    return store
  }

  async record (entry: SchemaHistoryEntry): Promise<void> {
    await this.#locked(async (client) => { await recordEntry(client, entry) })
  }

  async saved (): Promise<SavedDeclaration[]> {
    await this.#parts.pool.query(TABLES)
    return (await this.#parts.pool.query<{ name: string, version: number, source: unknown }>('SELECT name, version, source FROM rqs_schema ORDER BY name')).rows
  }

  async history (name: string): Promise<SchemaHistoryEntry[]> {
    await this.#parts.pool.query(TABLES)
    const rows = (await this.#parts.pool.query<{ name: string, version: number, at: Date, caller: string, plan: SchemaPlan, source: unknown }>(
      'SELECT name, version, at, caller, plan, source FROM rqs_schema_history WHERE name = $1 ORDER BY version', [name])).rows
    return rows.map((r) => ({ ...r, at: r.at.toISOString() }))
  }

  /** Runs `work` in one transaction under the migrations' lock. */
  async #locked<R> (work: (client: pg.ClientBase) => Promise<R>): Promise<R> {
    return await underMigrationLock(this.#parts.pool, async (client) => {
      await client.query(TABLES)
      return await work(client)
    }).catch(rethrow)
  }
}

/** The collection's tables in step with `layout` (created when new); answers its id sequence. */
async function ensured (client: pg.ClientBase, layout: TableLayout, where: string, prepared?: Prepared): Promise<string | null> {
  await ensureCollections(client, [layout], where, prepared)
  return (await client.query<{ id_sequence: string | null }>('SELECT id_sequence FROM rqs_collections WHERE name = $1', [layout.declaration.name])).rows[0]?.id_sequence ?? null
}

/** `work` in a transaction of short lock waits; a table never free fails the change. */
async function shortly<R> (collection: string, client: pg.ClientBase, work: () => Promise<R>): Promise<R> {
  try {
    return await withShortLocks(client, work)
  } catch (err) {
    if (err instanceof TableBusyError) throw new SchemaChangeFailedError(collection, err.message, { cause: err })
    throw err
  }
}

/** An index a change builds before it switches over. */
interface Built { name: string, sql: string }

/** The steps of a change of a collection (see the top of this file); answers the id sequence. */
async function change (client: pg.ClientBase, plan: SchemaPlan, before: CollectionDeclaration, after: CollectionDeclaration, entry: SchemaHistoryEntry, where: string, linked: (client: pg.ClientBase) => Promise<void>): Promise<string | null> {
  const layout = layoutOf(after)
  const added = layout.fields.filter((f) => plan.added.some((a) => a.field === f.name))
  const name = plan.collection
  if (added.length > 0) {
    await shortly(name, client, async () => {
      for (const f of added) await client.query(addedColumns(layout, f, after.fields[f.name]?.default))
    })
  }
  const indexes = concurrentIndexes(plan, layoutOf(before), layout, added)
  try {
    for (const index of indexes) await buildConcurrently(client, index)
    return await shortly(name, client, async () => {
      await reshape(client, plan, before, after)
      const addsOnly = plan.dropped.length + plan.renamed.length + plan.converted.length === 0
      const held = await ensured(client, layout, where, { fields: new Set(added.map((f) => f.name)), keepRoutines: addsOnly })
      await linked(client)
      await recordEntry(client, entry)
      return held
    })
  } catch (err) {
    await undo(client, layout, added, indexes).catch(() => {})
    if (err instanceof pg.DatabaseError && err.code === UNIQUE_VIOLATION) {
      throw new SchemaChangeFailedError(name, `records written while the unique key was built share values (${err.detail ?? 'a duplicate'}); make them differ and send the change again`, { cause: err })
    }
    throw err
  }
}

/**
 * The indexes to build before the switch: each added field's own (if declared), and each new
 * unique key over columns that exist by then under their final names (a
 * key over a renamed or widened field is built in the switch).
 */
function concurrentIndexes (plan: SchemaPlan, old: TableLayout, layout: TableLayout, added: readonly FieldLayout[]): Built[] {
  const indexes: Built[] = []
  for (const f of added.filter((f) => hasOwnIndex(layout.declaration, f.name))) {
    const index = fieldIndex(layout, f, true)
    if (index !== undefined) indexes.push(index)
  }
  const moved = new Set([...plan.renamed.map((r) => r.to), ...plan.converted.map((c) => c.field)])
  for (const key of plan.uniqueAdded) {
    const columns = key.map((field) => {
      const now = layout.fields.find((f) => f.name === field)
      const was = old.fields.find((f) => f.name === field)
      const ready = now !== undefined && !moved.has(field) && (added.includes(now) || was?.column === now.column)
      return ready ? now.column : undefined
    })
    if (columns.some((c) => c === undefined)) continue
    const indexName = quoted(uniqueIndexName(layout.table, key))
    indexes.push({ name: indexName, sql: `CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS ${indexName} ON ${layout.table} (${columns.join(', ')})` })
  }
  return indexes
}

/** Builds an index without blocking writes, after dropping an invalid one of the same name that an earlier failed build left. */
async function buildConcurrently (client: pg.ClientBase, index: Built): Promise<void> {
  const invalid = await client.query(`SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
    WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace AND NOT i.indisvalid`, [bare(index.name)])
  if (invalid.rowCount !== 0) await client.query(untimed(`DROP INDEX CONCURRENTLY IF EXISTS ${index.name}`))
  await client.query(untimed(index.sql))
}

/** A change that failed before its switch: the indexes it built (valid or not) and the columns it added go again. */
async function undo (client: pg.ClientBase, layout: TableLayout, added: readonly FieldLayout[], indexes: readonly Built[]): Promise<void> {
  for (const index of indexes) await client.query(untimed(`DROP INDEX CONCURRENTLY IF EXISTS ${index.name}`))
  if (added.length === 0) return
  const columns = added.flatMap((f) => [f.column, ...(f.folded === undefined ? [] : [f.folded])])
  await withShortLocks(client, async () => {
    await client.query(`ALTER TABLE ${layout.table} ${columns.map((c) => `DROP COLUMN IF EXISTS ${c}`).join(', ')}`)
  })
}

/** The declaration's version and its history entry (another instance that recorded the same version first wins). */
async function recordEntry (client: pg.ClientBase, entry: SchemaHistoryEntry): Promise<void> {
  const source = entry.source === null ? null : JSON.stringify(entry.source)
  await client.query('INSERT INTO rqs_schema (name, version, source) VALUES ($1, $2, $3) ON CONFLICT (name) DO UPDATE SET version = excluded.version, source = excluded.source', [entry.name, entry.version, source])
  await client.query('INSERT INTO rqs_schema_history (name, version, at, caller, plan, source) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (name, version) DO NOTHING',
    [entry.name, entry.version, entry.at, entry.caller, JSON.stringify(entry.plan), source])
}

/** A collection removed: its table (indexes and trigger with it), its routines, id state and registry row. */
async function removeTable (client: pg.ClientBase, before: CollectionDeclaration): Promise<void> {
  const layout = layoutOf(before)
  const row = (await client.query<{ id_sequence: string | null }>('SELECT id_sequence FROM rqs_collections WHERE name = $1', [before.name])).rows[0]
  await client.query(`DROP TABLE IF EXISTS ${layout.table} CASCADE`)
  const names = [layout.routines.create, layout.routines.createNext, layout.routines.delete, layout.routines.changed]
  const routines = (await client.query<{ signature: string }>(
    'SELECT p.oid::regprocedure::text AS signature FROM pg_proc p WHERE p.proname = ANY($1) AND p.pronamespace = current_schema()::regnamespace', [names.map(bare)])).rows
  for (const { signature } of routines) await client.query(`DROP FUNCTION IF EXISTS ${signature}`)
  if (row?.id_sequence !== undefined && row.id_sequence !== null) await client.query(`DROP SEQUENCE IF EXISTS ${row.id_sequence}`)
  await client.query('DELETE FROM rqs_ids WHERE collection = $1', [before.name])
  await client.query('DELETE FROM rqs_collections WHERE name = $1', [before.name])
}

/** A routine's name as pg_proc keeps it (layouts quote names). */
function bare (name: string): string {
  return name.startsWith('"') ? name.slice(1, -1).replace(/""/g, '"') : name
}

/**
 * What the start's step cannot do: columns renamed and dropped (with the
 * trigger and indexes that name them), integer columns widened to numbers;
 * the registry then says so, its routines marked for rewriting.
 */
async function reshape (client: pg.ClientBase, plan: SchemaPlan, before: CollectionDeclaration, after: CollectionDeclaration): Promise<void> {
  const old = layoutOf(before)
  const table = old.table
  const layoutOfField = (name: string): FieldLayout => old.fields.find((l) => l.name === name) as FieldLayout
  await client.query(`DROP TRIGGER IF EXISTS ${old.routines.changed} ON ${table}`)
  for (const field of plan.dropped) {
    const f = layoutOfField(field)
    await client.query(`ALTER TABLE ${table} DROP COLUMN ${f.column} CASCADE${f.folded === undefined ? '' : `, DROP COLUMN ${f.folded} CASCADE`}`)
  }
  const renamed = plan.renamed.map(({ from, to }, i) => ({ was: layoutOfField(from), to, step: `rqs_renaming_${i}` }))
  for (const r of renamed) {
    await client.query(`ALTER TABLE ${table} RENAME COLUMN ${r.was.column} TO ${r.step}`)
    if (r.was.folded !== undefined) await client.query(`ALTER TABLE ${table} RENAME COLUMN ${r.was.folded} TO ${r.step}_folded`)
  }
  const fields: Record<string, StoredField> = {}
  const renames = new Map(plan.renamed.map((r) => [r.from, r.to]))
  const widened = new Set(plan.converted.filter((c) => c.from === 'integer' && c.to === 'number').map((c) => c.field))
  for (const [name, field] of Object.entries(before.fields)) {
    if (plan.dropped.includes(name)) continue
    const now = renames.get(name) ?? name
    fields[now] = { ...field, type: widened.has(now) ? 'number' : field.type }
  }
  const next = layoutOf({ ...after, fields })
  for (const r of renamed) {
    const f = next.fields.find((l) => l.name === r.to) as FieldLayout
    await client.query(`ALTER TABLE ${table} RENAME COLUMN ${r.step} TO ${f.column}`)
    if (r.was.folded !== undefined && f.folded !== undefined) await client.query(`ALTER TABLE ${table} RENAME COLUMN ${r.step}_folded TO ${f.folded}`)
    // The index follows its column; under the new column's name (a rebuild only if it had none).
    const [was, now] = [identifier(table, r.was.columnName), identifier(table, f.columnName)]
    if (was !== now) {
      const held = await client.query('SELECT 1 FROM pg_class WHERE relname = $1 AND relnamespace = current_schema()::regnamespace', [bare(now)])
      if (held.rowCount === 0) await client.query(`ALTER INDEX IF EXISTS ${was} RENAME TO ${now}`)
    }
    const index = hasOwnIndex(after, f.name) ? fieldIndex(next, f) : undefined
    if (index !== undefined) await client.query(index.sql)
  }
  for (const field of widened) {
    const f = next.fields.find((l) => l.name === field) as FieldLayout
    await client.query(`ALTER TABLE ${table} ALTER COLUMN ${f.column} TYPE ${columnType('number')}`)
  }
  const stored = next.fields.map((f) => {
    const { items, fields: nested } = fields[f.name] ?? {}
    return { name: f.name, type: f.type, required: f.required, ...(items === undefined ? {} : { items }), ...(nested === undefined ? {} : { fields: nested }) }
  })
  // Routines 0: the start's step writes them again for the new columns.
  await client.query('UPDATE rqs_collections SET fields = $2, routines = 0 WHERE name = $1', [before.name, JSON.stringify(stored)])
}
