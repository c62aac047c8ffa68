import { type Address, type AddressInput, type AddressListQuery, type AddressStore, type DeleteResult, type KeptWrite, type KeyedWrite, type PutResult, type WriteCondition, conditionHolds, ADDRESS_FIELDS, type AddressField, type RecordFilter, type RecordQuery, DELETED, MAX_ADDRESS_ID, NO_CONDITION, NOT_FOUND, PRECONDITION_FAILED, sameAddress } from '../../domain/index.js'
import { MemoryKeptWrites } from './kept-writes.js'
import { IndexedTable } from './indexed-table.js'
import { MemoryQueries } from './query.js'
import { MemoryChangeLog } from './changes.js'
import type { Revision } from './revision.js'

/**
 * Address records in a Map keyed by bigint. Generated ids count up from 1 and
 * skip any id a PUT already created, so they never collide.
 */
export class MemoryAddressStore implements AddressStore {
  readonly #kept: MemoryKeptWrites
  readonly #records = new IndexedTable<bigint, Address>(ADDRESS_FIELDS)
  readonly #queries = new MemoryQueries(this.#records, ADDRESS_FIELDS, 'addresses')
  /** Advanced by every write (a plain field, so wrappers that delegate to this store see it too). */
  readonly revision: Revision = this.#records.revision
  readonly #changes: MemoryChangeLog
  #nextId = 1n

  constructor (kept = new MemoryKeptWrites(), changes = new MemoryChangeLog()) {
    this.#kept = kept
    this.#changes = changes
  }

  async keptWrite (key: string): Promise<KeptWrite | undefined> {
    return this.#kept.find(key)
  }

  async create (input: AddressInput, keyed?: KeyedWrite<Address>): Promise<Address> {
    return this.#kept.run(keyed, () => {
      while (this.#records.has(this.#nextId)) this.#nextId++
      if (this.#nextId > MAX_ADDRESS_ID) throw new RangeError('address ids are exhausted')
      const address: Address = { id: this.#nextId++, name: input.name, city: input.city, postalCode: input.postalCode }
      this.#records.set(address.id, address)
      this.#changes.addressChanged('created', address.id, address)
      return address
    })
  }

  async get (id: bigint): Promise<Address | undefined> {
    return this.#records.get(id)
  }

  async list (query: AddressListQuery): Promise<Address[]> {
    const out: Address[] = []
    // Ids are sorted on demand: paging is rare next to reads by id, and a Map keeps inserts O(1).
    const ids = [...this.#records.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    for (const id of ids) {
      if (query.after !== undefined && id <= query.after) continue
      const a = this.#records.get(id) as Address
      if (query.city !== undefined && a.city !== query.city) continue
      if (query.postalCode !== undefined && a.postalCode !== query.postalCode) continue
      out.push(a)
      if (out.length >= query.limit) break
    }
    return out
  }

  async put (id: bigint, input: AddressInput, condition: WriteCondition<Address> = NO_CONDITION, keyed?: KeyedWrite<PutResult>): Promise<PutResult> {
    return this.#kept.run(keyed, () => {
      const current = this.#records.get(id)
      if (!conditionHolds(condition, current, sameAddress)) return PRECONDITION_FAILED
      if (current === undefined) {
        const created: Address = { id, name: input.name, city: input.city, postalCode: input.postalCode }
        this.#records.set(id, created)
        this.#changes.addressChanged('created', id, created)
        return { outcome: 'created', record: created }
      }
      // The spec: city and postalCode come from the submitted entity; the stored name is kept.
      const updated: Address = { id, name: current.name, city: input.city, postalCode: input.postalCode }
      this.#records.set(id, updated)
      this.#changes.addressChanged('replaced', id, updated)
      return { outcome: 'updated', record: updated }
    })
  }

  async delete (id: bigint, condition: WriteCondition<Address> = NO_CONDITION, keyed?: KeyedWrite<DeleteResult>): Promise<DeleteResult> {
    return this.#kept.run(keyed, () => {
      const current = this.#records.get(id)
      if (current === undefined) return NOT_FOUND
      if (!conditionHolds(condition, current, sameAddress)) return PRECONDITION_FAILED
      this.#records.delete(id)
      this.#changes.addressChanged('deleted', id, null)
      return DELETED
    })
  }

  async query (query: RecordQuery<AddressField>): Promise<Address[]> {
    return this.#queries.query(query)
  }

  async count (filter: RecordFilter<AddressField>): Promise<number> {
    return this.#queries.count(filter)
  }

  batches (query: RecordQuery<AddressField>): AsyncIterable<Address[]> {
    return this.#queries.batches(query)
  }

  /**
   * All or nothing: every record is read before any is stored (whole records,
   * ids kept, the last line of an id wins), then stored in id order with one
   * change each, as the SQL stores do. Generated ids skip them as they skip PUT ids.
   */
  async importAll (source: AsyncIterable<readonly Address[]>): Promise<number> {
    const staged = new Map<bigint, Address>()
    let count = 0
    for await (const batch of source) {
      for (const a of batch) staged.set(a.id, { id: a.id, name: a.name, city: a.city, postalCode: a.postalCode })
      count += batch.length
    }
    for (const a of [...staged.values()].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0))) {
      this.#changes.addressChanged(this.#records.has(a.id) ? 'replaced' : 'created', a.id, a)
      this.#records.set(a.id, a)
    }
    return count
  }
}
