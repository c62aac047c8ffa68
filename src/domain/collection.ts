import type { FieldKinds } from './query.js'
import { KINDS, type Kind } from './kinds/index.js'
import type { FieldData } from './values.js'
import { inDeclaredOrder, nestedScalars } from './paths.js'
import type { CollectionAccess } from './rules/index.js'
export { MAX_INT64_ID, type FieldData } from './values.js'

/**
 * A collection as the stores see it: a name, flat typed fields and the
 * policies that differ between collections (how ids are given, what a write
 * by id does). Every store keeps any declaration in one generic table; the
 * HTTP layer keeps the rest of the JSON Schema (lengths, patterns, formats),
 * which changes how input is checked, never how records are stored.
 */

export interface StoredField {
  /** Its kind (src/domain/kinds/): how every store keeps it and every layer reads it. */
  type: Kind
  /** A required field is in every record; an optional one may be absent (SQL NULL). */
  required: boolean
  /**
   * Its declared default in stored form (issue 29): what a field added to a
   * collection that holds records gets written into them at start (an
   * automatic timestamp: the time of the start). Not registered: changing a
   * default changes no stored record.
   */
  default?: FieldData
  /** A list's item kind (a scalar kind). */
  items?: Kind
  /** A nested object's fields (kind `object`), in declared order. */
  fields?: Readonly<Record<string, StoredField>>
}

/**
 * How a create picks an id.
 * - `count`: the spec's rule for its records: id = number of records held now,
 *   replacing a record already under it (ids from 0).
 * - `sequence`: one past the highest id ever issued (or imported), never
 *   reused; the first is `firstId`.
 * - `int64`: 64-bit ids (bigint), generated from 1 upwards skipping ids a
 *   write by id already holds; clients may write any id 1 … 2^63 − 1.
 * - `uuid`: a random UUID (version 4), a string.
 */
export type IdKind = 'count' | 'sequence' | 'int64' | 'uuid'

/** A record's id: a safe integer (count, sequence), a bigint (int64) or a UUID string. */
export type RecordId = number | bigint | string

/** A record as every store hands it over: its id and its fields (an optional field absent when unset). */
export interface StoredRecord {
  readonly id: RecordId
  readonly [field: string]: FieldData | undefined
}

/** The fields of a write, without the id. */
export type RecordInput = Readonly<Record<string, FieldData | undefined>>

export interface CollectionDeclaration {
  /** `/books`, `--service books`, `books.created`; lower case letters, digits and inner hyphens. */
  name: string
  /** The SQL table that holds it. */
  table: string
  /** Its fields besides `id`, in the order a record lists them. */
  fields: Readonly<Record<string, StoredField>>
  ids: IdKind
  /** The first id `count` and `sequence` issue (0 under the spec's count rule, 1 for user collections). */
  firstId: number
  /** A write by id to a missing record creates it (an update-or-create PUT); otherwise it is not found. */
  putCreates: boolean
  /** Fields an update by id keeps from the stored record (a field set only when the record is created). */
  keptOnUpdate: readonly string[]
  /**
   * Unique keys (issue 29): each the fields whose values together no two
   * records share; a record with any of them unset holds no key (as SQL's
   * UNIQUE treats NULL). Kept by a unique index on every store.
   */
  unique?: ReadonlyArray<readonly string[]>
  /**
   * The indexes the declarer chose (`"indexes"`), each the fields it orders
   * by (then by id); absent, every field has its own (see indexKeysOf).
   * Fewer indexes make writes cheaper; a sort or filter on an unindexed
   * field scans.
   */
  indexes?: ReadonlyArray<readonly string[]>
  /** Fields that hold the id of a record of another collection (`x-references`), by field name. */
  references?: Readonly<Record<string, FieldReference>>
  /**
   * Its rules, owner field and guarded fields (src/domain/rules/), compiled at
   * start; none: every caller the scopes let through sees and changes everything.
   */
  access?: CollectionAccess
}

/**
 * What a record that still refers to a deleted one becomes: refused, deleted
 * too, its field cleared, or (a list of references) the id taken out of its list.
 */
export type OnDelete = 'restrict' | 'cascade' | 'set-null' | 'remove'

/** A reference field: the collection its value names a record of, and what a delete of that record does. */
export interface FieldReference {
  collection: string
  onDelete: OnDelete
  /** A list of references (`{"type": "array", "items": {"x-references": …}}`): a many-to-many relation. */
  many?: true
}

/**
 * A write that would give a second record a unique key's values: the key's
 * fields and the record that holds them. Every store throws it, so the
 * routes answer 409 alike.
 */
export class DuplicateKeyError extends Error {
  constructor (readonly collection: string, readonly fields: readonly string[], readonly holder: RecordId | undefined) {
    super(`${collection}: another record${holder === undefined ? '' : ` (${String(holder)})`} holds the same ${fields.join(', ')}`)
    this.name = 'DuplicateKeyError'
  }
}

/** The column of a field: camelCase becomes snake_case (`postalCode` → `postal_code`). */
export function columnOf (field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
}

/** The table of a user collection (`books` → `rqs_col_books`): apart from rqs's own tables whatever the name. */
export function userTableOf (name: string): string {
  return `rqs_col_${name.replace(/-/g, '_')}`
}

