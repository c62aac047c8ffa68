import { DatabaseError } from 'pg'
import { SchemaChangedError, StoreTimeoutError, StoreUnavailableError, UnstorableTextError } from '../../domain/index.js'
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED'])
const DRIVER_MESSAGES = /Connection terminated|Query read timeout|timeout exceeded when trying to connect|connection error|not queryable|Cannot use a pool after calling end|Client was closed/i

/**
 * True when `err` says PostgreSQL cannot be reached or cannot serve right now:
 * a network failure, a dropped or timed-out connection, or a server-side
 * SQLSTATE of class 08 (connection), 53 (out of resources), 57P (shutting
 * down, starting up), 57014 (cancelled, by statement_timeout for one) or
 * 3D000 (the database does not exist).
 */
export function isUnavailable (err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return true
  if (err instanceof DatabaseError) {
    const code = err.code ?? ''
    return code.startsWith('08') || code.startsWith('53') || code.startsWith('57P') || code === '57014' || code === '3D000'
  }
  if (!(err instanceof Error)) return false
  const code = (err as { code?: unknown }).code
  return (typeof code === 'string' && NETWORK_CODES.has(code)) || DRIVER_MESSAGES.test(err.message)
}

const LOST_ANSWER_CODES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT'])
const LOST_ANSWER_MESSAGES = /^(Query read timeout|Connection terminated)/

/**
 * True when a statement was sent but its answer will never come: pg's
 * client-side query_timeout fired, or the connection died while waiting.
 * The server may have executed (and committed) it, or not. A refusal before
 * sending ("not queryable", connect timeout) and any answer from the server
 * itself (a DatabaseError) are not lost answers: their outcome is known.
 */
export function isLostAnswer (err: unknown): boolean {
  if (!(err instanceof Error) || err instanceof DatabaseError) return false
  const code = (err as { code?: unknown }).code
  return (typeof code === 'string' && LOST_ANSWER_CODES.has(code)) || LOST_ANSWER_MESSAGES.test(err.message)
}

/** SQLSTATE character_not_in_repertoire, untranslatable_character. */
const UNSTORABLE_TEXT = new Set(['22021', '22P05'])

/** The SQLSTATE of a write refused by its collection's guard: the database holds a newer declaration (./schema-follow.ts). */
export const SCHEMA_CHANGED_STATE = 'RQ001'

/**
 * SQLSTATEs of a statement that names what a change of a collection took
 * away (undefined_column, undefined_table, undefined_function: a create
 * function takes one argument per field): a request that was on its way
 * while the change was applied. Store statements are generated from the
 * declarations, so nothing else produces them.
 */
const SCHEMA_MOVED = new Set([SCHEMA_CHANGED_STATE, '42703', '42P01', '42883'])

/** SQLSTATE query_canceled, with the server's wording when its statement_timeout did it (not an operator's pg_cancel_backend). */
function statementTimedOut (err: unknown): err is DatabaseError {
  return err instanceof DatabaseError && err.code === '57014' && /statement timeout/i.test(err.message)
}

/** Re-throws `err`, as StoreUnavailableError when the database is the cause (StoreTimeoutError when its statement timeout stopped it). */
export function rethrow (err: unknown): never {
  if (err instanceof StoreUnavailableError || err instanceof StoreTimeoutError) throw err
  if (statementTimedOut(err)) {
    throw new StoreTimeoutError(0, 'The database stopped a statement that ran longer than its statement timeout', { cause: err })
  }
  if (err instanceof DatabaseError && UNSTORABLE_TEXT.has(err.code ?? '')) {
    throw new UnstorableTextError('Text fields must not contain the character U+0000', { cause: err })
  }
  if (err instanceof DatabaseError && SCHEMA_MOVED.has(err.code ?? '')) {
    throw new SchemaChangedError(err.code === SCHEMA_CHANGED_STATE ? err.detail : undefined, undefined, { cause: err })
  }
  if (isUnavailable(err)) throw new StoreUnavailableError(`PostgreSQL unavailable: ${(err as Error).message}`, { cause: err })
  throw err
}
