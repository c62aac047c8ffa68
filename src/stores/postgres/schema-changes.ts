import type pg from 'pg'
import type { CollectionDeclaration, RecordStore, SavedDeclaration, SchemaChanges, SchemaFindings, SchemaHistoryEntry, SchemaPlan, StoredField } from '../../domain/index.js'
import { findingsOf } from '../schema-changes.js'
import { isUnavailable, rethrow } from './errors.js'
import { columnType, identifier, layoutOf, type FieldLayout } from './layout.js'
import { ensureCollections } from './registry.js'
import { inStoredOrder } from './schema-follow.js'

/**
 * Changes of collections on PostgreSQL, each in one transaction under the
 * migrations' advisory lock (so a starting instance never sees half of
 * one): renamed columns, dropped ones (with what depends on them), widened
 * kinds; then the start's own step (./registry.ts) adds fields (a column
 * with a default is a change of the catalogue alone on PostgreSQL 11 and
 * later), converts kinds, rewrites the routines and builds the unique
 * indexes. The declarations and their history are kept in rqs_schema and
 * rqs_schema_history.
 */
export interface PostgresSchemaParts<S extends RecordStore> {
  pool: pg.Pool
  /** host:port/database, for messages. */
  where: string
  collections: Map<string, S>
  /** The change log's declarations, which a change updates. */
  declarations: Map<string, CollectionDeclaration>
  open: (declaration: CollectionDeclaration, sequence: string | null) => S
}

/** The migrations' advisory lock (./migrate.ts): a change waits for a start's migrations, and the other way round. */
const MIGRATION_LOCK_KEY = '32212886842337639'

const TABLES = `
  CREATE TABLE IF NOT EXISTS rqs_schema (name text PRIMARY KEY, version integer NOT NULL, source jsonb);
  CREATE TABLE IF NOT EXISTS rqs_schema_history (name text NOT NULL, version integer NOT NULL, at timestamptz NOT NULL, caller text NOT NULL, plan jsonb NOT NULL, source jsonb, PRIMARY KEY (name, version))`

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
    const { collections, declarations, where } = this.#parts
    const sequence = await this.#locked(async (client) => {
      if (before !== undefined && after === undefined) await removeTable(client, before)
      if (before !== undefined && after !== undefined) await reshape(client, plan, before, after)
      let held: string | null = null
      if (after !== undefined) {
        await ensureCollections(client, [layoutOf(after)], where)
        held = (await client.query<{ id_sequence: string | null }>('SELECT id_sequence FROM rqs_collections WHERE name = $1', [after.name])).rows[0]?.id_sequence ?? null
      }
      await recordEntry(client, entry)
      return held
    })
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
      await ensureCollections(client, [layoutOf(declaration)], this.#parts.where)
      return (await client.query<{ id_sequence: string | null }>('SELECT id_sequence FROM rqs_collections WHERE name = $1', [declaration.name])).rows[0]?.id_sequence ?? null
    })
    const store = this.#parts.open(declaration, sequence)
    this.#parts.collections.set(declaration.name, store)
    this.#parts.declarations.set(declaration.name, declaration)
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

  /** Runs `work` in one transaction under the migrations' lock, with no statement timeout (a big table takes its time). */
  async #locked<R> (work: (client: pg.ClientBase) => Promise<R>): Promise<R> {
    const client = await this.#parts.pool.connect()
    let failed: Error | undefined
    try {
      await client.query('BEGIN')
      await client.query('SET LOCAL statement_timeout = 0')
      await client.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`)
      await client.query(TABLES)
      const result = await work(client)
      await client.query('COMMIT')
      return result
    } catch (err) {
      failed = err as Error
      await client.query('ROLLBACK').catch(() => {})
      return rethrow(err)
    } finally {
      client.release(failed !== undefined && isUnavailable(failed) ? failed : undefined)
    }
  }
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
    await client.query(`CREATE INDEX IF NOT EXISTS ${identifier(table, f.columnName)} ON ${table} (${f.column}, id)`)
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
