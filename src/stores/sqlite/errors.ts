import { SchemaChangedError, StoreUnavailableError } from '../../domain/index.js'
/**
 * SQLite result codes that mean "the file cannot be used right now" (locked
 * past the busy timeout, I/O error, disk full, read-only, gone) rather than a
 * bug in a statement. Those become StoreUnavailableError (→ 503).
 */
const UNAVAILABLE_PREFIXES = ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_IOERR', 'SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_CANTOPEN', 'SQLITE_PROTOCOL', 'SQLITE_NOTADB', 'SQLITE_CORRUPT']

export function isUnavailable (err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return true
  const code = (err as { code?: unknown } | null)?.code
  if (typeof code === 'string') return UNAVAILABLE_PREFIXES.some((p) => code.startsWith(p))
  // better-sqlite3 throws a TypeError once the connection is closed (server shutting down).
  return err instanceof TypeError && /database connection is not open/.test(err.message)
}

/**
 * A statement that names a table or column a change of a collection took
 * away: a request that was on its way while the change was applied (SQLite
 * prepares a statement again after a change of the schema, and that fails).
 * Store statements are generated from the declarations, so nothing else
 * produces these.
 */
const SCHEMA_MOVED = /^(no such (column|table)\b|table \S+ has no column named )/

/** Re-throws `err`, as StoreUnavailableError when the database is the cause (SchemaChangedError when a change of a collection is). */
export function rethrow (err: unknown): never {
  if (err instanceof StoreUnavailableError) throw err
  if ((err as { code?: unknown } | null)?.code === 'SQLITE_ERROR' && SCHEMA_MOVED.test((err as Error).message)) {
    throw new SchemaChangedError(undefined, undefined, { cause: err })
  }
  if (isUnavailable(err)) throw new StoreUnavailableError(`SQLite database unavailable: ${(err as Error).message}`, { cause: err })
  throw err
}
