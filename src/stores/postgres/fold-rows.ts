import type pg from 'pg'
import { fold } from '../../domain/index.js'

/** How many rows one round of folding reads and writes. */
const FOLD_BATCH = 5000

interface FoldedTable {
  table: string
  /** Each text column and the column of its folded copy. */
  columns: ReadonlyArray<readonly [text: string, folded: string]>
}

const FOLDED_TABLES: readonly FoldedTable[] = [
  { table: 'rqs_students', columns: [['first_name', 'first_name_folded'], ['last_name', 'last_name_folded']] },
  { table: 'rqs_addresses', columns: [['name', 'name_folded'], ['city', 'city_folded'], ['postal_code', 'postal_code_folded']] }
]

/**
 * Writes the folded copy of every text column of every row (src/domain/case-fold.ts),
 * in id order, a batch at a time: the folding is TypeScript, so PostgreSQL
 * cannot do it in one UPDATE. Run by the migration step that added the
 * columns (and by any later step that changes the folding), inside its
 * transaction; the change log's triggers ignore these columns.
 */
export async function foldAllRows (client: pg.ClientBase): Promise<void> {
  for (const { table, columns } of FOLDED_TABLES) {
    const select = `SELECT id, ${columns.map(([text]) => text).join(', ')} FROM ${table} WHERE id > $1 ORDER BY id LIMIT ${FOLD_BATCH}`
    const sets = columns.map(([, folded], i) => `${folded} = f.c${i}`).join(', ')
    const unnest = columns.map((_, i) => `$${i + 2}::text[]`).join(', ')
    const update = `UPDATE ${table} AS t SET ${sets} FROM unnest($1::bigint[], ${unnest}) AS f(id, ${columns.map((_, i) => `c${i}`).join(', ')}) WHERE t.id = f.id`
    let after: unknown = '-1'
    for (;;) {
      const rows: Array<Record<string, unknown>> = (await client.query(select, [after])).rows
      if (rows.length === 0) break
      await client.query(update, [rows.map((r) => r.id), ...columns.map(([text]) => rows.map((r) => fold(r[text] as string)))])
      after = rows[rows.length - 1]?.id
    }
  }
}
