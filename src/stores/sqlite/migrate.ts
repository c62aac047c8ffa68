import type Database from 'better-sqlite3'
import { pendingMigrations, type Migration } from '../migrations.js'
import { fold } from '../../domain/index.js'

/**
 * Applies the steps newer than the file's version, each recorded in
 * rqs_migrations, all under the write lock (BEGIN IMMEDIATE). Refuses a file
 * written by a newer rqs rather than guess at its schema. `then` runs last in
 * the same transaction (the collection registry, see ./collections.ts).
 */
export function migrate (db: Database.Database, migrations: readonly Migration[], then?: () => void): void {
  registerFold(db)
  db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS rqs_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)')
    const applied = db.prepare<[], number>('SELECT version FROM rqs_migrations').pluck().all()
    const record = db.prepare('INSERT INTO rqs_migrations (version, name, applied_at) VALUES (?, ?, ?)')
    for (const m of pendingMigrations(applied, migrations)) {
      db.exec(m.sql)
      record.run(m.version, m.name, new Date().toISOString())
    }
    then?.()
  }).immediate()
}

/** The search's case folding (src/domain/case-fold.ts) as the SQL function rqs_fold, for steps that fold the rows held. */
function registerFold (db: Database.Database): void {
  db.function('rqs_fold', { deterministic: true }, (text: unknown) => typeof text === 'string' ? fold(text) : text)
}
