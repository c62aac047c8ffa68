import type { ChangeLog } from './changes.js'
import type { KeptWrites, KeyedWrite } from './idempotency.js'
import type { AddressField, QueryableStore, RecordFilter, StudentField } from './query.js'
import type { Address, AddressInput, Student, StudentInput } from './records.js'
import type { Clock } from './clock.js'
import type { CollectionDeclaration, FieldData, RecordId, RecordInput, StoredRecord } from './collection.js'

/**
 * The contracts every store meets (memory, SQLite, PostgreSQL). Stores know
 * nothing of HTTP: they keep records, apply the id rules atomically and report
 * failures as the errors in ./errors.ts.
 */

/**
 * A precondition for a write, resolved by the HTTP layer from If-Match /
 * If-None-Match. `matches` carries the record the client last saw: the write
 * happens only if the stored record still equals it (compare-and-set), so no
 * read-then-write race exists between instances.
 */
export type WriteCondition<T> =
  | { kind: 'none' }
  | { kind: 'absent' }
  | { kind: 'present' }
  | { kind: 'matches', current: T }

export type ReplaceResult<T> =
  | { outcome: 'replaced', record: T }
  | { outcome: 'not-found' }
  | { outcome: 'precondition-failed' }

export type DeleteResult =
  | { outcome: 'deleted' }
  | { outcome: 'not-found' }
  | { outcome: 'precondition-failed' }

/**
 * How a created student's id is chosen. `count` is the spec's rule: id =
 * number of records held now, so after a delete a create can take, and
 * overwrite, an id in use. `sequence` never reuses an id: one past the highest
 * id ever issued (kept by the store, so it survives restarts).
 */
export type StudentIdRule = 'count' | 'sequence'

export const STUDENT_ID_RULES: readonly StudentIdRule[] = ['count', 'sequence']

/** Options every store understands (each store adds its own). */
export interface StoreOptions {
  /** Default `count` (the spec). */
  studentIds?: StudentIdRule
  /** How long an Idempotency-Key and its answer are kept (ms). Default 24 h. */
  idempotencyRetentionMs?: number
  /** How long the SQL stores keep changes for the change feed (ms). Default 24 h. */
  changesRetentionMs?: number
  /** How many changes the memory store keeps for the change feed. Default 10 000. */
  memoryChangesKept?: number
  /** Where the store reads the time (retention, expiry). Default the system clock. */
  clock?: Clock
  /** The user's collections, kept beside the built-in ones (students, addresses). */
  collections?: readonly CollectionDeclaration[]
}

export const DEFAULT_IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000
export const DEFAULT_CHANGES_RETENTION_MS = 24 * 60 * 60 * 1000
export const DEFAULT_MEMORY_CHANGES_KEPT = 10_000

/** What a create did: `replaced` only under the `count` id rule, when a record already held the id. */
export interface CreateResult {
  outcome: 'created' | 'replaced'
  record: StoredRecord
}

/** What a write by id did. */
export type WriteResult =
  | { outcome: 'created', record: StoredRecord }
  | { outcome: 'replaced', record: StoredRecord }
  | { outcome: 'not-found' }
  | { outcome: 'precondition-failed' }

/**
 * The one store contract of every collection (built-in or declared by a
 * user), kept by memory, SQLite and PostgreSQL in one generic table each.
 * Every write is atomic: the id rule, the precondition, the record, its
 * change and a keyed answer commit together or not at all.
 */
export interface RecordStore extends KeptWrites, QueryableStore<StoredRecord, string> {
  readonly declaration: CollectionDeclaration
  get (id: RecordId): Promise<StoredRecord | undefined>
  /** The records of `ids` that exist, in no particular order, in one store query (expand, GraphQL's batched loads). */
  getMany (ids: readonly RecordId[]): Promise<StoredRecord[]>
  /**
   * The records whose `field` holds one of `values`, ordered by that value,
   * then id, at most `perValue` for each value, in one store query (the
   * back-relations of references: `books_via_author`), and that `filter`
   * accepts when given.
   */
  withValues (field: string, values: readonly FieldData[], perValue: number, filter?: RecordFilter): Promise<StoredRecord[]>
  /** Stores a new record under an id the declaration's id rule gives. */
  create (input: RecordInput, keyed?: KeyedWrite<CreateResult>): Promise<CreateResult>
  /**
   * Writes the record under `id`: an existing one is replaced (keeping the
   * declaration's keptOnUpdate fields); a missing one is created when the
   * declaration's putCreates says so, else the answer is not-found.
   */
  put (id: RecordId, input: RecordInput, condition?: WriteCondition<StoredRecord>, keyed?: KeyedWrite<WriteResult>): Promise<WriteResult>
  delete (id: RecordId, condition?: WriteCondition<StoredRecord>, keyed?: KeyedWrite<DeleteResult>): Promise<DeleteResult>
}

