import type { Database, RunResult, Statement } from 'better-sqlite3'
import { type Address, type AddressInput, type AddressListQuery, type AddressStore, type DeleteResult, type KeptWrite, type KeyedWrite, type PutResult, type WriteCondition, conditionHolds, DELETED, MAX_ADDRESS_ID, NO_CONDITION, NOT_FOUND, PRECONDITION_FAILED, sameAddress, ADDRESS_FIELDS, type AddressField, type RecordFilter, type RecordQuery } from '../../domain/index.js'
import type { SqlTable } from '../sql-query.js'
import { fold } from '../../domain/index.js'
import { rethrow } from './errors.js'
import type { SqliteKeptWrites } from './kept-writes.js'
import { importStaged } from './import.js'
import { SqliteQueries } from './query.js'

const COLUMNS = 'id, name, city, postal_code AS postalCode'

const TABLE: SqlTable<AddressField> = {
  name: 'rqs_addresses',
  columns: { id: 'id', name: 'name', city: 'city', postalCode: 'postal_code' },
  folded: { name: 'name_folded', city: 'city_folded', postalCode: 'postal_code_folded' },
  kinds: ADDRESS_FIELDS,
  select: COLUMNS
}

/**
 * Moves the generated-id counter to the first id at or after it that no
 * record holds: the end of the run of taken ids it points into, found from
 * the primary key in one statement instead of one failed insert per id.
 */
const SKIP_TAKEN_IDS = `UPDATE rqs_address_ids SET next = (
  SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM rqs_addresses WHERE id = c.next) THEN c.next
    ELSE coalesce((SELECT min(a.id) + 1 FROM rqs_addresses a
      WHERE a.id >= c.next AND a.id < ${MAX_ADDRESS_ID} AND NOT EXISTS (SELECT 1 FROM rqs_addresses b WHERE b.id = a.id + 1)), c.next) END
  FROM rqs_address_ids c WHERE c.singleton = 1) WHERE singleton = 1`

/**
 * Address records in an SQLite file, ids as 64-bit INTEGER read back as
 * bigint (safeIntegers). Generated ids count up from 1 in rqs_address_ids and
 * skip any id a PUT already holds, inside one write transaction.
 */
export class SqliteAddressStore implements AddressStore {
  readonly #get: Statement<[bigint], Address>
  readonly #list: Statement<[ListParams], Address>
  readonly #kept: SqliteKeptWrites
  readonly #create: (input: AddressInput, keyed: KeyedWrite<Address> | undefined) => Address
  readonly #put: (id: bigint, input: AddressInput, condition: WriteCondition<Address>, keyed: KeyedWrite<PutResult> | undefined) => PutResult
  readonly #remove: (id: bigint, condition: WriteCondition<Address>, keyed: KeyedWrite<DeleteResult> | undefined) => DeleteResult

  readonly #db: Database
  readonly #queries: SqliteQueries<AddressField, Address>

