import { createHash } from 'node:crypto'

/**
 * The names of a collection's indexes of several fields (its `indexes`),
 * alike on SQLite and PostgreSQL: `<table>_ix_<hash of the fields>`, short
 * enough for PostgreSQL's 63 characters. An index of one field keeps the
 * name each store gives a field's index (`<table>_<column>`), so a declared
 * `["year"]` is the very index an undeclared collection has.
 */
export const INDEX_INFIX = '_ix_'

export function compoundIndexName (table: string, key: readonly string[]): string {
  const hash = createHash('sha256').update(key.join(',')).digest('hex').slice(0, 12)
  return `${table.slice(0, 40)}${INDEX_INFIX}${hash}`
}
