import { isDeepStrictEqual } from 'node:util'
import type pg from 'pg'
import { convertsFrom, fold, idTypeOf, indexKeysOf, KINDS, shapeChanges, unconvertible, type FieldData, type FieldShape, type Kind } from '../../domain/index.js'
import { CollectionChangedError } from '../../domain/index.js'
import { compoundIndexName, INDEX_INFIX } from '../declared-indexes.js'
import { columnType, identifier, layoutOf, literal, quoted, type FieldLayout, type TableLayout } from './layout.js'
import { syncUniqueIndexes } from './unique.js'

/**
 * The collections a database holds (rqs_collections, migration 7) kept in
 * step with the declarations an instance opens with. Runs inside the
 * migration transaction, under its advisory lock, so instances starting
 * together agree: an unknown declaration gets its table, indexes, routines,
 * change trigger, id state and registry row; one with only added optional
 * fields gets the columns; any other difference is refused.
 */

/**
 * The version of the routines (create/delete functions, change trigger) this
 * build generates. A collection whose stored version is lower gets them
 * (re)written on open; migration 7 registers the built-ins at 0. 2: the
 * change trigger appends to rqs_pending_changes itself (migration 8). 3: the
 * create functions append their change in their own statement (appendChange).
 * 4: they turn the trigger off and back on by assignments, not PERFORMs.
 */
export const ROUTINES_VERSION = 4

interface StoredField {
  name: string
  type: Kind
  required: boolean
  /** A composite's shape (issue 29): a list's item kind, an object's fields. */
  items?: Kind
  fields?: Readonly<Record<string, FieldShape>>
}

interface RegistryRow {
  name: string
  table_name: string
  id_type: string
  id_sequence: string | null
  fields: StoredField[]
  routines: number
}

/** The storage-relevant parts of a declaration, as the registry keeps them. */
function storedFields (layout: TableLayout): StoredField[] {
  return layout.fields.map((f) => {
    // A composite's shape (a list's items, an object's fields), compared at the next start (shapeChanges).
    const { items, fields } = layout.declaration.fields[f.name] ?? {}
    return { name: f.name, type: f.type, required: f.required, ...(items === undefined ? {} : { items }), ...(fields === undefined ? {} : { fields }) }
  })
}

/** What differs between the stored collection and the declaration, one line each; `added` gets the optional fields that are new. */
export function differences (stored: RegistryRow, layout: TableLayout, added: FieldLayout[], converted: Array<{ field: FieldLayout, was: StoredField }> = []): string[] {
  const changes: string[] = []
  if (stored.table_name !== layout.table) changes.push(`table: ${stored.table_name} → ${layout.table}`)
  const idType = idTypeOf(layout.declaration)
  if (stored.id_type !== idType) changes.push(`id: type ${stored.id_type} → ${idType}`)
  const declared = new Map(layout.fields.map((f) => [f.name, f]))
  for (const field of stored.fields) {
    const now = declared.get(field.name)
    if (now === undefined) { changes.push(`${field.name}: removed`); continue }
    if (now.type !== field.type && convertsFrom(now.type, field.type)) converted.push({ field: now, was: field })
    else if (now.type !== field.type) changes.push(`${field.name}: type ${field.type} → ${now.type}`)
    if (now.required !== field.required) changes.push(`${field.name}: ${field.required ? 'required → optional' : 'optional → required'}`)
    const declaredShape = layout.declaration.fields[field.name]
    if (declaredShape !== undefined) changes.push(...shapeChanges(field.name, field, declaredShape))
  }
  const held = new Set(stored.fields.map((f) => f.name))
  for (const field of layout.fields) {
    if (held.has(field.name)) continue
    // A required field can be added when it has a default: every record held gets it (fillDefault).
    if (field.required && layout.declaration.fields[field.name]?.default === undefined) changes.push(`${field.name}: added as required`)
    else added.push(field)
  }
  return changes
}

/**
 * What an earlier step of a change while the server runs did already
 * (./schema-changes.ts): `fields`, added fields whose columns exist, their
 * defaults in the catalogue and their indexes built; `keepRoutines`, the
 * change only adds fields, so the routines of the declaration before stay
 * beside the new ones (writes already under way in them finish, the new
 * columns taking their defaults).
 */
export interface Prepared {
  fields: ReadonlySet<string>
  keepRoutines: boolean
}

const NOTHING_PREPARED: Prepared = { fields: new Set(), keepRoutines: false }

