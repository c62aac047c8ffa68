/**
 * The migration shape both SQL stores share. A store's schema is a list of
 * versioned steps; a released step never changes (a later change is a new
 * step). Each store applies the pending steps inside one write transaction
 * (SQLite BEGIN IMMEDIATE, PostgreSQL an advisory lock) and records each in
 * its rqs_migrations table.
 */
export interface Migration {
  version: number
  name: string
  sql: string
}

/** The database was written by a newer rqs: its schema is not guessed at. */
export class SchemaTooNewError extends Error {
  override name = 'SchemaTooNewError'
}

/**
 * The steps of `migrations` not yet in `applied`, in order. Throws
 * SchemaTooNewError when the database holds a version this build does not know.
 */
export function pendingMigrations<M extends Migration> (applied: Iterable<number>, migrations: readonly M[]): M[] {
  const done = new Set(applied)
  const newest = Math.max(0, ...migrations.map((m) => m.version))
  const ahead = [...done].filter((v) => v > newest)
  if (ahead.length > 0) {
    throw new SchemaTooNewError(`the database has schema version ${Math.max(...ahead)}, newer than this rqs knows (${newest}); upgrade rqs`)
  }
  return migrations.filter((m) => !done.has(m.version))
}
