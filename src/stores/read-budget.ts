import { StoreTimeoutError } from '../domain/index.js'
import { passedDeadline } from '../lib/deadline.js'

/**
 * The per-request time budget as the stores keep it (`--read-budget`, set by
 * the HTTP layer for each request, src/lib/deadline.ts): a read is refused
 * once the request's deadline has passed, before it starts and, on the memory
 * store, at every pause of a long walk. A statement already running in
 * SQLite cannot be interrupted (better-sqlite3 has no interrupt or progress
 * handler), so there the bound is checked between statements; PostgreSQL's
 * own statement timeout bounds a single statement.
 */
export function checkReadBudget (): void {
  const ms = passedDeadline()
  if (ms !== undefined) throw new StoreTimeoutError(ms, `The request's reads took longer than its budget of ${ms} ms (--read-budget)`)
}