export async function ensureCollections (client: pg.ClientBase, layouts: readonly TableLayout[], where: string, prepared: Prepared = NOTHING_PREPARED): Promise<void> {
  const rows = (await client.query<RegistryRow>('SELECT name, table_name, id_type, id_sequence, fields, routines FROM rqs_collections')).rows
  const stored = new Map(rows.map((r) => [r.name, r]))
  for (const layout of layouts) {
    const row = stored.get(layout.declaration.name)
    if (row === undefined) await create(client, layout)
    else await update(client, layout, row, where, prepared)
    await syncFieldIndexes(client, layout)
    await syncUniqueIndexes(client, layout, where)
  }
}

/** A registered collection brought in step with its declaration: added fields, converted kinds, routines of an older version. */
async function update (client: pg.ClientBase, layout: TableLayout, row: RegistryRow, where: string, prepared: Prepared): Promise<void> {
  const added: FieldLayout[] = []
  const converted: Array<{ field: FieldLayout, was: StoredField }> = []
  const changes = differences(row, layout, added, converted)
  if (changes.length > 0) throw new CollectionChangedError(layout.declaration.name, changes, where)
  if (added.length === 0 && converted.length === 0 && row.routines >= ROUTINES_VERSION) {
    // A new optional field inside an object changes only the registered shape.
    const fields = storedFields(layout)
    if (!isDeepStrictEqual(row.fields, fields)) await client.query('UPDATE rqs_collections SET fields = $2 WHERE name = $1', [layout.declaration.name, JSON.stringify(fields)])
    return
  }
  for (const field of added) if (!prepared.fields.has(field.name)) await client.query(addColumns(layout, field, layout.declaration.fields[field.name]?.default))
  const before = layoutOf({ ...layout.declaration, fields: Object.fromEntries(row.fields.map((f) => [f.name, { type: f.type, required: f.required }])) })
  for (const { field, was } of converted) await dropFolded(client, layout, before, field, was)
  // The kept older functions (a field addition) take their change from the trigger written below for the new fields.
  if (prepared.keepRoutines && added.length > 0) for (const sql of createRoutineSql(before, row.id_sequence, 'trigger')) await client.query(sql)
  await writeRoutines(client, layout, row.id_sequence, prepared.keepRoutines)
  // Conversions and default fills rewrite records without a write of theirs: the change trigger is off for them (the
  // setting an import uses), as memory and SQLite announce none either (docs/decisions.md, "Defaults and the change feed").
  await client.query("SET LOCAL rqs.import = 'on'")
  for (const { field, was } of converted) await convertValues(client, layout, field, was, where)
  for (const field of added) if (!prepared.fields.has(field.name)) await fillDefault(client, layout, field)
  await client.query("SET LOCAL rqs.import = 'off'")
  await client.query('UPDATE rqs_collections SET fields = $2, routines = $3 WHERE name = $1',
    [layout.declaration.name, JSON.stringify(storedFields(layout)), ROUTINES_VERSION])
}

/** An added field with a default gets it in every record held (no change announced: the caller turned the trigger off). */
async function fillDefault (client: pg.ClientBase, layout: TableLayout, field: FieldLayout): Promise<void> {
  const value = layout.declaration.fields[field.name]?.default
  if (value === undefined) return
  const folded = field.folded === undefined ? '' : `, ${field.folded} = $2`
  await client.query(`UPDATE ${layout.table} SET ${field.column} = $1::${field.sqlType}${folded}`, [value, ...(field.folded === undefined ? [] : [fold(String(value))])])
}

/** A converted field's folded copy, when its new kind has none: dropped before the routines that wrote it are rewritten. */
async function dropFolded (client: pg.ClientBase, layout: TableLayout, before: TableLayout, field: FieldLayout, was: StoredField): Promise<void> {
  // Its name as the stored declaration laid it out (all its fields: a colliding name was moved aside).
  const folded = before.fields.find((f) => f.name === field.name)?.folded
  if (KINDS[was.type].folded && field.folded === undefined && folded !== undefined) await client.query(`ALTER TABLE ${layout.table} DROP COLUMN IF EXISTS ${folded}`)
}

/**
 * A field whose new kind takes over its stored values (a date-time kept as
 * text before): each value rewritten in the kind's form, in the migration
 * transaction, after the routines are (no change announced: the caller
 * turned the trigger off). A value the kind cannot take stops the start
 * naming the records.
 */
