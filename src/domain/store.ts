import type { ChangeLog } from './changes.js'
import type { WebhookStore } from './webhooks.js'
import type { KeptWrites, KeyedWrite } from './idempotency.js'
import type { ImportOutcome, QueryableStore, RecordFilter, SortKey } from './query.js'
import type { AggregateQuery, AggregateRow } from './aggregate.js'
import type { Clock } from './clock.js'
import type { CollectionDeclaration, FieldData, RecordId, RecordInput, StoredRecord } from './collection.js'
import type { SchemaFindings, SchemaPlan } from './schema-plan.js'

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

/** Options every store understands (each store adds its own). */
export interface StoreOptions {
  /** How long an Idempotency-Key and its answer are kept (ms). Default 24 h. */
  idempotencyRetentionMs?: number
  /** How long the SQL stores keep changes for the change feed (ms). Default 24 h. */
  changesRetentionMs?: number
  /** How many changes the memory store keeps for the change feed. Default 10 000. */
  memoryChangesKept?: number
  /** Where the store reads the time (retention, expiry). Default the system clock. */
  clock?: Clock
  /** Every collection the stores keep, in order: the services hand theirs over (src/server.ts). */
  collections?: readonly CollectionDeclaration[]
  /** How long one read may take (ms; `--read-budget`), else StoreTimeoutError. Default 0: no bound. */
  readBudgetMs?: number
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
   * then by `sort` (id breaking ties; by id alone without it), the first
   * `perValue` of each value in that order, in one store query (the
   * back-relations of references: `books_via_author`), and that `filter`
   * accepts when given.
   */
  withValues (field: string, values: readonly FieldData[], perValue: number, filter?: RecordFilter, sort?: readonly SortKey[]): Promise<StoredRecord[]>
  /** Stores a new record under an id the declaration's id rule gives. */
  create (input: RecordInput, keyed?: KeyedWrite<CreateResult>): Promise<CreateResult>
  /**
   * Creates every input, in order, all or nothing (one transaction): each
   * gets the id the id rule gives in its turn (under `count`, the count after
   * the ones before it) and its own change, as `create` would one by one.
   */
  createMany (inputs: readonly RecordInput[], keyed?: KeyedWrite<CreateResult[]>): Promise<CreateResult[]>
  /**
   * Writes the record under `id`: an existing one is replaced (keeping the
   * declaration's keptOnUpdate fields); a missing one is created when the
   * declaration's putCreates says so, else the answer is not-found.
   */
  put (id: RecordId, input: RecordInput, condition?: WriteCondition<StoredRecord>, keyed?: KeyedWrite<WriteResult>): Promise<WriteResult>
  delete (id: RecordId, condition?: WriteCondition<StoredRecord>, keyed?: KeyedWrite<DeleteResult>): Promise<DeleteResult>
  /**
   * Merges `patch` (RFC 7396: null removes a field; see mergePatch) into
   * every record `filter` selects, in one transaction, a change each;
   * answers how many records it changed. The caller has checked the patch.
   */
  /** Aggregates over the records a filter selects, one row per group in no particular order (./aggregate.ts; SQL stores: one GROUP BY). */
  aggregate (query: AggregateQuery): Promise<AggregateRow[]>
  updateWhere (filter: RecordFilter, patch: Readonly<Record<string, unknown>>, keyed?: KeyedWrite<number>): Promise<number>
  /** Deletes every record `filter` selects, in one transaction, a change each; answers how many. */
  deleteWhere (filter: RecordFilter, keyed?: KeyedWrite<number>): Promise<number>
}

/**
 * One collection's reads and writes inside a unit of work
 * (RecordStores.atomically): a RecordStore's, without keyed writes (the unit
 * as a whole is keyed). A new verb (PATCH) is one more method here.
 */
export interface RecordWrites {
  readonly declaration: CollectionDeclaration
  /** The record as the unit sees it: its own writes included. */
  get (id: RecordId): Promise<StoredRecord | undefined>
  create (input: RecordInput): Promise<CreateResult>
  put (id: RecordId, input: RecordInput, condition?: WriteCondition<StoredRecord>): Promise<WriteResult>
  delete (id: RecordId, condition?: WriteCondition<StoredRecord>): Promise<DeleteResult>
}

/** One collection's records of an import of several (RecordStores.importAllOf). */
export interface CollectionImport {
  collection: string
  source: AsyncIterable<readonly StoredRecord[]>
  onApplied?: (outcome: ImportOutcome) => void
}

/** What the work of a unit of work sees: every collection, by name, in one transaction. */
export interface UnitOfWork {
  collections: ReadonlyMap<string, RecordWrites>
}

