import type { Pool, PoolClient, QueryConfig } from 'pg'
import { type Address, type AddressInput, type AddressListQuery, type AddressStore, type DeleteResult, type KeptWrite, type KeyedWrite, type PutResult, type WriteCondition, conditionHolds, DELETED, NO_CONDITION, NOT_FOUND, PRECONDITION_FAILED, sameAddress, ADDRESS_FIELDS, type AddressField, type RecordFilter, type RecordQuery, MAX_ADDRESS_ID } from '../../domain/index.js'
import type { SqlTable } from '../sql-query.js'
import { fold } from '../../domain/index.js'
import { rethrow } from './errors.js'
import type { PostgresKeptWrites } from './kept-writes.js'
import type { PostgresWrites } from './transaction.js'
import { PostgresQueries } from './query.js'
import { importStaged, type ImportPlan } from './import.js'
import { BatchedGets } from './batched-gets.js'

interface AddressRow {
  id: bigint
  name: string
  city: string
  postal_code: string
}

const COLUMNS = 'id, name, city, postal_code'

const TABLE: SqlTable<AddressField> = {
  name: 'rqs_addresses',
  columns: { id: 'id', name: 'name', city: 'city', postalCode: 'postal_code' },
  folded: { name: 'name_folded', city: 'city_folded', postalCode: 'postal_code_folded' },
  kinds: ADDRESS_FIELDS,
  select: COLUMNS
}
// After an upsert, xmax is 0 only on a freshly inserted row (an updated one carries the locker's id).
const RETURNING = 'RETURNING a.id, a.name, a.city, a.postal_code, a.xmax = 0 AS inserted'
const RETURNING_UPDATED = 'RETURNING a.id, a.name, a.city, a.postal_code, false AS inserted'

// Writes store the folded copies the search reads (src/domain/case-fold.ts) with the record.
const CREATE = { name: 'rqs-addresses-create', text: 'SELECT rqs_create_address($1, $2, $3, $4, $5, $6) AS id' }
// Gets by id are batched (see BatchedGets): $1 holds every id asked for in one I/O round.
const GET_MANY = { name: 'rqs-addresses-get-many', text: `SELECT ${COLUMNS} FROM rqs_addresses WHERE id = ANY($1::bigint[])` }
const LIST = {
  name: 'rqs-addresses-list',
  text: `SELECT ${COLUMNS} FROM rqs_addresses
    WHERE id > $1 AND ($2::text IS NULL OR city = $2) AND ($3::text IS NULL OR postal_code = $3)
    ORDER BY id LIMIT $4`
}
// PUT, one atomic statement per kind of condition; no read-then-write race between instances.
const PUT = {
  name: 'rqs-addresses-put',
  text: `INSERT INTO rqs_addresses AS a (id, name, city, postal_code, name_folded, city_folded, postal_code_folded) VALUES ($1, $2, $3, $4, $5, $6, $7)
    ON CONFLICT (id) DO UPDATE SET city = EXCLUDED.city, postal_code = EXCLUDED.postal_code,
      city_folded = EXCLUDED.city_folded, postal_code_folded = EXCLUDED.postal_code_folded ${RETURNING}`
}
const PUT_IF_ABSENT = {
  name: 'rqs-addresses-put-if-absent',
  text: `INSERT INTO rqs_addresses AS a (id, name, city, postal_code, name_folded, city_folded, postal_code_folded) VALUES ($1, $2, $3, $4, $5, $6, $7)
    ON CONFLICT (id) DO NOTHING ${RETURNING}`
}
const PUT_IF_PRESENT = {
  name: 'rqs-addresses-put-if-present',
  text: `UPDATE rqs_addresses AS a SET city = $2, postal_code = $3, city_folded = $4, postal_code_folded = $5 WHERE id = $1 ${RETURNING_UPDATED}`
}
const PUT_IF_MATCHES = {
  name: 'rqs-addresses-put-if-matches',
  text: `UPDATE rqs_addresses AS a SET city = $2, postal_code = $3, city_folded = $4, postal_code_folded = $5
    WHERE id = $1 AND name = $6 AND city = $7 AND postal_code = $8 ${RETURNING_UPDATED}`
}
const DELETE = { name: 'rqs-addresses-delete', text: 'DELETE FROM rqs_addresses WHERE id = $1' }
const LOCK = { name: 'rqs-addresses-lock', text: `SELECT ${COLUMNS} FROM rqs_addresses WHERE id = $1 FOR UPDATE` }
/**
 * Moves the id sequence to the first id at or after its next value that no
 * record holds (the end of the run of taken ids it points into), so a create
 * after a large import does not try every imported id in turn.
 */
