import Database from 'better-sqlite3'
import { CollectionChangedError, type CollectionDeclaration, type KeyedWrite, type RecordStores, type StoreOptions, StoreUnavailableError, type UnitOfWork } from '../../domain/index.js'
import { runUnit } from '../unit.js'
import { SQLITE_MIGRATIONS } from './schema.js'
import { migrate } from './migrate.js'
import { syncCollections } from './collections.js'
import { SqliteRecordStore, type SqliteReads } from './records.js'
import { rethrow } from './errors.js'
import { SqliteKeptWrites } from './kept-writes.js'
import { SqliteChangeLog } from './changes.js'
import { GroupCommit } from './group-commit.js'
import { Checkpointer } from './checkpoints.js'
import { SqliteWebhookStore } from './webhooks.js'
import { referenceTables, TableReferences } from '../references.js'
import { layoutOf } from './layout.js'
import { sqliteReferencedTable } from './references.js'
import { SqliteSchema } from './schema-changes.js'
import { importStagedAll } from './import.js'
import { LoopShare, ReadBudget } from '../read-budget.js'

export interface SqliteOptions extends StoreOptions {
  /** Database file; created when missing (its folder must exist). */
  path: string
}

/**
 * Opens (or creates) an SQLite file. WAL lets reads go on during a write;
 * synchronous=FULL syncs the WAL at every commit, so an acknowledged write
 * survives a kill -9 of the server and a power cut alike. busy_timeout lets a
 * second process sharing the file wait for the write lock instead of failing.
 * Writes commit in groups (./group-commit.ts): one sync for the writes of one
 * turn of the event loop. Checkpoints run on a worker thread's connection
 * (./checkpoints.ts), not inside a request's commit.
 * Every collection it is given is kept in its own table,
 * made or extended on open in the migrations' transaction (./collections.ts);
 * a declaration that no longer fits the file throws CollectionChangedError.
 */
export function openSqliteStores (options: SqliteOptions): RecordStores {
  const declarations = options.collections ?? []
  let db: Database.Database | undefined
  try {
    db = new Database(options.path)
    const opened = db
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = FULL')
    db.pragma('busy_timeout = 2000')
    db.pragma('foreign_keys = ON')
    migrate(db, SQLITE_MIGRATIONS, () => { syncCollections(opened, declarations, options.path) })
  } catch (err) {
    if (db?.open === true) db.close()
    if (err instanceof CollectionChangedError) throw err
    throw new StoreUnavailableError(`cannot open SQLite database "${options.path}": ${(err as Error).message}`, { cause: err })
  }
  const file = db
  // Automatic checkpoints off (the checkpointer copies the WAL), back on should it stop.
  file.pragma('wal_autocheckpoint = 0')
  const group = new GroupCommit(file)
  const checkpointer = new Checkpointer(options.path, group, () => { if (file.open) file.pragma('wal_autocheckpoint = 1000') })
  const kept = new SqliteKeptWrites(file, options.idempotencyRetentionMs, options.clock)
  // Shared with the schema changes, which add and remove collections while the server runs.
  const declared = new Map(declarations.map((d) => [d.name, d]))
  const changes = new SqliteChangeLog(file, declared, options.changesRetentionMs, options.clock)
  const ping = file.prepare('SELECT n FROM rqs_counters LIMIT 1')
  const references = referencesOf(file, declarations)
  const targets = referenceTables(declarations, (d) => layoutOf(d).sql)
  const reads: SqliteReads = { loop: new LoopShare(), budget: new ReadBudget(options.readBudgetMs ?? 0) }
  const collections = new Map(declarations.map((d) => [d.name, new SqliteRecordStore(file, d, kept, group, references, targets.get(d.name), reads)]))
  return {
    collections,
    // A collection created or changed while the server runs takes part in the references as those declared at start do.
    schema: new SqliteSchema({
      db: file,
      path: options.path,
      collections,
      declarations: declared,
      exclusive: async (work) => await group.exclusive(work),
      open: (d) => {
        references.register(sqliteReferencedTable(file, d))
        const all = [...[...declared.values()].filter((held) => held.name !== d.name), d]
        return new SqliteRecordStore(file, d, kept, group, references, referenceTables(all, (held) => layoutOf(held).sql).get(d.name), reads)
      },
      removed: (name) => { references.unregister(name) }
    }),
    changes,
    webhooks: new SqliteWebhookStore(file, group),
    // One BEGIN IMMEDIATE … COMMIT of its own, in a turn of the group commit's queue (see GroupCommit.exclusive).
    atomically: async <R>(work: (unit: UnitOfWork) => Promise<R>, keyed?: KeyedWrite<R>) => await group.exclusive(async () => await runUnit<R>({
      begin: () => {
        try {
          file.exec('BEGIN IMMEDIATE')
          if (keyed !== undefined) kept.claim(keyed)
        } catch (err) {
          if (file.inTransaction) file.exec('ROLLBACK')
          rethrow(err)
        }
      },
      work: async (open) => await work({ collections: new Map([...collections].map(([name, store]) => [name, store.writesIn(open)])) }),
      commit: (result) => {
        try {
          if (keyed !== undefined) kept.keep(keyed, result)
          file.exec('COMMIT')
        } catch (err) { rethrow(err) }
      },
      rollback: () => {
        // SQLite may have ended the transaction itself (a full disk, an I/O error).
        if (file.open && file.inTransaction) {
          try { file.exec('ROLLBACK') } catch { /* the transaction is gone either way */ }
        }
      }
    })),
    // As each collection's importAll: staged first (no lock on the file), then one BEGIN IMMEDIATE … COMMIT for them all.
    importAllOf: async (parts) => await importStagedAll(file, parts.map((part) => {
      const store = collections.get(part.collection)
      if (store === undefined) throw new TypeError(`no collection "${part.collection}" to import into`)
      return store.importPart(part.source, part.onApplied)
    })),
    ping: async () => { try { ping.get() } catch (err) { rethrow(err) } },
    close: async () => {
      changes.close()
      // The checkpointer's connection first: the last one to close checkpoints the WAL and removes it.
      await checkpointer.close()
      if (file.open) file.close()
    }
  }
}

/** The references between the file's collections (those created while the server runs join them). */
function referencesOf (db: Database.Database, declarations: readonly CollectionDeclaration[]): TableReferences {
  const references = new TableReferences(declarations)
  for (const d of declarations) references.register(sqliteReferencedTable(db, d))
  return references
}