async function convertValues (client: pg.ClientBase, layout: TableLayout, field: FieldLayout, was: StoredField, where: string): Promise<void> {
  const canonical = KINDS[field.type].canonical ?? ((value: unknown) => value as string)
  const rows = (await client.query<{ id: unknown, value: unknown }>(`SELECT id, ${field.column} AS value FROM ${layout.table} WHERE ${field.column} IS NOT NULL ORDER BY id`)).rows
  const bad = rows.filter((r) => canonical(r.value) === undefined)
  if (bad.length > 0) throw new CollectionChangedError(layout.declaration.name, [unconvertible(was.type, field.type, field.name, bad)], where)
  const changed = rows.flatMap((r) => { const value = canonical(r.value); return value === r.value ? [] : [{ id: r.id, value }] })
  if (changed.length === 0) return
  await client.query(`UPDATE ${layout.table} AS t SET ${field.column} = c.value FROM unnest($1::${layout.idSqlType}[], $2::text[]) AS c (id, value) WHERE t.id = c.id`,
    [changed.map((c) => String(c.id)), changed.map((c) => c.value)])
}

async function create (client: pg.ClientBase, layout: TableLayout): Promise<void> {
  const { declaration, table } = layout
  const columns = [`id ${layout.idSqlType === 'text' ? 'text COLLATE "C"' : 'bigint'} PRIMARY KEY`]
  for (const f of layout.fields) {
    const notNull = f.required ? ' NOT NULL' : ''
    columns.push(`${f.column} ${columnType(f.type)}${notNull}`)
    if (f.folded !== undefined) columns.push(`${f.folded} text COLLATE "C"${notNull}`)
  }
  // Its indexes follow (syncFieldIndexes).
  await client.query(`CREATE TABLE ${table} (${columns.join(', ')})`)
  let sequence: string | null = null
  if (layout.counted) {
    await client.query('INSERT INTO rqs_ids (collection, n, next_id) VALUES ($1, 0, $2)', [declaration.name, declaration.firstId])
  } else if (declaration.ids === 'int64') {
    sequence = identifier(table, 'ids')
    await client.query(`CREATE SEQUENCE ${sequence} AS bigint START 1`)
  }
  await writeRoutines(client, layout, sequence)
  await client.query('INSERT INTO rqs_collections (name, table_name, id_type, id_sequence, fields, routines) VALUES ($1, $2, $3, $4, $5, $6)',
    [declaration.name, table, idTypeOf(declaration), sequence, JSON.stringify(storedFields(layout)), ROUTINES_VERSION])
}

/**
 * The collection's indexes as declared (every field's own when none are),
 * each ordered by its fields, then id. Indexes of ours the declaration no
 * longer names go: a field's own and those of several fields; unique keys
 * keep theirs (./unique.ts).
 */
async function syncFieldIndexes (client: pg.ClientBase, layout: TableLayout): Promise<void> {
  const { declaration, table } = layout
  const fieldOf = (name: string): FieldLayout => layout.fields.find((f) => f.name === name) as FieldLayout
  const wanted = new Map<string, string>()
  for (const key of indexKeysOf(declaration)) {
    if (key.length === 1) {
      const index = fieldIndex(layout, fieldOf(key[0] as string))
      if (index !== undefined) wanted.set(index.name, index.sql)
      continue
    }
    const name = compoundIndexName(table, key)
    wanted.set(name, `CREATE INDEX IF NOT EXISTS ${quoted(name)} ON ${table} (${[...key.map((f) => fieldOf(f).column), 'id'].join(', ')})`)
  }
  const ours = new Set(layout.fields.map((f) => identifier(table, f.columnName)))
  const held = (await client.query<{ name: string }>('SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1', [table])).rows.map((r) => r.name)
  for (const name of held) {
    if (wanted.has(name)) continue
    if (ours.has(name) || name.startsWith(`${table.slice(0, 40)}${INDEX_INFIX}`)) await client.query(`DROP INDEX ${quoted(name)}`)
  }
  for (const [name, sql] of wanted) if (!held.includes(name)) await client.query(sql)
}

/**
 * A field's index, by name (none for objects and free JSON, which have no
 * order to index). `concurrently`: built without blocking writes, which
 * only runs outside a transaction.
 */
export function fieldIndex (layout: TableLayout, field: FieldLayout, concurrently = false): { name: string, sql: string } | undefined {
  const name = identifier(layout.table, field.columnName)
  const create = `CREATE INDEX${concurrently ? ' CONCURRENTLY' : ''} IF NOT EXISTS ${name} ON ${layout.table}`
  // A list: a GIN index answers `@>` (has, hasAny).
  const composite = KINDS[field.type].composite
  if (composite === 'list') return { name, sql: `${create} USING gin (${field.column} jsonb_path_ops)` }
  if (composite !== undefined) return undefined
  return { name, sql: `${create} (${field.column}, id)` }
}

