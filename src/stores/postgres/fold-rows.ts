import type pg from 'pg'
import { fold } from '../../domain/index.js'
import type { TableLayout } from './layout.js'

/** How many rows one round of folding reads and writes. */
const FOLD_BATCH = 5000

/**
 * Writes the folded copy of every text column of every row (src/domain/case-fold.ts)
 * of the collections given, in id order, a batch at a time: the folding is
 * TypeScript, so PostgreSQL cannot do it in one UPDATE. Run by the migration
 * step that added the columns (and by any later step that changes the
 * folding), inside its transaction; the change log's triggers ignore these
 * columns. Tables the database does not hold yet are skipped: the store
 * creates them later with their folded copies written from the start.
 */
export async function foldAllRows (client: pg.ClientBase, layouts: readonly TableLayout[]): Promise<void> {
  for (const { table, fields, idSqlType } of layouts) {
    const columns = fields.flatMap((f) => f.folded === undefined ? [] : [[f.column, f.folded] as const])
    if (columns.length === 0) continue
    const held = (await client.query<{ held: boolean }>('SELECT to_regclass($1) IS NOT NULL AS held', [table])).rows[0]?.held === true
    if (!held) continue
    const select = `SELECT id, ${columns.map(([text], i) => `${text} AS c${i}`).join(', ')} FROM ${table} WHERE id > $1 ORDER BY id LIMIT ${FOLD_BATCH}`
    const sets = columns.map(([, folded], i) => `${folded} = f.c${i}`).join(', ')
    const unnest = columns.map((_, i) => `$${i + 2}::text[]`).join(', ')
    const update = `UPDATE ${table} AS t SET ${sets} FROM unnest($1::${idSqlType}[], ${unnest}) AS f(id, ${columns.map((_, i) => `c${i}`).join(', ')}) WHERE t.id = f.id`
    let after: unknown = '-1'
    for (;;) {
      const rows: Array<Record<string, unknown>> = (await client.query(select, [after])).rows
      if (rows.length === 0) break
      await client.query(update, [rows.map((r) => r.id), ...columns.map((_, i) => rows.map((r) => fold(r[`c${i}`] as string)))])
      after = rows[rows.length - 1]?.id
    }
  }
}
