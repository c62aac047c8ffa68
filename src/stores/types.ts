import type { AddressField, QueryableStore, StudentField } from './query.js'
import type { Clock } from './clock.js'

/**
 * The contracts every store meets (memory, SQLite, PostgreSQL). Stores know
 * nothing of HTTP: they keep records, apply the id rules atomically and report
 * failures as the errors in ./errors.ts.
 */

export interface StudentInput {
  firstName: string
  lastName: string
  age: number
}

export interface Student extends StudentInput {
  id: number
}

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
}

export const DEFAULT_IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000
export const DEFAULT_CHANGES_RETENTION_MS = 24 * 60 * 60 * 1000
export const DEFAULT_MEMORY_CHANGES_KEPT = 10_000

/**
 * The answer a write gave, as the HTTP layer sent it: kept under the
 * request's Idempotency-Key and sent again, unchanged, to a retry.
 */
export interface KeptAnswer {
  status: number
  /** The headers that describe the result (Location, ETag). */
  headers: Record<string, string>
  /** The serialised body ('' for none). */
  body: string
}

/** A kept write: the fingerprint of the request that made it, and its answer. */
export interface KeptWrite {
  fingerprint: string
  answer: KeptAnswer
}

/**
 * Passed to a write to make it idempotent. Inside the write's own transaction
 * the store checks `key`: when it is already kept, nothing is written and the
 * write throws IdempotencyKeyUsedError with the kept write; otherwise it
 * writes, builds `answer(result)` and keeps it under `key` in the same
 * transaction, so the record and its answer are committed together or not at all.
 */
export interface KeyedWrite<R> {
  key: string
  /** Identifies the request (method, path, version, body); a retry must match it. */
  fingerprint: string
  /** The answer for this result; undefined when the write changed nothing (then nothing is kept). Synchronous. */
  answer: (result: R) => KeptAnswer | undefined
}

/** Record stores that keep answers of keyed writes. */
export interface KeptWrites {
  /** The write kept under `key` within the retention window, if any. Optional: test doubles may leave it out. */
  keptWrite?: (key: string) => Promise<KeptWrite | undefined>
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
  /** Replaces firstName, lastName and age of an existing record; never creates. */
  replace (student: Student, condition?: WriteCondition<Student>, keyed?: KeyedWrite<ReplaceResult<Student>>): Promise<ReplaceResult<Student>>
  delete (id: number, condition?: WriteCondition<Student>, keyed?: KeyedWrite<DeleteResult>): Promise<DeleteResult>
}

export interface AddressInput {
  name: string
  city: string
  postalCode: string
}

export interface Address extends AddressInput {
  /** 64-bit: 1 … 9223372036854775807. */
  id: bigint
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

/** The record collections whose writes the change log records. */
export type ChangedCollection = 'students' | 'addresses'

/** What a write did to the record under one id. */
export type ChangeKind = 'created' | 'replaced' | 'deleted'

interface ChangeOf<S extends ChangedCollection, Id, R> {
  /**
   * Assigned in the write's own transaction: 1, 2, 3 … without gaps, in the
   * order the writes committed, across every instance sharing the store.
   */
  seq: number
  service: S
  kind: ChangeKind
  id: Id
  /** The record as the write left it; null after a delete. */
  record: R | null
  /** When the store recorded the change. */
  at: Date
}

export type StudentChange = ChangeOf<'students', number, Student>
export type AddressChange = ChangeOf<'addresses', bigint, Address>
/** One create, replace or delete of a student or an address. */
export type Change = StudentChange | AddressChange

/** The changes a store still holds: `oldest` … `latest` (none when oldest = latest + 1). */
export interface ChangeWindow {
  oldest: number
  /** The last sequence number assigned; 0 before the first change. */
  latest: number
}

export type ChangeListener = (change: Change) => void

export interface ChangeSubscription {
  /** The listener gets every change after this sequence number, in order, each once. */
  position: number
  unsubscribe: () => void
}

/**
 * The store's record of changes, kept for a while so that a reader can catch
 * up from any position it still holds: the last 10 000 in memory, the last
 * `changesRetentionMs` in SQLite and PostgreSQL (pruned in the background).
 */
export interface ChangeLog {
  /** The changes after `after`, ascending, at most `limit`. */
  since: (after: number, limit: number) => Promise<Change[]>
  window: () => Promise<ChangeWindow>
  /**
   * Delivers every change committed from now on, by this instance or any
   * other sharing the store, in sequence order. Listeners must not throw.
   */
  subscribe: (listener: ChangeListener) => Promise<ChangeSubscription>
}

/** All stores of one running server, plus their life cycle. */
export interface Stores {
  students: StudentStore
  addresses: AddressStore
  changes: ChangeLog
  /** Resolves when the backing database answers; rejects with StoreUnavailableError otherwise. */
  ping (): Promise<void>
  close (): Promise<void>
  /** Connection pool use, for /metrics; only stores with a pool (PostgreSQL) have it. */
  poolStats?: () => PoolStats
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