const SKIP_TAKEN_IDS = `SELECT setval('rqs_address_ids', s.first_free, false) FROM (
  SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM rqs_addresses WHERE id = c.next) THEN c.next
    ELSE coalesce((SELECT min(a.id) + 1 FROM rqs_addresses a
      WHERE a.id >= c.next AND a.id < ${MAX_ADDRESS_ID} AND NOT EXISTS (SELECT 1 FROM rqs_addresses b WHERE b.id = a.id + 1)), c.next) END AS first_free
  FROM (SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END AS next FROM rqs_address_ids) c) s`

const IMPORT: ImportPlan<Address> = {
  table: 'rqs_addresses',
  service: 'addresses',
  columns: [
    ['id', 'bigint', (a) => a.id], ['name', 'text', (a) => a.name], ['city', 'text', (a) => a.city], ['postal_code', 'text', (a) => a.postalCode],
    ['name_folded', 'text', (a) => fold(a.name)], ['city_folded', 'text', (a) => fold(a.city)], ['postal_code_folded', 'text', (a) => fold(a.postalCode)]
  ],
  changed: "jsonb_build_object('name', a.name, 'city', a.city, 'postalCode', a.postal_code)",
  finish: SKIP_TAKEN_IDS
}

type PutRow = AddressRow & { inserted: boolean }

/**
 * Address records in PostgreSQL; ids are bigint in SQL and in JS (the pool
 * parses int8 as BigInt). Generated ids come from a sequence (see migration 1).
 * A write without an Idempotency-Key that needs no lock is one autocommit
 * statement; any other runs in a transaction (see PostgresWrites).
 */
export class PostgresAddressStore implements AddressStore {
  readonly #pool: Pool
  readonly #writes: PostgresWrites
  readonly #kept: PostgresKeptWrites
  readonly #queries: PostgresQueries<AddressField, AddressRow, Address>
  readonly #gets: BatchedGets<bigint, AddressRow, Address>

  constructor (pool: Pool, writes: PostgresWrites, kept: PostgresKeptWrites) {
    this.#pool = pool
    this.#writes = writes
    this.#kept = kept
    this.#queries = new PostgresQueries(pool, TABLE, toAddress)
    this.#gets = new BatchedGets(pool, { statement: GET_MANY, idOf: (row) => row.id, toRecord: toAddress })
  }

  async #read<R extends object> (query: { name: string, text: string }, values: unknown[]): Promise<R[]> {
    try {
      return (await this.#pool.query<R>({ ...query, values } as QueryConfig)).rows
    } catch (err) { return rethrow(err) }
  }

  async keptWrite (key: string): Promise<KeptWrite | undefined> {
    return await this.#kept.find(key)
  }

