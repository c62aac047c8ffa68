import type { CollectionDeclaration, DeleteResult, KeptWrites, KeyedWrite, QueryableStore, RecordQuery, RecordStore, WriteCondition, WriteResult } from '../../domain/index.js'
import { keyedAs, RecordView } from '../records/view.js'

/**
 * The address book's records as the record engine keeps them: their
 * declaration (64-bit ids; PUT updates or creates, keeping the stored name),
 * their type, and the typed view import/export and seeding use.
 */

// Type aliases, not interfaces: a typed record is then a StoredRecord too (an alias has an implicit index signature).
export type AddressInput = {
  name: string
  city: string
  postalCode: string
}

export type Address = AddressInput & {
  /** 64-bit: 1 … MAX_INT64_ID (9223372036854775807). */
  id: bigint
}

export type AddressField = 'id' | 'name' | 'city' | 'postalCode'

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

export function sameAddress (a: Address, b: Address): boolean {
  return a.id === b.id && a.name === b.name && a.city === b.city && a.postalCode === b.postalCode
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

/** The address book's typed view of its record store. */
export function addressStore (records: RecordStore): AddressStore {
  return new AddressView(records)
}

class AddressView extends RecordView<Address> implements AddressStore {
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
    const result = await this.records.put(id, input, condition, keyedAs(keyed, putResult))
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
