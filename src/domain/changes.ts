import type { RecordId, StoredRecord } from './collection.js'

/** What a write did to the record under one id. */
export type ChangeKind = 'created' | 'replaced' | 'deleted'

/** One create, replace or delete of a record of some collection. */
export interface Change {
  /**
   * Assigned in the write's own transaction: 1, 2, 3 … without gaps, in the
   * order the writes committed, across every instance sharing the store.
   */
  seq: number
  /** The collection's name (`students`, `addresses`, `books`). */
  service: string
  kind: ChangeKind
  id: RecordId
  /** The record as the write left it; null after a delete. */
  record: StoredRecord | null
  /** When the store recorded the change. */
  at: Date
}

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

