import { createHash } from 'node:crypto'
import { fieldKindsOf, idTypeOf, jsonOf, KINDS, type CollectionDeclaration, type Kind, type RecordId, type StoredRecord } from '../../domain/index.js'
import type { SqlTable } from '../sql-query.js'
import { fieldColumns, POSTGRES_COLUMNS } from '../column-names.js'
import { nestedColumns } from '../json-columns.js'

/**
 * How one declaration lies in PostgreSQL: its table, columns, folded copies
 * and the names of its generated routines. Everything SQL about a collection
 * is derived from here, so the store, the registry and the import agree.
 */

/**
 * A field of a declaration with its column, SQL type and folded copy. Column
 * names are quoted as SQL is written with them, so a field may be called
 * `select` or `user` (issue 36); `columnName` is the bare name.
 */
export interface FieldLayout {
  name: string
  type: Kind
  required: boolean
  /** The column, quoted. */
  column: string
  columnName: string
  /** The column of the folded copy (string fields only), quoted. */
  folded?: string
  /** The SQL type a value of it is bound as (function arguments, import staging). */
  sqlType: string
}

export interface TableLayout {
  declaration: CollectionDeclaration
  table: string
  /** count and sequence: one counter row in rqs_ids; int64: a sequence; uuid: neither. */
  counted: boolean
  idSqlType: 'bigint' | 'text'
  fields: FieldLayout[]
  /** Every written column but id, in order: each field's, then the folded copies. */
  columns: string[]
  routines: {
    create: string
    createNext: string
    delete: string
    changed: string
  }
  /** The query compiler's view of the table. */
  sql: SqlTable<string>
  /** A row as selected by `sql.select` (aliased to field names) as a record. */
  toRecord: (row: Record<string, unknown>) => StoredRecord
  /** A row's id as the declaration types it (count and sequence ids are numbers; the pool reads int8 as bigint). */
  idOf: (value: unknown) => RecordId
}

/**
 * The column type of a new field's column: its kind's (integer fields are
 * bigint columns: students' age, an integer column of step 1, reads the same
 * way); text compares by code point, as on every store.
 */
export function columnType (type: Kind): string {
  const sqlType = KINDS[type].storage.postgres
  return sqlType === 'text' ? 'text COLLATE "C"' : sqlType
}

/** PostgreSQL's identifier limit: a longer name is cut and made unique by a hash. */
const MAX_IDENTIFIER = 63

export function identifier (base: string, suffix: string): string {
  const name = `${base}_${suffix}`
  if (name.length <= MAX_IDENTIFIER) return name
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8)
  return `${base.slice(0, MAX_IDENTIFIER - suffix.length - 10)}_${hash}_${suffix}`
}

/** A double-quoted SQL identifier. */
export function quoted (name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

/** A SQL string literal. */
export function literal (text: string): string {
  return `'${text.replace(/'/g, "''")}'`
}

export function layoutOf (declaration: CollectionDeclaration): TableLayout {
  const table = declaration.table
  const names = fieldColumns(declaration.fields, POSTGRES_COLUMNS)
  const fields: FieldLayout[] = Object.entries(declaration.fields).map(([name, f]) => {
    const { column, folded } = names.get(name) ?? { column: name }
    return { name, type: f.type, required: f.required, column: quoted(column), columnName: column, folded: folded === undefined ? undefined : quoted(folded), sqlType: KINDS[f.type].storage.postgres }
  })
  const idType = idTypeOf(declaration)
  const columns: Record<string, string> = { id: 'id' }
  const folded: Record<string, string> = {}
  for (const f of fields) {
    columns[f.name] = f.column
    if (f.folded !== undefined) folded[f.name] = f.folded
  }
  Object.assign(columns, nestedColumns(declaration.fields, (field) => fields.find((f) => f.name === field)?.column as string, 'postgres'))
  const select = ['id', ...fields.map((f) => `${f.column} AS ${quoted(f.name)}`)].join(', ')
  const composite = new Map(Object.entries(declaration.fields).filter(([, f]) => KINDS[f.type].composite !== undefined))
  const idOf = idType === 'number'
    ? (value: unknown) => Number(value)
    : idType === 'bigint' ? (value: unknown) => value as bigint : (value: unknown) => String(value)
  const toRecord = (row: Record<string, unknown>): StoredRecord => {
    const record: Record<string, unknown> = { id: idOf(row.id) }
    for (const f of fields) {
      const value = row[f.name]
      if (value === null || value === undefined) continue
      const shape = composite.get(f.name)
      record[f.name] = shape !== undefined ? jsonOf(value, shape) : typeof value === 'bigint' ? Number(value) : value
    }
    return record as StoredRecord
  }
  return {
    declaration,
    table,
    counted: declaration.ids === 'count' || declaration.ids === 'sequence',
    idSqlType: idType === 'string' ? 'text' : 'bigint',
    fields,
    columns: [...fields.map((f) => f.column), ...fields.flatMap((f) => f.folded === undefined ? [] : [f.folded])],
    routines: {
      create: identifier(table, 'create'),
      createNext: identifier(table, 'create_next'),
      delete: identifier(table, 'delete'),
      changed: identifier(table, 'changed')
    },
    sql: { name: table, columns, folded, kinds: fieldKindsOf(declaration), optional: new Set(fields.filter((f) => !f.required).map((f) => f.name)), select },
    toRecord,
    idOf
  }
}
