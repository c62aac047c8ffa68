import pg from 'pg'
import { CollectionChangedError, DuplicateKeyError, type RecordId, type RecordInput } from '../../domain/index.js'
import { duplicatesFound, UNIQUE_INDEX_INFIX, uniqueIndexes } from '../unique-index.js'
import { quoted, type FieldLayout, type TableLayout } from './layout.js'

/**
 * Unique keys on PostgreSQL (issue 29 item 6): a UNIQUE INDEX per key, so the
 * database refuses a duplicate whichever instance writes it, also when
 * creates race (the second waits for the first's commit, then fails);
 * NULLs are distinct, as an unset field holds no key. Made at start in the
 * migrations' transaction to match the declaration; a key over records that
 * already share values stops the start naming them.
 */
export async function syncUniqueIndexes (client: pg.ClientBase, layout: TableLayout, where: string): Promise<void> {
  const { declaration, table } = layout
  const wanted = uniqueIndexes(declaration)
  const prefix = `${table.slice(0, 40)}${UNIQUE_INDEX_INFIX}`
  const held = (await client.query<{ name: string }>('SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1', [table]))
    .rows.map((r) => r.name).filter((name) => name.startsWith(prefix))
  for (const name of held) if (!wanted.has(name)) await client.query(`DROP INDEX ${quoted(name)}`)
  for (const [name, key] of wanted) {
    if (held.includes(name)) continue
    const columns = columnsOf(layout, key)
    const groups = (await client.query<{ values: string, ids: string }>(`SELECT json_build_array(${columns.join(', ')})::text AS "values", string_agg(id::text, ', ' ORDER BY id) AS ids FROM ${table}
      WHERE ${columns.map((c) => `${c} IS NOT NULL`).join(' AND ')} GROUP BY ${columns.join(', ')} HAVING count(*) > 1 ORDER BY min(id) LIMIT 6`)).rows
    if (groups.length > 0) throw new CollectionChangedError(declaration.name, [duplicatesFound(key, groups)], where)
    await client.query(`CREATE UNIQUE INDEX ${quoted(name)} ON ${table} (${columns.join(', ')})`)
  }
}

function columnsOf (layout: TableLayout, key: readonly string[]): string[] {
  return key.map((field) => (layout.fields.find((f) => f.name === field) as FieldLayout).column)
}

/**
 * A write's failure as DuplicateKeyError when a unique index refused it
 * (SQLSTATE 23505 naming the index), with the record holding the key's
 * values (`own`: the record written, which holds none against itself).
 * Anything else: undefined.
 */
export async function duplicateOf (pool: pg.Pool, layout: TableLayout, err: unknown, input: RecordInput | undefined, own?: RecordId): Promise<DuplicateKeyError | undefined> {
  if (!(err instanceof pg.DatabaseError) || err.code !== '23505' || err.constraint === undefined) return undefined
  const key = uniqueIndexes(layout.declaration).get(err.constraint)
  if (key === undefined) return undefined
  const name = layout.declaration.name
  if (input === undefined) return new DuplicateKeyError(name, key, undefined)
  const columns = columnsOf(layout, key)
  const values: unknown[] = key.map((field) => input[field])
  if (own !== undefined) values.push(own)
  const conditions = columns.map((c, i) => `${c} = $${i + 1}`)
  if (own !== undefined) conditions.push(`id <> $${values.length}`)
  try {
    const row = (await pool.query<{ id: unknown }>(`SELECT id FROM ${layout.table} WHERE ${conditions.join(' AND ')} LIMIT 1`, values)).rows[0]
    return new DuplicateKeyError(name, key, row === undefined ? undefined : layout.idOf(row.id))
  } catch {
    // The refusal stands without its holder when the lookup fails.
    return new DuplicateKeyError(name, key, undefined)
  }
}
