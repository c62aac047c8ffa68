import type {
  Address, AddressInput, AddressListQuery, AddressStore, Change, ChangeListener, ChangeLog, ChangeSubscription, ChangeWindow,
  DeleteResult, KeptWrite, KeptWrites, KeyedWrite, PutResult, QueryableStore, RecordFilter, RecordQuery, ReplaceResult, StoreRevision, Stores, Student,
  StudentInput, StudentStore, WriteCondition, AddressField, StudentField
} from '../domain/index.js'

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
export function observeFailures (stores: Stores, onFailure: StoreFailureListener): Stores {
  const observed: Stores = {
    students: new ObservedStudentStore(stores.students, (op, err) => { onFailure('students', op, err) }),
    addresses: new ObservedAddressStore(stores.addresses, (op, err) => { onFailure('addresses', op, err) }),
    changes: new ObservedChangeLog(stores.changes, (op, err) => { onFailure('changes', op, err) }),
    ping: async () => { await stores.ping() },
    close: async () => { await stores.close() }
  }
  if (stores.poolStats !== undefined) observed.poolStats = stores.poolStats
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

/** What both record collections share: queries, streams, imports, kept writes, and the revision when the inner store has one. */
abstract class ObservedRecords<R, F extends string, S extends QueryableStore<R, F> & KeptWrites> {
  /** Only when the inner store keeps answers of keyed writes, as the contract allows. */
  readonly keptWrite?: (key: string) => Promise<KeptWrite | undefined>

  constructor (protected readonly inner: S, protected readonly failed: Failed) {
    const keptWrite = inner.keptWrite
    if (keptWrite !== undefined) this.keptWrite = async (key) => await watch('keptWrite', failed, async () => await keptWrite.call(inner, key))
  }

  get revision (): StoreRevision | undefined {
    return this.inner.revision
  }

  async query (query: RecordQuery<F>): Promise<R[]> {
    return await watch('query', this.failed, async () => await this.inner.query(query))
  }

  async count (filter: RecordFilter<F>): Promise<number> {
    return await watch('count', this.failed, async () => await this.inner.count(filter))
  }

  batches (query: RecordQuery<F>): AsyncIterable<readonly R[]> {
    return watchStream(this.failed, this.inner.batches(query))
  }

  async importAll (source: AsyncIterable<readonly R[]>): Promise<number> {
    return await watch('importAll', this.failed, async () => await this.inner.importAll(source))
  }
}

class ObservedStudentStore extends ObservedRecords<Student, StudentField, StudentStore> implements StudentStore {
  async list (): Promise<Student[]> {
    return await watch('list', this.failed, async () => await this.inner.list())
  }

  async get (id: number): Promise<Student | undefined> {
    return await watch('get', this.failed, async () => await this.inner.get(id))
  }

  async create (input: StudentInput, keyed?: KeyedWrite<Student>): Promise<Student> {
    return await watch('create', this.failed, async () => await this.inner.create(input, keyed))
  }

  async replace (student: Student, condition?: WriteCondition<Student>, keyed?: KeyedWrite<ReplaceResult<Student>>): Promise<ReplaceResult<Student>> {
    return await watch('replace', this.failed, async () => await this.inner.replace(student, condition, keyed))
  }

  async delete (id: number, condition?: WriteCondition<Student>, keyed?: KeyedWrite<DeleteResult>): Promise<DeleteResult> {
    return await watch('delete', this.failed, async () => await this.inner.delete(id, condition, keyed))
  }
}

class ObservedAddressStore extends ObservedRecords<Address, AddressField, AddressStore> implements AddressStore {
  async create (input: AddressInput, keyed?: KeyedWrite<Address>): Promise<Address> {
    return await watch('create', this.failed, async () => await this.inner.create(input, keyed))
  }

  async get (id: bigint): Promise<Address | undefined> {
    return await watch('get', this.failed, async () => await this.inner.get(id))
  }

  async list (query: AddressListQuery): Promise<Address[]> {
    return await watch('list', this.failed, async () => await this.inner.list(query))
  }

  async put (id: bigint, input: AddressInput, condition?: WriteCondition<Address>, keyed?: KeyedWrite<PutResult>): Promise<PutResult> {
    return await watch('put', this.failed, async () => await this.inner.put(id, input, condition, keyed))
  }

  async delete (id: bigint, condition?: WriteCondition<Address>, keyed?: KeyedWrite<DeleteResult>): Promise<DeleteResult> {
    return await watch('delete', this.failed, async () => await this.inner.delete(id, condition, keyed))
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

  async subscribe (listener: ChangeListener): Promise<ChangeSubscription> {
    return await watch('subscribe', this.failed, async () => await this.inner.subscribe(listener))
  }
}
