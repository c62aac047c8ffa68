import {
  type Change, type ChangeListener, type ChangeLog, type ChangeSubscription, type ChangeWindow, type SubscribeOptions, type CollectionDeclaration, type CreateResult, type FieldData,
  type DeleteResult, type ImportOutcome, type KeptWrite, type KeyedWrite, type RecordFilter, type SortKey, type RecordId, type RecordInput, type RecordQuery, type RecordStore,
  type RecordStores, type StoredRecord, type StoreRevision, type WriteCondition, type WriteResult
} from '../domain/index.js'
import type { AggregateQuery, AggregateRow } from '../domain/index.js'

/** Told of every store operation that failed: which collection, which operation, and the error (which is rethrown). */
export type StoreFailureListener = (collection: string, operation: string, error: unknown) => void

/**
 * Stores that report every failed operation to `onFailure` and otherwise
 * behave exactly as `stores` do (the conformance suites run against them).
 * A decorator in the open: the composition root writes
 * `observeFailures(await openStores(…), …)`; each collection is a real object
 * implementing the whole contract, so no method is forgotten, streams
 * (`batches`) included.
 */
export function observeFailures (stores: RecordStores, onFailure: StoreFailureListener): RecordStores {
  const collections = new Map<string, RecordStore>()
  for (const [name, store] of stores.collections) collections.set(name, new ObservedRecordStore(store, (op, err) => { onFailure(name, op, err) }))
  const observed: RecordStores = {
    collections,
    changes: new ObservedChangeLog(stores.changes, (op, err) => { onFailure('changes', op, err) }),
    // Passed through: a unit fails also by its work's own refusals (a batch's failing request), which are no store failure.
    atomically: stores.atomically,
    ping: async () => { await stores.ping() },
    close: async () => { await stores.close() }
  }
  if (stores.poolStats !== undefined) observed.poolStats = stores.poolStats
  const importAllOf = stores.importAllOf
  if (importAllOf !== undefined) observed.importAllOf = async (parts) => await importAllOf(parts)
  if (stores.webhooks !== undefined) observed.webhooks = stores.webhooks
  const schema = stores.schema
  if (schema !== undefined) {
    // A changed collection's new store is observed too, in this decorator's own map.
    observed.schema = {
      inspect: async (plan, before) => await schema.inspect(plan, before),
      saved: async () => await schema.saved(),
      record: async (entry) => { await schema.record(entry) },
      history: async (name) => await schema.history(name),
      open: async (declaration) => {
        const watched = new ObservedRecordStore(await schema.open(declaration), (op, err) => { onFailure(declaration.name, op, err) })
        collections.set(declaration.name, watched)
        return watched
      },
      apply: async (plan, before, after, entry) => {
        const store = await schema.apply(plan, before, after, entry)
        if (store === undefined) { collections.delete(plan.collection); return undefined }
        const watched = new ObservedRecordStore(store, (op, err) => { onFailure(plan.collection, op, err) })
        collections.set(plan.collection, watched)
        return watched
      }
    }
    const shared = schema.shared
    if (shared !== undefined) {
      observed.schema.shared = {
        watch: (moved) => shared.watch(moved),
        pin: (name, version) => { shared.pin(name, version) },
        forget: (name) => { shared.forget(name); collections.delete(name) }
      }
    }
  }
  return observed
}

type Failed = (operation: string, error: unknown) => void

/** Reports a rejected promise and passes it on unchanged. */
async function watch<T> (operation: string, failed: Failed, run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (err) {
    failed(operation, err)
    throw err
  }
}

/** A stream reported like a single operation, also when it fails half-way; an early stop still ends the inner stream. */
async function * watchStream<T> (failed: Failed, source: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    yield * source
  } catch (err) {
    failed('batches', err)
    throw err
  }
}

class ObservedRecordStore implements RecordStore {
  /** Only when the inner store keeps answers of keyed writes, as the contract allows. */
  readonly keptWrite?: (key: string) => Promise<KeptWrite | undefined>