/** What a store opens: one RecordStore per declared collection, the change log, the life cycle. */
export interface RecordStores {
  /** Every collection's store, by name, in declaration order (built-in ones first). */
  collections: ReadonlyMap<string, RecordStore>
  changes: ChangeLog
  /** Resolves when the backing database answers; rejects with StoreUnavailableError otherwise. */
  ping (): Promise<void>
  close (): Promise<void>
  /** Connection pool use, for /metrics; only stores with a pool (PostgreSQL) have it. */
  poolStats?: () => PoolStats
}

/** What a student create did: `replaced` when the count rule gave it the id of a record held (which is gone). */
export interface StudentCreated {
  outcome: 'created' | 'replaced'
  record: Student
}

export interface StudentStore extends KeptWrites, QueryableStore<Student, StudentField> {
  /** Every record, in ascending id order. */
  list (): Promise<Student[]>
  get (id: number): Promise<Student | undefined>
  /**
   * Atomically, by the store's StudentIdRule: `count` (the spec) gives id =
   * number of records held now and replaces any record already there;
   * `sequence` gives one past the highest id ever issued.
   */
  create (input: StudentInput, keyed?: KeyedWrite<Student>): Promise<Student>
  /** create, also telling whether the id rule made it replace a record (`count` only). */
  createReporting (input: StudentInput, keyed?: KeyedWrite<StudentCreated>): Promise<StudentCreated>
  /** Replaces firstName, lastName and age of an existing record; never creates. */
  replace (student: Student, condition?: WriteCondition<Student>, keyed?: KeyedWrite<ReplaceResult<Student>>): Promise<ReplaceResult<Student>>
  delete (id: number, condition?: WriteCondition<Student>, keyed?: KeyedWrite<DeleteResult>): Promise<DeleteResult>
}

export type PutResult =
  | { outcome: 'created', record: Address }
  | { outcome: 'updated', record: Address }
  | { outcome: 'precondition-failed' }

export interface AddressListQuery {
  /** At most this many records, ascending by id. */
  limit: number
  /** Only records with an id greater than this (keyset paging). */
  after?: bigint
  city?: string
  postalCode?: string
}

export interface AddressStore extends KeptWrites, QueryableStore<Address, AddressField> {
  /** Stores a new record under a generated id that no record (POSTed or PUT) holds. */
  create (input: AddressInput, keyed?: KeyedWrite<Address>): Promise<Address>
  get (id: bigint): Promise<Address | undefined>
  list (query: AddressListQuery): Promise<Address[]>
  /**
   * PUT semantics in one atomic step: when `id` exists, replace its city and
   * postalCode (the stored name is kept); otherwise store `input` under `id`.
   */
  put (id: bigint, input: AddressInput, condition?: WriteCondition<Address>, keyed?: KeyedWrite<PutResult>): Promise<PutResult>
  delete (id: bigint, condition?: WriteCondition<Address>, keyed?: KeyedWrite<DeleteResult>): Promise<DeleteResult>
}

/**
 * All stores of one running server: the generic ones, and the built-in
 * services' typed views of theirs (see ./builtins.ts).
 */
export interface Stores extends RecordStores {
  students: StudentStore
  addresses: AddressStore
}

export interface PoolStats {
  /** Most connections the pool opens. */
  max: number
  /** Connections open now, busy or idle. */
  open: number
  idle: number
  /** Queries waiting for a free connection. */
  waiting: number
}


/** The condition of an unconditional write; fits WriteCondition<T> for every T. */
export const NO_CONDITION: WriteCondition<never> = { kind: 'none' }
export const NOT_FOUND = { outcome: 'not-found' } as const
export const PRECONDITION_FAILED = { outcome: 'precondition-failed' } as const
export const DELETED = { outcome: 'deleted' } as const
/** Write only when no record holds the id (If-None-Match: *). */
export const IF_ABSENT: WriteCondition<never> = { kind: 'absent' }
/** Write only when a record holds the id (an update that must not create). */
export const IF_PRESENT: WriteCondition<never> = { kind: 'present' }
