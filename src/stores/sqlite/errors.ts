import { StoreUnavailableError } from '../../domain/index.js'
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

/** Re-throws `err`, as StoreUnavailableError when the database is the cause. */
export function rethrow (err: unknown): never {
  if (err instanceof StoreUnavailableError) throw err
  if (isUnavailable(err)) throw new StoreUnavailableError(`SQLite database unavailable: ${(err as Error).message}`, { cause: err })
  throw err
}
