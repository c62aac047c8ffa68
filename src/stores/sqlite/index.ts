import Database from 'better-sqlite3'
import { type StoreOptions, type Stores, StoreUnavailableError } from '../../domain/index.js'
import { SQLITE_MIGRATIONS } from './schema.js'
import { migrate } from './migrate.js'
import { SqliteStudentStore } from './students.js'
import { SqliteAddressStore } from './addresses.js'
import { rethrow } from './errors.js'
import { SqliteKeptWrites } from './kept-writes.js'
import { SqliteChangeLog } from './changes.js'

export interface SqliteOptions extends StoreOptions {
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
  const kept = new SqliteKeptWrites(db, options.idempotencyRetentionMs, options.clock)
  const changes = new SqliteChangeLog(db, options.changesRetentionMs, options.clock)
  const ping = db.prepare('SELECT n FROM rqs_student_count WHERE singleton = 1')
  return {
    students: new SqliteStudentStore(db, kept, options.studentIds),
    addresses: new SqliteAddressStore(db, kept),
    changes,
    ping: async () => { try { ping.get() } catch (err) { rethrow(err) } },
    close: async () => {
      changes.close()
      if (db.open) db.close()
    }
  }
}