  constructor (db: Database, kept: SqliteKeptWrites) {
    this.#kept = kept
    this.#db = db
    this.#queries = new SqliteQueries(db, TABLE, true)
    this.#get = db.prepare<[bigint], Address>(`SELECT ${COLUMNS} FROM rqs_addresses WHERE id = ?`).safeIntegers(true)
    this.#list = db.prepare<[ListParams], Address>(`SELECT ${COLUMNS} FROM rqs_addresses
      WHERE id > @after AND (@city IS NULL OR city = @city) AND (@postalCode IS NULL OR postal_code = @postalCode)
      ORDER BY id LIMIT @limit`).safeIntegers(true)
    const nextId = db.prepare<[], bigint>('SELECT next FROM rqs_address_ids WHERE singleton = 1').pluck().safeIntegers(true)
    const setNextId = db.prepare<[bigint]>('UPDATE rqs_address_ids SET next = ? WHERE singleton = 1')
    const insertRow = db.prepare<[bigint, string, string, string, string, string, string]>(`INSERT INTO rqs_addresses (id, name, city, postal_code, name_folded, city_folded, postal_code_folded)
      VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`)
    const updateRow = db.prepare<[string, string, string, string, bigint]>('UPDATE rqs_addresses SET city = ?, postal_code = ?, city_folded = ?, postal_code_folded = ? WHERE id = ?')
    // Every write stores the folded copies the search reads (src/domain/case-fold.ts).
    const insert = (id: bigint, a: AddressInput): RunResult => insertRow.run(id, a.name, a.city, a.postalCode, fold(a.name), fold(a.city), fold(a.postalCode))
    const update = (id: bigint, a: AddressInput): RunResult => updateRow.run(a.city, a.postalCode, fold(a.city), fold(a.postalCode), id)
    const remove = db.prepare<[bigint]>('DELETE FROM rqs_addresses WHERE id = ?')

    const create = db.transaction((input: AddressInput, keyed: KeyedWrite<Address> | undefined) => kept.run(keyed, (): Address => {
      for (let id = nextId.get() as bigint; ; id++) {
        if (id > MAX_ADDRESS_ID) throw new RangeError('address ids are exhausted')
        if (insert(id, input).changes === 1) {
          setNextId.run(id + 1n)
          return { id, name: input.name, city: input.city, postalCode: input.postalCode }
        }
      }
    }))
    this.#create = (input, keyed) => create.immediate(input, keyed)

    const put = db.transaction((id: bigint, input: AddressInput, condition: WriteCondition<Address>, keyed: KeyedWrite<PutResult> | undefined) => kept.run(keyed, (): PutResult => {
      const current = this.#get.get(id)
      if (!conditionHolds(condition, current, sameAddress)) return PRECONDITION_FAILED
      if (current === undefined) {
        insert(id, input)
        return { outcome: 'created', record: { id, name: input.name, city: input.city, postalCode: input.postalCode } }
      }
      // The spec: city and postalCode come from the submitted entity; the stored name is kept.
      update(id, input)
      return { outcome: 'updated', record: { id, name: current.name, city: input.city, postalCode: input.postalCode } }
    }))
    this.#put = (id, input, condition, keyed) => put.immediate(id, input, condition, keyed)

    const del = db.transaction((id: bigint, condition: WriteCondition<Address>, keyed: KeyedWrite<DeleteResult> | undefined) => kept.run(keyed, (): DeleteResult => {
      const current = this.#get.get(id)
      if (current === undefined) return NOT_FOUND
      if (!conditionHolds(condition, current, sameAddress)) return PRECONDITION_FAILED
      remove.run(id)
      return DELETED
    }))
    this.#remove = (id, condition, keyed) => del.immediate(id, condition, keyed)
  }

  async keptWrite (key: string): Promise<KeptWrite | undefined> {
    try { return this.#kept.find(key) } catch (err) { return rethrow(err) }
  }

  async create (input: AddressInput, keyed?: KeyedWrite<Address>): Promise<Address> {
    try { return this.#create(input, keyed) } catch (err) { return rethrow(err) }
  }

  async get (id: bigint): Promise<Address | undefined> {
    try { return this.#get.get(id) } catch (err) { return rethrow(err) }
  }

  async list (query: AddressListQuery): Promise<Address[]> {
    const params: ListParams = { after: query.after ?? -1n, city: query.city ?? null, postalCode: query.postalCode ?? null, limit: query.limit }
    try { return this.#list.all(params) } catch (err) { return rethrow(err) }
  }

  async put (id: bigint, input: AddressInput, condition: WriteCondition<Address> = NO_CONDITION, keyed?: KeyedWrite<PutResult>): Promise<PutResult> {
    try { return this.#put(id, input, condition, keyed) } catch (err) { return rethrow(err) }
  }

  async delete (id: bigint, condition: WriteCondition<Address> = NO_CONDITION, keyed?: KeyedWrite<DeleteResult>): Promise<DeleteResult> {
    try { return this.#remove(id, condition, keyed) } catch (err) { return rethrow(err) }
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

  /** Stages the file, then upserts whole records by id in one transaction; generated ids then continue after the imported ones (see importStaged). */
  async importAll (source: AsyncIterable<readonly Address[]>): Promise<number> {
    const skipTaken = this.#db.prepare(SKIP_TAKEN_IDS)
    return await importStaged<Address>(this.#db, {
      table: TABLE.name,
      columns: [['id', (a) => a.id], ['name', (a) => a.name], ['city', (a) => a.city], ['postal_code', (a) => a.postalCode],
        ['name_folded', (a) => fold(a.name)], ['city_folded', (a) => fold(a.city)], ['postal_code_folded', (a) => fold(a.postalCode)]],
      finish: () => { skipTaken.run() }
    }, source)
  }
}


interface ListParams {
  after: bigint
  city: string | null
  postalCode: string | null
  limit: number
}
