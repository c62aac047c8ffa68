import type { KeptWrite } from './idempotency.js'

/**
 * The backing database cannot be reached or cannot write right now, and
 * nothing was changed. The HTTP layer answers 503 with Retry-After in the
 * service's own error shape.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError'
  constructor (message = 'The data store is unavailable', options?: { cause?: unknown }) {
    super(message, options)
  }
}

/**
 * A request met a collection whose declaration changed under it: a write
 * made with an older declaration than the database holds (another instance
 * changed it), a write that reached a store its change already replaced, or
 * a statement naming a table or column the change took away. Nothing was
 * changed; the server follows the change, and the same request sent again
 * is served under the new declaration. The HTTP layer answers 503
 * SCHEMA_CHANGED with a short Retry-After. A StoreUnavailableError, so code
 * that only knows "nothing changed, try again" treats it so.
 */
export class SchemaChangedError extends StoreUnavailableError {
  override name = 'SchemaChangedError'
  constructor (
    /** The collection, when known. */
    readonly collection: string | undefined,
    message = `the declaration of ${collection ?? 'a collection'} changed while the request was on its way; send it again`,
    options?: { cause?: unknown }
  ) {
    super(message, options)
  }
}

/**
 * The work of one request in the store took longer than its time budget and
 * was stopped before it finished (a read refused once the request's deadline
 * passed, a statement the database cancelled at its statement timeout):
 * nothing was changed. The HTTP layer answers 503 STORE_TIMEOUT.
 */
export class StoreTimeoutError extends Error {
  override name = 'StoreTimeoutError'
  /** The budget that was spent (ms). */
  readonly ms: number
  constructor (ms: number, message = `The store's work took longer than its budget of ${ms} ms`, options?: { cause?: unknown }) {
    super(message, options)
    this.ms = ms
  }
}

/**
 * A write was sent to the database but no answer came back (a timeout, a
 * connection lost while waiting): it may have been committed or not. Unlike
 * StoreUnavailableError this must not be reported as "nothing changed"; a
 * client can retry safely only with the same Idempotency-Key.
 */
export class StoreOutcomeUnknownError extends Error {
  override name = 'StoreOutcomeUnknownError'
  constructor (message = 'The data store did not confirm the write', options?: { cause?: unknown }) {
    super(message, options)
  }
}

/**
 * A keyed write found its Idempotency-Key already kept: nothing was written.
 * The HTTP layer replays `kept.answer` when the fingerprints match, else 422.
 */
export class IdempotencyKeyUsedError extends Error {
  override name = 'IdempotencyKeyUsedError'
  readonly kept: KeptWrite
  constructor (kept: KeptWrite) {
    super('The Idempotency-Key was already used')
    this.kept = kept
  }
}

/**
 * A value the database cannot hold as sent (PostgreSQL's text type and
 * U+0000). The HTTP layer refuses such text before it reaches a store; this is
 * the store's own word for it should one get through, classified as a 400.
 */
export class UnstorableTextError extends Error {
  override name = 'UnstorableTextError'
}

/**
 * A query named a field its collection does not declare. The HTTP layer
 * refuses such names (400 INVALID_QUERY) before a store sees them, so this is
 * a caller's bug: it stops the query before the name can reach SQL or a
 * record's prototype (issue 19), and is answered as an internal error.
 */
export class UndeclaredFieldError extends Error {
  override name = 'UndeclaredFieldError'
  constructor (readonly collection: string, readonly field: string) {
    super(`${collection} has no field ${JSON.stringify(field.slice(0, 80))}`)
  }
}

/**
 * A collection's declaration no longer fits what a database already holds
 * for it (a field removed, a type or requiredness changed, another id type or
 * table). Stores only ever add optional fields on their own: anything else
 * would drop or reinterpret stored data, so opening the store stops here and
 * says what differs.
 */
export class CollectionChangedError extends Error {
  override name = 'CollectionChangedError'
  constructor (
    readonly collection: string,
    /** One line per difference, e.g. `year: type integer → string`. */
    readonly changes: string[],
    /** Where the stored one is: a file, a database. */
    where: string
  ) {
    super(`collection ${collection} no longer matches the one stored in ${where}: ${changes.join('; ')} ` +
      '(rqs keeps stored data: declare added fields as optional, or use a new collection name)')
  }
}

/**
 * A change of a collection that a store began and could not finish, its
 * work undone: records written meanwhile broke a unique key being built,
 * or the table never came free for the short step that switches over. The
 * declaration stays as it was; the change may be sent again.
 */
export class SchemaChangeFailedError extends Error {
  override name = 'SchemaChangeFailedError'
  constructor (readonly collection: string, readonly reason: string, options?: ErrorOptions) {
    super(`the change of ${collection} was not applied: ${reason}`, options)
  }
}

/**
 * A unit of work of a synchronous store (memory, SQLite) waited for
 * something besides its own operations, so it could not stay out of other
 * requests' sight: it was rolled back, nothing of it applied. A caller's bug
 * (RecordStores.atomically), answered as an internal error.
 */
export class UnitOfWorkStalledError extends Error {
  override name = 'UnitOfWorkStalledError'
  constructor () {
    super('The unit of work waited for something besides its own store operations; it was rolled back')
  }
}