/** What a store opens: one RecordStore per declared collection, the change log, the life cycle. */
export interface RecordStores {
  /** Every collection's store, by name, in declaration order. */
  collections: ReadonlyMap<string, RecordStore>
  changes: ChangeLog
  /**
   * Runs `work` as one transaction over any collections (POST /batch): its
   * writes, their changes and a keyed answer (`keyed`, built from work's
   * result) commit together when `work` resolves, and nothing of them when it
   * rejects (the rejection is passed on). PostgreSQL: one connection in
   * BEGIN … COMMIT; SQLite: one BEGIN IMMEDIATE … COMMIT; memory: an undo log,
   * the changes appended at commit. On the synchronous stores (memory, SQLite)
   * `work` must wait for nothing but the unit's own operations: it runs
   * between two turns of the event loop, so no other request sees it half
   * done; one that waits for anything else is rolled back (UnitOfWorkStalledError).
   * The single-record writes never pass through here.
   */
  atomically: <R>(work: (unit: UnitOfWork) => Promise<R>, keyed?: KeyedWrite<R>) => Promise<R>
  /**
   * Imports several collections' records all or nothing (`rqs import` of
   * several files): each part's records as its collection's importAll takes
   * them, applied in the order given (a referenced collection before those
   * that refer to it) and committed together; a failing source or write
   * leaves every collection as it was. Answers how many records each source
   * gave. Every store opened by openStores has it.
   */
  importAllOf?: (parts: readonly CollectionImport[]) => Promise<number[]>
  /** Resolves when the backing database answers; rejects with StoreUnavailableError otherwise. */
  ping (): Promise<void>
  close (): Promise<void>
  /** Connection pool use, for /metrics; only stores with a pool (PostgreSQL) have it. */
  poolStats?: () => PoolStats
  /** Webhooks and their deliveries (issue 34): every store opened by openStores has them. */
  webhooks?: WebhookStore
  /** Collections changed while the server runs: every store opened by openStores has them. */
  schema?: SchemaChanges
}

/** A collection's declaration as the admin API last stored it: the JSON it was given, and its version. */
export interface SavedDeclaration {
  name: string
  version: number
  /** The declaration as sent (the file's form of one collection), or null once removed. */
  source: unknown
}

/** One version of a collection: who changed it when, with which plan. */
export interface SchemaHistoryEntry extends SavedDeclaration {
  /** ISO 8601. */
  at: string
  /** Who asked: a token's name, `anonymous`, or `start` for the declarations file. */
  caller: string
  plan: SchemaPlan
}

/**
 * Changes of collections while the server runs: a plan's findings in the
 * records held, and its application, after which `collections` holds the
 * collection's new store (or none, once removed). The SQL stores keep the
 * declarations and their history, so a restart serves what was created.
 */
export interface SchemaChanges {
  inspect (plan: SchemaPlan, before: CollectionDeclaration): Promise<SchemaFindings>
  /** Applies the plan in one transaction where the store allows, records `entry`, and answers the collection's new store. */
  apply (plan: SchemaPlan, before: CollectionDeclaration | undefined, after: CollectionDeclaration | undefined, entry: SchemaHistoryEntry): Promise<RecordStore | undefined>
  /** Opens the store of a collection an earlier change created (its table as that change left it), at start. */
  open (declaration: CollectionDeclaration): Promise<RecordStore>
  /** Keeps a version of a declaration whose tables are in step already (the declarations file's, applied at start). */
  record (entry: SchemaHistoryEntry): Promise<void>
  /** The declarations stored by earlier changes (removed ones included, with a null source). */
  saved (): Promise<SavedDeclaration[]>
  history (name: string): Promise<SchemaHistoryEntry[]>
  /** Stores that several instances share (PostgreSQL): how each instance follows the others' changes. */
  shared?: SharedSchema
}

/** How an instance learnt that the database holds a newer declaration than its own. */
export type SchemaMove = 'announced' | 'refused'

/**
 * What keeps an instance's declarations in step with a database other
 * instances change too. The database holds the registry's version, which a
 * change raises and announces in its own transaction.
 */
export interface SharedSchema {
  /**
   * Calls `moved` soon after another instance changed a collection
   * (`announced`: a notification, or a check every few seconds that covers a
   * lost one) and when a write met a newer declaration than this instance's
   * (`refused`). Answers the function that stops it.
   */
  watch (moved: (why: SchemaMove) => void): () => void
  /**
   * Writes to the collection's store hold from now on only while the
   * database's declaration of it is at `version`; any other one refuses
   * them (SchemaChangedError), inside the write's own statement; with
   * `until`, any version from `version` to it (this instance's own change,
   * which the writes of the declaration before it still fit).
   */
  pin (name: string, version: number, until?: number): void
  /** Forgets the store of a collection another instance removed. */
  forget (name: string): void
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
