import type { CollectionDeclaration, StoredRecord } from './collection.js'
import type { KeyedWrite } from './idempotency.js'
import type { Address, AddressInput, Student, StudentInput } from './records.js'
import type { AddressListQuery, AddressStore, CreateResult, DeleteResult, PutResult, StudentCreated, RecordStore, RecordStores, ReplaceResult, StoreOptions, Stores, StudentIdRule, StudentStore, WriteCondition, WriteResult } from './store.js'
import type { ImportOutcome, RecordFilter, RecordQuery, StoreRevision } from './query.js'

/**
 * The two built-in collections as declarations on the one record engine, and
 * the typed views their services use. What makes them differ is all here: the
 * spec's id rules (the count rule or a sequence for students; 64-bit ids for
 * addresses), PUT's meaning (replace only; update-or-create keeping the name).
 */

export function studentsDeclaration (ids: StudentIdRule = 'count'): CollectionDeclaration {
  return {
    name: 'students',
    table: 'rqs_students',
    fields: { firstName: { type: 'string', required: true }, lastName: { type: 'string', required: true }, age: { type: 'integer', required: true } },
    ids,
    firstId: 0,
    putCreates: false,
    keptOnUpdate: []
  }
}

export const ADDRESSES_DECLARATION: CollectionDeclaration = {
  name: 'addresses',
  table: 'rqs_addresses',
  fields: { name: { type: 'string', required: true }, city: { type: 'string', required: true }, postalCode: { type: 'string', required: true } },
  ids: 'int64',
  firstId: 1,
  putCreates: true,
  // The spec: an update takes city and postalCode from the entity and keeps the stored name.
  keptOnUpdate: ['name']
}

/** Every collection a store keeps: the built-in ones, then the user's. */
export function declarationsOf (options: StoreOptions): CollectionDeclaration[] {
  return [studentsDeclaration(options.studentIds), ADDRESSES_DECLARATION, ...options.collections ?? []]
}

/** The stores of one server with the built-in services' views of theirs. */
export function withBuiltIns (stores: RecordStores): Stores {
  const students = stores.collections.get('students')
  const addresses = stores.collections.get('addresses')
  if (students === undefined || addresses === undefined) throw new RangeError('the stores keep no students or addresses')
  return { ...stores, students: new StudentView(students), addresses: new AddressView(addresses) }
}

/** A keyed write of a view, as a keyed write of the record store: the answer is built from the view's result. */
function keyedAs<V, S> (keyed: KeyedWrite<V> | undefined, view: (result: S) => V): KeyedWrite<S> | undefined {
  if (keyed === undefined) return undefined
  return { key: keyed.key, fingerprint: keyed.fingerprint, answer: (result) => keyed.answer(view(result)) }
}

abstract class View<R extends StoredRecord> {
  /** Present when the record store has one (the memory store): a plain field, read by isRevisioned. */
  readonly revision?: StoreRevision
  readonly keptWrite?: RecordStore['keptWrite']

  constructor (protected readonly records: RecordStore) {
    if (records.revision !== undefined) this.revision = records.revision
    if (records.keptWrite !== undefined) this.keptWrite = records.keptWrite.bind(records)
  }

  async query (query: RecordQuery): Promise<R[]> {
    return await this.records.query(query) as R[]
  }

  async count (filter: RecordFilter): Promise<number> {
    return await this.records.count(filter)
  }

  batches (query: RecordQuery): AsyncIterable<readonly R[]> {
    return this.records.batches(query) as AsyncIterable<readonly R[]>
  }

  async importAll (source: AsyncIterable<readonly R[]>, onApplied?: (outcome: ImportOutcome) => void): Promise<number> {
    return await this.records.importAll(source, onApplied)
  }

  async delete (id: number | bigint, condition?: WriteCondition<R>, keyed?: KeyedWrite<DeleteResult>): Promise<DeleteResult> {
    return await this.records.delete(id, condition as WriteCondition<StoredRecord> | undefined, keyed)
  }
}

class StudentView extends View<Student> implements StudentStore {
  async list (): Promise<Student[]> {
    return await this.query({ where: [], sort: [] })
  }

  async get (id: number): Promise<Student | undefined> {
    return await this.records.get(id) as Student | undefined
  }

  async create (input: StudentInput, keyed?: KeyedWrite<Student>): Promise<Student> {
    const result = await this.records.create(input, keyedAs(keyed, (r) => r.record as Student))
    return result.record as Student
  }

  async createReporting (input: StudentInput, keyed?: KeyedWrite<StudentCreated>): Promise<StudentCreated> {
    const created = (r: CreateResult): StudentCreated => ({ outcome: r.outcome, record: r.record as Student })
    return created(await this.records.create(input, keyedAs(keyed, created)))
  }

  async replace (student: Student, condition?: WriteCondition<Student>, keyed?: KeyedWrite<ReplaceResult<Student>>): Promise<ReplaceResult<Student>> {
    const { id, ...input } = student
    const result = await this.records.put(id, input, condition as WriteCondition<StoredRecord> | undefined, keyedAs(keyed, replaceResult))
    return replaceResult(result)
  }
}

function replaceResult (result: WriteResult): ReplaceResult<Student> {
  return result.outcome === 'replaced' || result.outcome === 'created' ? { outcome: 'replaced', record: result.record as Student } : result
}

class AddressView extends View<Address> implements AddressStore {
  async create (input: AddressInput, keyed?: KeyedWrite<Address>): Promise<Address> {
    const result = await this.records.create(input, keyedAs(keyed, (r) => r.record as Address))
    return result.record as Address
  }

  async get (id: bigint): Promise<Address | undefined> {
    return await this.records.get(id) as Address | undefined
  }

  async list (query: AddressListQuery): Promise<Address[]> {
    const where: Array<RecordQuery['where'][number]> = []
    if (query.city !== undefined) where.push({ field: 'city', op: 'eq', value: query.city })
    if (query.postalCode !== undefined) where.push({ field: 'postalCode', op: 'eq', value: query.postalCode })
    const after = query.after === undefined ? undefined : { keys: [], id: query.after }
    return await this.query({ where, sort: [], after, limit: query.limit })
  }

  async put (id: bigint, input: AddressInput, condition?: WriteCondition<Address>, keyed?: KeyedWrite<PutResult>): Promise<PutResult> {
    const result = await this.records.put(id, input, condition as WriteCondition<StoredRecord> | undefined, keyedAs(keyed, putResult))
    return putResult(result)
  }
}

function putResult (result: WriteResult): PutResult {
  switch (result.outcome) {
    case 'created': return { outcome: 'created', record: result.record as Address }
    case 'replaced': return { outcome: 'updated', record: result.record as Address }
    // A PUT to an address creates it; a not-found comes only from a condition that wanted a record.
    case 'not-found': return { outcome: 'precondition-failed' }
    case 'precondition-failed': return result
  }
}