  constructor (private readonly inner: RecordStore, private readonly failed: Failed) {
    const keptWrite = inner.keptWrite
    if (keptWrite !== undefined) this.keptWrite = async (key) => await watch('keptWrite', failed, async () => await keptWrite.call(inner, key))
  }

  get declaration (): CollectionDeclaration {
    return this.inner.declaration
  }

  get revision (): StoreRevision | undefined {
    return this.inner.revision
  }

  async get (id: RecordId): Promise<StoredRecord | undefined> {
    return await watch('get', this.failed, async () => await this.inner.get(id))
  }

  async getMany (ids: readonly RecordId[]): Promise<StoredRecord[]> {
    return await watch('getMany', this.failed, async () => await this.inner.getMany(ids))
  }

  async withValues (field: string, values: readonly FieldData[], perValue: number, filter?: RecordFilter, sort?: readonly SortKey[]): Promise<StoredRecord[]> {
    return await watch('withValues', this.failed, async () => await this.inner.withValues(field, values, perValue, filter, sort))
  }

  async create (input: RecordInput, keyed?: KeyedWrite<CreateResult>): Promise<CreateResult> {
    return await watch('create', this.failed, async () => await this.inner.create(input, keyed))
  }

  async createMany (inputs: readonly RecordInput[], keyed?: KeyedWrite<CreateResult[]>): Promise<CreateResult[]> {
    return await watch('createMany', this.failed, async () => await this.inner.createMany(inputs, keyed))
  }

  async put (id: RecordId, input: RecordInput, condition?: WriteCondition<StoredRecord>, keyed?: KeyedWrite<WriteResult>): Promise<WriteResult> {
    return await watch('put', this.failed, async () => await this.inner.put(id, input, condition, keyed))
  }

  async delete (id: RecordId, condition?: WriteCondition<StoredRecord>, keyed?: KeyedWrite<DeleteResult>): Promise<DeleteResult> {
    return await watch('delete', this.failed, async () => await this.inner.delete(id, condition, keyed))
  }

  async updateWhere (filter: RecordFilter, patch: Readonly<Record<string, unknown>>, keyed?: KeyedWrite<number>): Promise<number> {
    return await watch('updateWhere', this.failed, async () => await this.inner.updateWhere(filter, patch, keyed))
  }

  async deleteWhere (filter: RecordFilter, keyed?: KeyedWrite<number>): Promise<number> {
    return await watch('deleteWhere', this.failed, async () => await this.inner.deleteWhere(filter, keyed))
  }

  async query (query: RecordQuery): Promise<StoredRecord[]> {
    return await watch('query', this.failed, async () => await this.inner.query(query))
  }

  async aggregate (query: AggregateQuery): Promise<AggregateRow[]> {
    return await watch('aggregate', this.failed, async () => await this.inner.aggregate(query))
  }

  async count (filter: RecordFilter): Promise<number> {
    return await watch('count', this.failed, async () => await this.inner.count(filter))
  }

  batches (query: RecordQuery): AsyncIterable<readonly StoredRecord[]> {
    return watchStream(this.failed, this.inner.batches(query))
  }

  async importAll (source: AsyncIterable<readonly StoredRecord[]>, onApplied?: (outcome: ImportOutcome) => void): Promise<number> {
    return await watch('importAll', this.failed, async () => await this.inner.importAll(source, onApplied))
  }
}

class ObservedChangeLog implements ChangeLog {
  constructor (private readonly inner: ChangeLog, private readonly failed: Failed) {}

  async since (after: number, limit: number): Promise<Change[]> {
    return await watch('since', this.failed, async () => await this.inner.since(after, limit))
  }

  async window (): Promise<ChangeWindow> {
    return await watch('window', this.failed, async () => await this.inner.window())
  }

  async ofRecord (collection: string, id: RecordId, limit: number): Promise<Change[]> {
    return await watch('ofRecord', this.failed, async () => await this.inner.ofRecord(collection, id, limit))
  }

  async subscribe (listener: ChangeListener, options?: SubscribeOptions): Promise<ChangeSubscription> {
    return await watch('subscribe', this.failed, async () => await this.inner.subscribe(listener, options))
  }

  get feedReads (): number | undefined {
    return this.inner.feedReads
  }
}
