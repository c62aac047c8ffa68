import type Database from 'better-sqlite3'
import { rethrow } from './errors.js'

/**
 * Runs an import in one write transaction (BEGIN IMMEDIATE … COMMIT) that
 * stays open while the source is read: `write` stores each batch, `finish`
 * brings the bookkeeping rows in step before the commit. When the source or a
 * write throws, everything is rolled back. The connection must not serve other
 * writes meanwhile (rqs import and --seed run before or without a server).
 */
export async function importInTransaction<R> (
  db: Database.Database,
  source: AsyncIterable<readonly R[]>,
  write: (batch: readonly R[]) => void,
  finish: () => void
): Promise<number> {
  let count = 0
  try {
    db.exec('BEGIN IMMEDIATE')
    for await (const batch of source) {
      write(batch)
      count += batch.length
    }
    finish()
    db.exec('COMMIT')
    return count
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK')
    return rethrow(err)
  }
}
