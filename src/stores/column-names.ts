import { createHash } from 'node:crypto'
import { columnOf, KINDS, type StoredField } from '../domain/index.js'

/**
 * The columns of a declared collection's fields in a SQL table (issue 36,
 * item 5). Today's names are kept wherever they work: a field's column is
 * its snake_case name (`publishedYear` → `published_year`), a string field's
 * folded copy (a kind that searches folded text) is `<column>_folded`, so every existing table keeps its layout.
 * Where that name cannot be used — another field's column or folded copy
 * already has it (`sFolded` beside `s`), the database keeps it for itself
 * (PostgreSQL's `ctid`, `xmin`, …), or it is `id` — the column goes to a
 * namespace no field can reach: a double underscore, which snake_case of a
 * camelCase name never contains, and a hash of the field's name.
 *
 * Names are handed out in declared order, so a field added at the end never
 * moves an existing column. SQL keywords need no renaming: every store
 * quotes its column names.
 */

export interface ColumnRules {
  /** The longest identifier the database keeps; a longer one is cut to this many characters, as the database would. */
  maxLength: number
  /** Column names the database keeps for itself. */
  reserved: readonly string[]
}

export interface FieldColumns {
  column: string
  /** The folded copy's column (string fields). */
  folded?: string
}

/** PostgreSQL: system columns and NAMEDATALEN − 1 (identifiers are ASCII here, so characters are bytes). */
export const POSTGRES_COLUMNS: ColumnRules = { maxLength: 63, reserved: ['tableoid', 'xmin', 'cmin', 'xmax', 'cmax', 'ctid'] }
/** SQLite: no limit on names; a declared `rowid` column shadows the hidden one, which rqs never reads. */
export const SQLITE_COLUMNS: ColumnRules = { maxLength: Infinity, reserved: [] }

/** A name in the internal namespace: readable prefix, `__`, 8 hex digits of the field's name and role. */
function internal (field: string, role: 'column' | 'folded'): string {
  const hash = createHash('sha256').update(`${field}\0${role}`).digest('hex').slice(0, 8)
  return `${columnOf(field).slice(0, 40)}__${hash}${role === 'folded' ? '_f' : ''}`
}

export function fieldColumns (fields: Readonly<Record<string, StoredField>>, rules: ColumnRules): Map<string, FieldColumns> {
  const taken = new Set(['id', ...rules.reserved])
  const take = (wanted: string, field: string, role: 'column' | 'folded'): string => {
    const cut = wanted.slice(0, rules.maxLength)
    const name = taken.has(cut) ? internal(field, role) : cut
    taken.add(name)
    return name
  }
  const names = new Map<string, FieldColumns>()
  for (const [name, f] of Object.entries(fields)) {
    const wanted = columnOf(name)
    const column = take(wanted, name, 'column')
    names.set(name, KINDS[f.type].folded ? { column, folded: take(`${wanted}_folded`, name, 'folded') } : { column })
  }
  return names
}
