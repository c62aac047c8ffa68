import { KINDS, nestedScalars, type Kind, type StoredField } from '../domain/index.js'

/**
 * The SQL of composite fields (issue 29, items 7 and 8), for both SQL stores:
 * a list or object is one column of JSON (SQLite JSON text, PostgreSQL jsonb;
 * free JSON PostgreSQL json), written as JSON text, and a nested scalar is an
 * expression on its object's column typed by its kind, so that filters, sorts
 * and keyset positions compare it as they compare a column of that kind.
 * Path steps are field names (letters and digits: FIELD_NAME), safe to write
 * into SQL.
 */

/** A value as a SQL driver binds it into its column: composites as JSON text (node-postgres would send an array as a SQL array). */
export function boundValue (kind: Kind, value: unknown): unknown {
  if (value === undefined || value === null) return null
  return KINDS[kind].composite !== undefined ? JSON.stringify(value) : value
}

/** The typed expression of a nested scalar on SQLite: json_extract gives TEXT, INTEGER, REAL, or 1/0 for booleans, as the columns hold. */
function sqliteExpression (column: string, steps: readonly string[]): string {
  return `json_extract(${column}, '$.${steps.join('.')}')`
}

/** The typed expression of a nested scalar on PostgreSQL: the text at the path, cast to the kind's column type (text by code point). */
function postgresExpression (column: string, steps: readonly string[], kind: Kind): string {
  const text = `(${column} #>> '{${steps.join(',')}}')`
  const type = KINDS[kind].storage.postgres
  return type === 'text' ? `(${text} COLLATE "C")` : `(${text}::${type})`
}

/** The expressions of every nested scalar by dotted path (`address.city`), given each object field's column. */
export function nestedColumns (fields: Readonly<Record<string, StoredField>>, columnOf: (field: string) => string, dialect: 'sqlite' | 'postgres'): Record<string, string> {
  const columns: Record<string, string> = {}
  for (const nested of nestedScalars(fields)) {
    const [top, ...steps] = nested.steps
    const column = columnOf(top as string)
    columns[nested.path] = dialect === 'sqlite' ? sqliteExpression(column, steps) : postgresExpression(column, steps, nested.kind)
  }
  return columns
}

/** SQLite: the JSON array in `column` holds one of the bound values. */
export function sqliteListHas (column: string, placeholders: readonly string[]): string {
  return `EXISTS (SELECT 1 FROM json_each(${column}) WHERE json_each.value IN (${placeholders.join(', ')}))`
}

/** PostgreSQL: the jsonb array in `column` contains one of the bound one-item arrays (`@>`, which a GIN index can answer). */
export function postgresListHas (column: string, placeholders: readonly string[]): string {
  return `(${placeholders.map((p) => `${column} @> ${p}::jsonb`).join(' OR ')})`
}