/** A default as SQL text: composite values as JSON. */
function defaultText (value: FieldData): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)
}

/**
 * A new field's columns, added before a change switches over: with the
 * default as the columns' own (a constant default is a change of the
 * catalogue alone: no row is rewritten, and every record held reads it),
 * NOT NULL when the field is required. The defaults stay: the routines of
 * the declaration before, kept for the writes under way in them, leave the
 * new columns out.
 */
export function addedColumns (layout: TableLayout, field: FieldLayout, value: FieldData | undefined): string {
  const notNull = field.required ? ' NOT NULL' : ''
  const column = (name: string, type: string, text: string | undefined): string =>
    `ADD COLUMN IF NOT EXISTS ${name} ${type}${text === undefined ? '' : `${notNull} DEFAULT ${literal(text)}::${type.split(' ')[0] ?? type}`}`
  const text = value === undefined ? undefined : defaultText(value)
  const columns = [column(field.column, columnType(field.type), text)]
  if (field.folded !== undefined) columns.push(column(field.folded, 'text COLLATE "C"', text === undefined ? undefined : fold(text)))
  return `ALTER TABLE ${layout.table} ${columns.join(', ')}`
}

/** An added optional field: nullable columns, which PostgreSQL adds without rewriting the table. */
/**
 * A new field's columns (its index, if it has one, follows: syncFieldIndexes). A required one (it has a default) is NOT
 * NULL, filled with the default as the column is added; the column keeps no
 * default afterwards (every write gives a value).
 */
function addColumns (layout: TableLayout, field: FieldLayout, value?: FieldData): string {
  if (!field.required || value === undefined) {
    const folded = field.folded === undefined ? '' : `, ADD COLUMN ${field.folded} text COLLATE "C"`
    return `ALTER TABLE ${layout.table} ADD COLUMN ${field.column} ${columnType(field.type)}${folded}`
  }
  const filled = (column: string, type: string, text: string): string => `ADD COLUMN ${column} ${type} NOT NULL DEFAULT ${literal(text)}::${type.split(' ')[0] ?? type}`
  const columns = [filled(field.column, columnType(field.type), String(value))]
  if (field.folded !== undefined) columns.push(filled(field.folded, 'text COLLATE "C"', fold(String(value))))
  const dropped = [field.column, ...(field.folded === undefined ? [] : [field.folded])].map((c) => `ALTER COLUMN ${c} DROP DEFAULT`)
  return `ALTER TABLE ${layout.table} ${columns.join(', ')}; ALTER TABLE ${layout.table} ${dropped.join(', ')}`
}

/**
 * The collection's functions and change trigger, generated from its fields.
 * Functions of an older field list are dropped first (their argument lists
 * differ, so CREATE OR REPLACE would add an overload): an instance still
 * running with the old declaration can no longer write, rather than write
 * without the new columns' folded copies.
 */
async function writeRoutines (client: pg.ClientBase, layout: TableLayout, sequence: string | null, keepOlder = false): Promise<void> {
  const { routines } = layout
  const names = [routines.create, routines.createNext, routines.delete]
  const old = keepOlder
    ? []
    : (await client.query<{ signature: string }>(
        'SELECT p.oid::regprocedure::text AS signature FROM pg_proc p WHERE p.proname = ANY($1) AND p.pronamespace = current_schema()::regnamespace', [names])).rows
  for (const { signature } of old) await client.query(`DROP FUNCTION ${signature}`)
  // OR REPLACE: a kept routine of the same arguments (the delete) is replaced where it stands, so a call under way finds it.

  for (const sql of routineSql(layout, sequence)) await client.query(sql)
}

function routineSql (layout: TableLayout, sequence: string | null): string[] {
  return [...createRoutineSql(layout, sequence), ...changeTrigger(layout)]
}

/**
 * Where a create function's change comes from: its own statement (`own`, what
 * rqs writes), the row trigger (`trigger`: an older field list's functions kept
 * through a field addition, whose own statement would build the change without
 * the new fields; the trigger, rewritten for the new list, includes their
 * defaults), or nowhere (`none`: bench/feed-writes.ts's write alone).
 */
export type ChangeSource = 'own' | 'trigger' | 'none'

