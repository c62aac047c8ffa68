import type { FieldKinds } from './query.js'
import { KINDS, type Kind } from './kinds/index.js'
import type { FieldData } from './values.js'
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
}

/**
 * How a create picks an id.
 * - `count`: the spec's student rule: id = number of records held now,
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
  /** The first id `count` and `sequence` issue (0 for students, 1 for user collections). */
  firstId: number
  /** A write by id to a missing record creates it (the address book's PUT); otherwise it is not found. */
  putCreates: boolean
  /** Fields an update by id keeps from the stored record (the address book's name). */
  keptOnUpdate: readonly string[]
  /** Fields that hold the id of a record of another collection (`x-references`), by field name. */
  references?: Readonly<Record<string, FieldReference>>
}

/** What a record that still refers to a deleted one becomes: refused, deleted too, or its field cleared. */
export type OnDelete = 'restrict' | 'cascade' | 'set-null'

/** A reference field: the collection its value names a record of, and what a delete of that record does. */
export interface FieldReference {
  collection: string
  onDelete: OnDelete
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
  return kinds
}

/** The text fields a search looks in: every field with a folded copy (never the id). */
export function searchedFields (declaration: CollectionDeclaration): string[] {
  return Object.keys(declaration.fields).filter((f) => KINDS[declaration.fields[f]?.type ?? 'int64'].folded)
}

/** Two records are the same when their ids and every field agree (If-Match compare-and-set). */
export function sameRecord (a: StoredRecord, b: StoredRecord): boolean {
  if (a.id !== b.id) return false
  for (const key of Object.keys(a)) if (a[key] !== b[key]) return false
  for (const key of Object.keys(b)) if (a[key] !== b[key]) return false
  return true
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
  if (fields.every(([, f]) => f.required && f.type !== 'boolean')) return undefined
  return (row) => {
    const record: Record<string, unknown> = { id: row.id }
    for (const [name, field] of fields) {
      const value = row[name]
      if (value === null || value === undefined) continue
      record[name] = field.type === 'boolean' ? value === true || value === 1 || value === 1n : value
    }
    return record as StoredRecord
  }
}
