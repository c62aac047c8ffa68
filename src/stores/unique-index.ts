import { createHash } from 'node:crypto'
import type { CollectionDeclaration } from '../domain/index.js'

/**
 * The unique indexes of a collection's unique keys (issue 29 item 6), named
 * alike on SQLite and PostgreSQL: `<table>_uq_<hash of the key's fields>`,
 * short enough for PostgreSQL's 63 characters with any table name rqs makes,
 * and the same for a key whatever else the declaration holds. Each store
 * makes and drops them at start to match the declaration.
 */
export const UNIQUE_INDEX_INFIX = '_uq_'

export function uniqueIndexName (table: string, key: readonly string[]): string {
  const hash = createHash('sha256').update(key.join(',')).digest('hex').slice(0, 12)
  return `${table.slice(0, 40)}${UNIQUE_INDEX_INFIX}${hash}`
}

/** The declared keys by the name of their index. */
export function uniqueIndexes (declaration: CollectionDeclaration): Map<string, readonly string[]> {
  return new Map((declaration.unique ?? []).map((key) => [uniqueIndexName(declaration.table, key), key]))
}

/** The words of a start refused by duplicates: the key and the first records that share values. */
export function duplicatesFound (key: readonly string[], groups: ReadonlyArray<{ values: string, ids: string }>): string {
  const shown = groups.slice(0, 5).map((g) => `records ${g.ids} share ${g.values}`).join('; ')
  return `unique ${JSON.stringify(key)}: ${shown}${groups.length > 5 ? ' …' : ''}; make their values differ first`
}
