import Database from 'better-sqlite3'
import type { Stores } from '../types.js'
import { StoreUnavailableError } from '../errors.js'
import { SQLITE_MIGRATIONS, type Migration } from './migrations.js'
import { SqliteStudentStore } from './students.js'
import { SqliteAddressStore } from './addresses.js'
import { rethrow } from './errors.js'

export interface SqliteOptions {
  /** Database file; created when missing (its folder must exist). */
  path: string
}

/**
 * Opens (or creates) an SQLite file. WAL lets reads go on during a write;
 * synchronous=FULL syncs the WAL at every commit, so an acknowledged write
 * survives a kill -9 of the server and a power cut alike. busy_timeout lets a
 * second process sharing the file wait for the write lock instead of failing.
 */
export function openSqliteStores (options: SqliteOptions): Stores {
  let db: Database.Database
  try {
    db = new Database(options.path)
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = FULL')
    db.pragma('busy_timeout = 2000')
    db.pragma('foreign_keys = ON')
    migrate(db, SQLITE_MIGRATIONS)
  } catch (err) {
    throw new StoreUnavailableError(`cannot open SQLite database "${options.path}": ${(err as Error).message}`, { cause: err })
  }
  const ping = db.prepare('SELECT n FROM rqs_student_count WHERE singleton = 1')
  return {
    students: new SqliteStudentStore(db),
    addresses: new SqliteAddressStore(db),
    ping: async () => { try { ping.get() } catch (err) { rethrow(err) } },
    close: async () => { if (db.open) db.close() }
  }
}

/**
 * Applies the steps newer than the file's version, each recorded in
 * rqs_migrations, all under the write lock (BEGIN IMMEDIATE). Refuses a file
 * written by a newer rqs rather than guess at its schema.
 */
export function migrate (db: Database.Database, migrations: readonly Migration[]): void {
  db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS rqs_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)')
    const applied = new Set(db.prepare<[], number>('SELECT version FROM rqs_migrations').pluck().all())
    const newest = Math.max(0, ...migrations.map((m) => m.version))
    const ahead = [...applied].filter((v) => v > newest)
    if (ahead.length > 0) throw new Error(`the database has schema version ${Math.max(...ahead)}, newer than this rqs knows (${newest}); upgrade rqs`)
    const record = db.prepare('INSERT INTO rqs_migrations (version, name, applied_at) VALUES (?, ?, ?)')
    for (const m of migrations) {
      if (applied.has(m.version)) continue
      db.exec(m.sql)
      record.run(m.version, m.name, new Date().toISOString())
    }
  }).immediate()
}
