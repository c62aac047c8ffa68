import { StoreTimeoutError } from '../domain/index.js'
import { passedDeadline, turnDue } from '../lib/deadline.js'

/** How long one request's synchronous reads may run back to back before other requests get a turn (ms). */
const SLICE_MS = 10

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

/**
 * For a synchronous store (SQLite), asked right before a read: a turn of the
 * event loop to wait for when the request's reads have held it for more
 * than a slice (a GraphQL document's many lists run back to back otherwise,
 * each a statement, and /healthz waits for all of them); undefined, so a
 * short request never waits, not even a microtask.
 */
export function shareTheLoop (): Promise<void> | undefined {
  return turnDue(SLICE_MS)
}
