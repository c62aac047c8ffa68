import type Database from 'better-sqlite3'
import { rethrow } from './errors.js'

/**
 * Runs an import into `table` in one write transaction (BEGIN IMMEDIATE …
 * COMMIT) that stays open while the source is read: `write` stores each
 * batch, `finish` brings the bookkeeping rows in step before the commit. When
 * the source or a write throws, everything is rolled back. The connection
 * must not serve other writes meanwhile (rqs import and --seed run before or
 * without a server).
 *
 * Into an empty table the secondary indexes are dropped first and built again
 * at the end, in the same transaction: building an index from all the rows
 * at once is about twice as fast as growing it one row at a time.
 */
export async function importInTransaction<R> (
  db: Database.Database,
  table: string,
  source: AsyncIterable<readonly R[]>,
  write: (batch: readonly R[]) => void,
  finish: () => void
): Promise<number> {
  let count = 0
  // A large page cache while the indexes grow (256 MiB at most, given back afterwards).
  const cacheSize = db.pragma('cache_size', { simple: true }) as number
  db.pragma('cache_size = -262144')
  try {
    db.exec('BEGIN IMMEDIATE')
    const empty = db.prepare(`SELECT NOT EXISTS (SELECT 1 FROM ${table})`).pluck().get() === 1
    const indexes = empty
      ? db.prepare<[string], { name: string, sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL").all(table)
      : []
    for (const index of indexes) db.exec(`DROP INDEX ${index.name}`)
    for await (const batch of source) {
      write(batch)
      count += batch.length
    }
    for (const index of indexes) db.exec(index.sql)
    finish()
    db.exec('COMMIT')
    return count
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK')
    return rethrow(err)
  } finally {
    db.pragma(`cache_size = ${cacheSize}`)
  }
}