/**
 * The create functions. `changes: 'none'` leaves their change out (the
 * write alone, which no rqs makes: bench/feed-writes.ts measures the feed's
 * cost against it).
 */
export function createRoutineSql (layout: TableLayout, sequence: string | null, changes: ChangeSource = 'own'): string[] {
  const { declaration, table, fields, routines } = layout
  const name = literal(declaration.name)
  const columns = layout.columns
  // Arguments: each field's value, then each folded copy, in the order of layout.columns.
  const argTypes = [...fields.map((f) => f.sqlType), ...fields.flatMap((f) => f.folded === undefined ? [] : ['text'])]
  const args = argTypes.map((_, i) => `$${i + 1}`)
  const shift = (n: number): string[] => argTypes.map((_, i) => `$${i + 1 + n}`)
  const updates = columns.length === 0 ? 'id = r.id' : columns.map((c) => `${c} = EXCLUDED.${c}`).join(', ')
  const into = ['id', ...columns].join(', ')
  const append = appendChange(layout, changes)
  const sql: string[] = []
  if (layout.counted) {
    // count: id = firstId ($1) + records held, under the counter row's lock; a record already under it is replaced.
    sql.push(`CREATE OR REPLACE FUNCTION ${routines.create} (bigint${argTypes.map((t) => `, ${t}`).join('')}, OUT o_id bigint, OUT o_replaced boolean)
      LANGUAGE plpgsql AS $$
      ${append.declare}
      BEGIN
        SELECT c.n + $1 INTO o_id FROM rqs_ids c WHERE c.collection = ${name} FOR UPDATE;
        ${append.skipTrigger}
        ${append.with(`INSERT INTO ${table} AS r (${into}) VALUES (o_id${shift(1).map((a) => `, ${a}`).join('')})
          ON CONFLICT (id) DO UPDATE SET ${updates}`)}
          SELECT a.rqs__replaced INTO o_replaced FROM a;
        ${append.restoreTrigger}
        UPDATE rqs_ids SET n = n + CASE WHEN o_replaced THEN 0 ELSE 1 END, next_id = GREATEST(next_id, o_id + 1) WHERE collection = ${name};
      END $$`)
    // sequence: one past the highest id ever issued, under the same lock (so switching rules keeps both exact).
    sql.push(`CREATE OR REPLACE FUNCTION ${routines.createNext} (${argTypes.join(', ')}${argTypes.length === 0 ? '' : ', '}OUT o_id bigint, OUT o_replaced boolean)
      LANGUAGE plpgsql AS $$
      ${append.declare}
      BEGIN
        SELECT c.next_id INTO o_id FROM rqs_ids c WHERE c.collection = ${name} FOR UPDATE;
        ${append.skipTrigger}
        ${append.with(`INSERT INTO ${table} AS r (${into}) VALUES (o_id${args.map((a) => `, ${a}`).join('')})
          ON CONFLICT (id) DO UPDATE SET ${updates}`)}
          SELECT a.rqs__replaced INTO o_replaced FROM a;
        ${append.restoreTrigger}
        UPDATE rqs_ids SET n = n + CASE WHEN o_replaced THEN 0 ELSE 1 END, next_id = o_id + 1 WHERE collection = ${name};
      END $$`)
    // The counter lock before the record's, in the same order as a create: no deadlock.
    sql.push(`CREATE OR REPLACE FUNCTION ${routines.delete} (bigint, OUT o_deleted boolean)
      LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM 1 FROM rqs_ids WHERE collection = ${name} FOR UPDATE;
        DELETE FROM ${table} WHERE id = $1;
        o_deleted := FOUND;
        IF o_deleted THEN
          UPDATE rqs_ids SET n = n - 1 WHERE collection = ${name};
        END IF;
      END $$`)
  } else if (sequence !== null) {
    // Generated ids come from the sequence; one a write by id already holds is skipped.
    sql.push(`CREATE OR REPLACE FUNCTION ${routines.create} (${argTypes.join(', ')}${argTypes.length === 0 ? '' : ', '}OUT o_id bigint)
      LANGUAGE plpgsql AS $$
      ${append.declare}
      BEGIN
        ${append.skipTrigger}
        LOOP
          ${append.with(`INSERT INTO ${table} AS r (${into}) VALUES (nextval(${literal(sequence)})${args.map((a) => `, ${a}`).join('')})
            ON CONFLICT (id) DO NOTHING`)}
            SELECT a.id INTO o_id FROM a;
          EXIT WHEN o_id IS NOT NULL;
        END LOOP;
        ${append.restoreTrigger}
      END $$`)
  }
  return sql
}

