import { fieldKindsOf, fold, idTypeOf, rowShaper, type CollectionDeclaration, type Kind, type RecordInput, type StoredField, type StoredRecord } from '../../domain/index.js'
import type { SqlTable } from '../sql-query.js'
import { fieldColumns, SQLITE_COLUMNS } from '../column-names.js'
import { boundValue, nestedColumns } from '../json-columns.js'

/**
 * How a collection lies in its SQLite table: `id`, one typed column per field
 * (`columnOf`), a folded copy of every string field (`<column>_folded`, what
 * `contains` and the search read) and an index (column, id) per field. Column
 * names are quoted wherever SQL is built from them, so a field may be called
 * anything (`order`, `group`); a name another column holds goes to the
 * internal namespace (../column-names.ts).
 */

export interface FieldLayout {
  name: string
  type: Kind
  required: boolean
  column: string
  /** The folded copy's column, for string fields. */
  folded?: string
}

export interface TableLayout {
  declaration: CollectionDeclaration
  table: string
  fields: readonly FieldLayout[]
  /** Every column a write gives a value: the fields', then the folded copies'. */
  writtenColumns: readonly string[]
  sql: SqlTable<string>
  /** Whether ids are read as bigint (better-sqlite3's safeIntegers). */
  bigintIds: boolean
  /** Turns a row into a record, or undefined when rows are records already (no per-row work). */
  shape: ((row: Record<string, unknown>) => StoredRecord) | undefined
}

/** A double-quoted SQL identifier. */
export function quoted (name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

/** A single-quoted SQL string literal. */
export function literal (text: string): string {
  return `'${text.replace(/'/g, "''")}'`
}

export function fieldLayouts (fields: Readonly<Record<string, StoredField>>): FieldLayout[] {
  const names = fieldColumns(fields, SQLITE_COLUMNS)
  return Object.entries(fields).map(([name, f]) => {
    const { column, folded } = names.get(name) ?? { column: name }
    return { name, type: f.type, required: f.required, column, folded }
  })
}

export function layoutOf (declaration: CollectionDeclaration): TableLayout {
  const fields = fieldLayouts(declaration.fields)
  const columns: Record<string, string> = { id: 'id' }
  const folded: Record<string, string> = {}
  const select = ['id']
  for (const f of fields) {
    columns[f.name] = quoted(f.column)
    if (f.folded !== undefined) folded[f.name] = quoted(f.folded)
    select.push(f.column === f.name ? quoted(f.column) : `${quoted(f.column)} AS ${quoted(f.name)}`)
  }
  const byName = new Map(fields.map((f) => [f.name, quoted(f.column)]))
  Object.assign(columns, nestedColumns(declaration.fields, (field) => byName.get(field) as string, 'sqlite'))
  const bigintIds = idTypeOf(declaration) === 'bigint'
  return {
    declaration,
    table: declaration.table,
    fields,
    writtenColumns: [...fields.map((f) => quoted(f.column)), ...fields.flatMap((f) => f.folded === undefined ? [] : [quoted(f.folded)])],
    sql: { name: quoted(declaration.table), columns, folded, kinds: fieldKindsOf(declaration), optional: new Set(fields.filter((f) => !f.required).map((f) => f.name)), select: select.join(', ') },
    bigintIds,
    shape: shaperOf(declaration, fields, bigintIds)
  }
}

/**
 * rowShaper, plus: with bigint ids every INTEGER column reads as bigint
 * (safeIntegers is per statement), so integer fields go back to numbers.
 */
function shaperOf (declaration: CollectionDeclaration, fields: readonly FieldLayout[], bigintIds: boolean): TableLayout['shape'] {
  const shape = rowShaper(declaration)
  const integers = bigintIds ? fields.filter((f) => f.type === 'integer').map((f) => f.name) : []
  if (integers.length === 0) return shape
  return (row) => {
    for (const name of integers) if (typeof row[name] === 'bigint') row[name] = Number(row[name])
    return shape === undefined ? row as StoredRecord : shape(row)
  }
}

/** A field's value as SQLite binds it: booleans as 1/0 (SQLite has no boolean), unset as NULL. */
export function sqlValue (value: unknown): unknown {
  if (value === undefined || value === null) return null
  if (typeof value === 'boolean') return value ? 1 : 0
  return value
}

/** The values of `writtenColumns` for a write's fields: each field's, then each string field's folded copy. */
export function writtenValues (fields: readonly FieldLayout[], input: RecordInput): unknown[] {
  return pushWrittenValues([], fields, input)
}

/** writtenValues, added to the end of `values` (a bulk insert's rows, one flat array). */
export function pushWrittenValues (values: unknown[], fields: readonly FieldLayout[], input: RecordInput): unknown[] {
  for (const f of fields) values.push(sqlValue(boundValue(f.type, input[f.name])))
  for (const f of fields) {
    if (f.folded === undefined) continue
    const value = input[f.name]
    values.push(typeof value === 'string' ? fold(value) : null)
  }
  return values
}
