import type { Address, Student } from './records.js'

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

