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

export interface StudentStore {
  /** Every record, in ascending id order. */
  list (): Promise<Student[]>
  get (id: number): Promise<Student | undefined>
  /**
   * The spec's id rule, atomically: id = number of records held now; the new
   * record is stored under that id, replacing any record already there.
   */
  create (input: StudentInput): Promise<Student>
  /** Replaces firstName, lastName and age of an existing record; never creates. */
  replace (student: Student, condition?: WriteCondition<Student>): Promise<ReplaceResult<Student>>
  delete (id: number, condition?: WriteCondition<Student>): Promise<DeleteResult>
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

export interface AddressStore {
  /** Stores a new record under a generated id that no record (POSTed or PUT) holds. */
  create (input: AddressInput): Promise<Address>
  get (id: bigint): Promise<Address | undefined>
  list (query: AddressListQuery): Promise<Address[]>
  /**
   * PUT semantics in one atomic step: when `id` exists, replace its city and
   * postalCode (the stored name is kept); otherwise store `input` under `id`.
   */
  put (id: bigint, input: AddressInput, condition?: WriteCondition<Address>): Promise<PutResult>
  delete (id: bigint, condition?: WriteCondition<Address>): Promise<DeleteResult>
}

/** All stores of one running server, plus their life cycle. */
export interface Stores {
  students: StudentStore
  addresses: AddressStore
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
