import pg from 'pg'
import { CollectionChangedError, DanglingReferenceError, RecordReferencedError, type FieldData, type OnDelete } from '../../domain/index.js'
import { identifier, type FieldLayout, type TableLayout } from './layout.js'
import { ensureListReferences } from './list-references.js'

/**
 * References between collections (x-references) on PostgreSQL: a foreign
 * key per reference field with the declared ON DELETE action, so integrity
 * holds in every write's own transaction and across instances (an insert
 * takes FOR KEY SHARE on the row it names, a delete waits for it). Cascaded
 * deletes and set-null updates fire the referring table's change trigger,
 * so each reaches the feed. A violation becomes the domain's refusal.
 */

// `remove` applies to lists of references only, which have no foreign key (./list-references.ts).
const ACTIONS: Record<OnDelete, string> = { restrict: 'RESTRICT', cascade: 'CASCADE', 'set-null': 'SET NULL', remove: 'NO ACTION' }
/** SQLSTATE foreign_key_violation. */
const FOREIGN_KEY_VIOLATION = '23503'

interface ForeignKey {
  name: string
  layout: TableLayout
  field: FieldLayout
  target: TableLayout
  onDelete: OnDelete
  /** A list of references: kept by the triggers of ./list-references.ts, not by a foreign key. */
  many: boolean
}

/** The foreign keys the declarations ask for, by constraint name (the name carries the target and the action, so a change makes a new one). */
function foreignKeys (layouts: readonly TableLayout[]): Map<string, ForeignKey> {
  const byName = new Map(layouts.map((l) => [l.declaration.name, l]))
  const keys = new Map<string, ForeignKey>()
  for (const layout of layouts) {
    for (const [fieldName, reference] of Object.entries(layout.declaration.references ?? {})) {
      const field = layout.fields.find((f) => f.name === fieldName)
      const target = byName.get(reference.collection)
      if (field === undefined || target === undefined) throw new RangeError(`${layout.declaration.name}.${fieldName} references ${reference.collection}, which the store does not keep`)
      const name = identifier(layout.table, `${field.columnName}_fk_${target.table}_${reference.onDelete.replace('-', '_')}`)
      keys.set(name, { name, layout, field, target, onDelete: reference.onDelete, many: reference.many === true })
    }
  }
  return keys
}

/**
 * Brings the foreign keys in step with the declarations, in the migration
 * transaction: those no longer declared are dropped, new ones added (which
 * checks the rows held: a record naming a missing one stops the start).
 */
export async function ensureForeignKeys (client: pg.ClientBase, layouts: readonly TableLayout[], where: string): Promise<void> {
  const wanted = foreignKeys(layouts)
  for (const layout of layouts) {
    // Only the foreign keys rqs made for references (named …_fk_…): any other constraint is left alone.
    const held = (await client.query<{ name: string }>("SELECT conname AS name FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'f' AND conname LIKE '%\\_fk\\_%'", [layout.table])).rows.map((r) => r.name)
    for (const name of held) if (wanted.get(name)?.layout !== layout) await client.query(`ALTER TABLE ${layout.table} DROP CONSTRAINT ${name}`)
    for (const key of wanted.values()) {
      if (key.layout !== layout || key.many || held.includes(key.name)) continue
      try {
        await client.query('SAVEPOINT rqs_foreign_key')
        await client.query(`ALTER TABLE ${layout.table} ADD CONSTRAINT ${key.name} FOREIGN KEY (${key.field.column}) REFERENCES ${key.target.table} (id) ON DELETE ${ACTIONS[key.onDelete]}`)
        await client.query('RELEASE SAVEPOINT rqs_foreign_key')
      } catch (err) {
        if (!(err instanceof pg.DatabaseError) || err.code !== FOREIGN_KEY_VIOLATION) throw err
        throw new CollectionChangedError(layout.declaration.name, [`${key.field.name}: records name ${key.target.declaration.name} records that do not exist (${err.detail ?? ''}); correct them first`], where)
      }
    }
  }
  await ensureListReferences(client, layouts, [...wanted.values()].filter((k) => k.many), where)
}

/** Turns the foreign key violations of one open store's writes into the domain's refusals. */
export class PostgresReferences {
  readonly #pool: pg.Pool
  #keys: Map<string, ForeignKey>

  constructor (pool: pg.Pool, layouts: readonly TableLayout[]) {
    this.#pool = pool
    this.#keys = foreignKeys(layouts)
  }

  /** The collections after one was created, changed or removed while the server runs: their foreign keys. */
  redeclare (layouts: readonly TableLayout[]): void {
    this.#keys = foreignKeys(layouts)
  }

  /** The refusal `err` stands for, or undefined when it is no violation of a reference. */
  async refusal (err: unknown): Promise<Error | undefined> {
    if (!(err instanceof pg.DatabaseError) || err.code !== FOREIGN_KEY_VIOLATION || err.constraint === undefined) return undefined
    const key = this.#keys.get(err.constraint)
    if (key === undefined) return undefined
    const value = /\)=\((.*)\)/.exec(err.detail ?? '')?.[1] ?? ''
    const integer = key.many ? key.target.idSqlType === 'bigint' : key.field.type === 'integer'
    const typed: FieldData = integer ? Number(value) : value
    if ((err.detail ?? '').includes('is still referenced')) {
      const { rows } = await this.#pool.query<{ n: string }>(key.many
        ? `SELECT count(*) AS n FROM ${key.layout.table} WHERE ${key.field.column} @> $1::jsonb`
        : `SELECT count(*) AS n FROM ${key.layout.table} WHERE ${key.field.column} = $1`, [key.many ? JSON.stringify([typed]) : typed])
      return new RecordReferencedError(key.target.declaration.name, key.target.idOf(value), key.layout.declaration.name, key.field.name, Number(rows[0]?.n ?? 0))
    }
    return new DanglingReferenceError(key.layout.declaration.name, key.field.name, typed, key.target.declaration.name)
  }
}
