import type { RecordId, StoredRecord } from './collection.js'

/** What a write did to the record under one id. */
export type ChangeKind = 'created' | 'replaced' | 'deleted'

/** One create, replace or delete of a record of some collection. */
export interface Change {
  /**
   * 1, 2, 3 … without gaps across every instance sharing the store, a
   * record's changes in the order its writes committed. Memory and SQLite
   * number in the write's own transaction; PostgreSQL after it commits (a
   * sequencer, so that commits never wait for each other), and a reader only
   * ever sees numbered changes.
   */
  seq: number
  /** The collection's name, as declared (`books`). */
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

export interface SubscribeOptions {
  /**
   * Called before a change is handed to the listener, in sequence order:
   * true when the listener passes it over (it notes the sequence number
   * itself), so no Change is made for it. A log may ignore this and hand
   * every change to the listener, which must then pass over the same ones.
   */
  passes?: (seq: number, collection: string, kind: ChangeKind) => boolean
}

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
   * The changes of one record still held, newest first, at most `limit`:
   * a seek on the log's (collection, id, seq) index in SQLite and
   * PostgreSQL, a walk back through the ring in memory.
   */
  ofRecord: (collection: string, id: RecordId, limit: number) => Promise<Change[]>
  /**
   * Delivers every change committed from now on, by this instance or any
   * other sharing the store, in sequence order, but those `options.passes`
   * passes over (the memory log only: the SQL logs make a Change per row
   * read anyway). Listeners must not throw.
   */
  subscribe: (listener: ChangeListener, options?: SubscribeOptions) => Promise<ChangeSubscription>
  /**
   * How many reads of the log the store made to deliver changes to
   * subscribers: none while nobody subscribes (the log is read for the feed
   * only while it has someone to feed).
   */
  readonly feedReads?: number
}