  async create (input: AddressInput, keyed?: KeyedWrite<Address>): Promise<Address> {
    const query = { ...CREATE, values: [input.name, input.city, input.postalCode, fold(input.name), fold(input.city), fold(input.postalCode)] }
    const created = (id: bigint | undefined): Address => ({ id: id as bigint, name: input.name, city: input.city, postalCode: input.postalCode })
    if (keyed === undefined) return created((await this.#writes.statement<{ id: bigint }>(query)).rows[0]?.id)
    return await this.#writes.transaction(async (client) => created((await client.query<{ id: bigint }>(query)).rows[0]?.id), keyed)
  }

  async get (id: bigint): Promise<Address | undefined> {
    return await this.#gets.get(id)
  }

  async list (query: AddressListQuery): Promise<Address[]> {
    const values = [query.after ?? -1n, query.city ?? null, query.postalCode ?? null, query.limit]
    return (await this.#read<AddressRow>(LIST, values)).map(toAddress)
  }

  async put (id: bigint, input: AddressInput, condition: WriteCondition<Address> = NO_CONDITION, keyed?: KeyedWrite<PutResult>): Promise<PutResult> {
    let statement = PUT
    const cityFolded = fold(input.city)
    const postalCodeFolded = fold(input.postalCode)
    let values: unknown[] = [id, input.name, input.city, input.postalCode, fold(input.name), cityFolded, postalCodeFolded]
    switch (condition.kind) {
      case 'none': break
      case 'absent': statement = PUT_IF_ABSENT; break
      case 'present': statement = PUT_IF_PRESENT; values = [id, input.city, input.postalCode, cityFolded, postalCodeFolded]; break
      case 'matches': {
        const seen = condition.current
        // A record the client saw under another id never matches this one.
        if (seen.id !== id) return PRECONDITION_FAILED
        statement = PUT_IF_MATCHES
        values = [id, input.city, input.postalCode, cityFolded, postalCodeFolded, seen.name, seen.city, seen.postalCode]
        break
      }
    }
    const query = { ...statement, values }
    const result = (row: PutRow | undefined): PutResult =>
      row === undefined ? PRECONDITION_FAILED : { outcome: row.inserted ? 'created' : 'updated', record: toAddress(row) }
    if (keyed === undefined) return result((await this.#writes.statement<PutRow>(query)).rows[0])
    return await this.#writes.transaction(async (client) => result((await client.query<PutRow>(query)).rows[0]), keyed)
  }

  async delete (id: bigint, condition: WriteCondition<Address> = NO_CONDITION, keyed?: KeyedWrite<DeleteResult>): Promise<DeleteResult> {
    if (condition.kind === 'none' && keyed === undefined) {
      const { rowCount } = await this.#writes.statement({ ...DELETE, values: [id] })
      return rowCount === 1 ? DELETED : NOT_FOUND
    }
    return await this.#writes.transaction(async (client) => await deleteIn(client, id, condition), keyed)
  }

  async query (query: RecordQuery<AddressField>): Promise<Address[]> {
    return await this.#queries.query(query)
  }

  async count (filter: RecordFilter<AddressField>): Promise<number> {
    return await this.#queries.count(filter)
  }

  batches (query: RecordQuery<AddressField>): AsyncIterable<Address[]> {
    return this.#queries.batches(query)
  }

  /** Stages the file, then upserts whole records by id in one short transaction; generated ids then continue after the imported ones (see importStaged). */
  async importAll (source: AsyncIterable<readonly Address[]>): Promise<number> {
    return await importStaged(this.#pool, IMPORT, source)
  }
}

async function deleteIn (client: PoolClient, id: bigint, condition: WriteCondition<Address>): Promise<DeleteResult> {
  if (condition.kind === 'none') {
    const { rowCount } = await client.query({ ...DELETE, values: [id] })
    return rowCount === 1 ? DELETED : NOT_FOUND
  }
  const row = (await client.query<AddressRow>({ ...LOCK, values: [id] })).rows[0]
  if (row === undefined) return NOT_FOUND
  if (!conditionHolds(condition, toAddress(row), sameAddress)) return PRECONDITION_FAILED
  await client.query({ ...DELETE, values: [id] })
  return DELETED
}

function toAddress (row: AddressRow): Address {
  return { id: row.id, name: row.name, city: row.city, postalCode: row.postal_code }
}