/** Whether ids of this collection are bigints (int64), strings (uuid) or numbers. */
export function idTypeOf (declaration: CollectionDeclaration): 'number' | 'bigint' | 'string' {
  return declaration.ids === 'int64' ? 'bigint' : declaration.ids === 'uuid' ? 'string' : 'number'
}

/** The query kind of each field, `id` included: what filters and sorts compare. */
export function fieldKindsOf (declaration: CollectionDeclaration): FieldKinds<string> {
  const kinds: Record<string, Kind> = { id: declaration.ids === 'uuid' ? 'string' : 'integer' }
  for (const [name, field] of Object.entries(declaration.fields)) kinds[name] = field.type
  // The scalars inside object fields, by dotted path (`address.city`): filters and sorts name them so.
  for (const nested of nestedScalars(declaration.fields)) kinds[nested.path] = nested.kind
  return kinds
}

/** The text fields a search looks in: every field with a folded copy (never the id). */
export function searchedFields (declaration: CollectionDeclaration): string[] {
  return Object.keys(declaration.fields).filter((f) => KINDS[declaration.fields[f]?.type ?? 'int64'].folded)
}

/** Two records are the same when their ids and every field agree (If-Match compare-and-set). */
export function sameRecord (a: StoredRecord, b: StoredRecord): boolean {
  if (a.id !== b.id) return false
  for (const key of Object.keys(a)) if (!sameData(a[key], b[key])) return false
  for (const key of Object.keys(b)) if (!sameData(a[key], b[key])) return false
  return true
}

/** Scalars by identity; lists and objects (JSON, in declared order everywhere) by their JSON text. */
function sameData (a: FieldData | undefined, b: FieldData | undefined): boolean {
  if (a === b) return true
  return typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b)
}

/**
 * The record of an id and a write's fields, in declaration order, optional
 * fields absent when unset: the one shape every store hands over.
 */
export function recordOf (declaration: CollectionDeclaration, id: RecordId, input: RecordInput): StoredRecord {
  let make = factories.get(declaration)
  if (make === undefined) {
    make = recordFactory(declaration)
    factories.set(declaration, make)
  }
  return make(id, input)
}

type RecordFactory = (id: RecordId, input: RecordInput) => StoredRecord

const factories = new WeakMap<CollectionDeclaration, RecordFactory>()

/**
 * How a declaration's records are made. With only required fields, one
 * object literal of all of them (a compiled function), so every record has
 * its fields in the object itself, as a hand-written `{ id, firstName, … }`
 * would: adding them one by one to `{ id }` puts them in a second, separate
 * array (about 40 MB more per million records). With optional fields, they
 * are added when set (an unset one is absent).
 */
function recordFactory (declaration: CollectionDeclaration): RecordFactory {
  const names = Object.keys(declaration.fields)
  if (names.every((name) => declaration.fields[name]?.required === true)) {
    // Field names are JSON-quoted: the literal is built from data, never from code.
    const members = names.map((name) => `${JSON.stringify(name)}: input[${JSON.stringify(name)}]`).join(', ')
    return new Function('id', 'input', `return { id: id, ${members} }`) as RecordFactory
  }
  return (id, input) => {
    const record: Record<string, FieldData> = { id }
    for (const name of names) {
      const value = input[name]
      if (value !== undefined && value !== null) record[name] = value
    }
    return record as StoredRecord
  }
}

/**
 * A function that turns a row as a SQL driver reads it (every column aliased
 * to its field, NULL for an unset optional field, booleans as 0/1 in SQLite)
 * into a StoredRecord. Collections with only required, non-boolean fields
 * need nothing done: their rows are their records.
 */
export function rowShaper (declaration: CollectionDeclaration): ((row: Record<string, unknown>) => StoredRecord) | undefined {
  const fields = Object.entries(declaration.fields)
  if (fields.every(([, f]) => f.required && f.type !== 'boolean' && KINDS[f.type].composite === undefined)) return undefined
  return (row) => {
    const record: Record<string, unknown> = { id: row.id }
    for (const [name, field] of fields) {
      const value = row[name]
      if (value === null || value === undefined) continue
      record[name] = field.type === 'boolean' ? value === true || value === 1 || value === 1n : KINDS[field.type].composite !== undefined ? jsonOf(value, field) : value
    }
    return record as StoredRecord
  }
}

/**
 * A composite field's value as a SQL driver reads it (SQLite: JSON text;
 * PostgreSQL: parsed jsonb, whose members it reorders): parsed, an object's
 * members in declared order.
 */
export function jsonOf (value: unknown, field: StoredField): unknown {
  const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value
  return field.fields === undefined ? parsed : inDeclaredOrder(parsed, field.fields)
}

/** The collection's indexes, each a list of fields: the declared ones, or one per field when none are declared. */
export function indexKeysOf (declaration: Pick<CollectionDeclaration, 'fields' | 'indexes'>): ReadonlyArray<readonly string[]> {
  return declaration.indexes ?? Object.keys(declaration.fields).map((f) => [f])
}

/** Whether the field has an index of its own (a single-field one). */
export function hasOwnIndex (declaration: Pick<CollectionDeclaration, 'fields' | 'indexes'>, field: string): boolean {
  return indexKeysOf(declaration).some((key) => key.length === 1 && key[0] === field)
}