/**
 * A create function's change, appended by the create's own statement (a
 * data-modifying WITH): no row trigger fires for it, which saves the
 * trigger's event queue, its re-read of the new row and its separate
 * INSERT (issue 35: a third of what the change cost a create). The trigger
 * stays for every other write (and writes made in SQL); the function turns
 * it off for its own statement with the setting an import uses, and gives
 * the setting back as it found it. `changes: false`: the write alone.
 */
function appendChange (layout: TableLayout, changes: ChangeSource): { declare: string, skipTrigger: string, restoreTrigger: string, with: (insert: string) => string } {
  const [idColumns, id] = layout.idSqlType === 'text' ? ['record_id, record_key', '0, a.id'] : ['record_id', 'a.id']
  const returning = 'RETURNING r.*, r.xmax <> 0 AS rqs__replaced'
  if (changes !== 'own') return { declare: '', skipTrigger: '', restoreTrigger: '', with: (insert) => `WITH a AS (${insert} ${returning})` }
  return {
    // Assignments, not PERFORM: a plpgsql assignment of one function call is a simple expression, evaluated
    // without the executor; a PERFORM runs a query through SPI (two of them were a tenth of the change's cost).
    declare: "DECLARE rqs__import text := current_setting('rqs.import', true); rqs__set text;",
    skipTrigger: "rqs__set := set_config('rqs.import', 'on', true);",
    restoreTrigger: "rqs__set := set_config('rqs.import', coalesce(rqs__import, ''), true);",
    with: (insert) => `WITH a AS (${insert} ${returning}),
          changed AS (
            INSERT INTO rqs_pending_changes (service, kind, ${idColumns}, record)
            SELECT ${literal(layout.declaration.name)}, CASE WHEN a.rqs__replaced THEN 'replaced' ELSE 'created' END, ${id}, ${changedJson(layout, 'a')} FROM a
          )`
  }
}

/** jsonb_build_object takes at most 100 arguments: 50 fields a call, joined with ||. */
function recordJson (fields: readonly FieldLayout[], row: string): string {
  if (fields.length === 0) return "'{}'::jsonb"
  const parts: string[] = []
  for (let i = 0; i < fields.length; i += 50) {
    parts.push(`jsonb_build_object(${fields.slice(i, i + 50).map((f) => `${literal(f.name)}, ${row}.${f.column}`).join(', ')})`)
  }
  return parts.join(' || ')
}

/** The record's fields as the change log keeps them (camelCase names), over the row `row`. */
export function changedJson (layout: TableLayout, row: string): string {
  return recordJson(layout.fields, row)
}

/**
 * The change log's row trigger, as migrations 4–6 made them: a change of
 * the record's own fields (not of its folded copies), skipped inside an
 * import (which appends its changes itself). It appends the change
 * unnumbered, without a lock or a NOTIFY (migration 8: the sequencer numbers
 * it after commit), with the INSERT written here rather than through
 * rqs_append_change: one function call less on every write. UUID ids go to
 * record_key.
 */
function changeTrigger (layout: TableLayout): string[] {
  const { declaration, table, routines } = layout
  const name = literal(declaration.name)
  const [idColumns, id] = layout.idSqlType === 'text' ? ['record_id, record_key', (row: string) => `0, ${row}.id`] : ['record_id', (row: string) => `${row}.id`]
  const append = `INSERT INTO rqs_pending_changes (service, kind, ${idColumns}, record) VALUES`
  const of = layout.fields.length === 0 ? '' : ` OF ${layout.fields.map((f) => f.column).join(', ')}`
  return [
    `CREATE OR REPLACE FUNCTION ${routines.changed} () RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          ${append} (${name}, 'deleted', ${id('OLD')}, NULL);
        ELSE
          ${append} (${name}, CASE TG_OP WHEN 'INSERT' THEN 'created' ELSE 'replaced' END, ${id('NEW')}, ${recordJson(layout.fields, 'NEW')});
        END IF;
        RETURN NULL;
      END $$`,
    `DROP TRIGGER IF EXISTS ${routines.changed} ON ${table}`,
    `CREATE TRIGGER ${routines.changed} AFTER INSERT OR UPDATE${of} OR DELETE ON ${table}
      FOR EACH ROW WHEN (current_setting('rqs.import', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION ${routines.changed}()`
  ]
}
