import type { Pool, PoolClient, QueryConfig } from 'pg'
import { type DeleteResult, type KeptWrite, type KeyedWrite, type ReplaceResult, type Student, type StudentIdRule, type StudentInput, type StudentStore, type WriteCondition, conditionHolds, DELETED, NO_CONDITION, NOT_FOUND, PRECONDITION_FAILED, sameStudent, STUDENT_FIELDS, type RecordFilter, type RecordQuery, type StudentField } from '../../domain/index.js'
import type { SqlTable } from '../sql-query.js'
import { fold } from '../../domain/index.js'
import { rethrow } from './errors.js'
import type { PostgresKeptWrites } from './kept-writes.js'
import type { PostgresWrites } from './transaction.js'
import { PostgresQueries } from './query.js'
import { importStaged, type ImportPlan } from './import.js'
import { BatchedGets } from './batched-gets.js'

interface StudentRow {
  id: bigint
  first_name: string
  last_name: string
  age: number
}

const COLUMNS = 'id, first_name, last_name, age'

const TABLE: SqlTable<StudentField> = {
  name: 'rqs_students',
  columns: { id: 'id', firstName: 'first_name', lastName: 'last_name', age: 'age' },
  folded: { firstName: 'first_name_folded', lastName: 'last_name_folded' },
  kinds: STUDENT_FIELDS,
  select: COLUMNS
}

// Named statements are parsed and planned once per connection.
const LIST = { name: 'rqs-students-list', text: `SELECT ${COLUMNS} FROM rqs_students ORDER BY id` }
// Gets by id are batched (see BatchedGets): $1 holds every id asked for in one I/O round.
const GET_MANY = { name: 'rqs-students-get-many', text: `SELECT ${COLUMNS} FROM rqs_students WHERE id = ANY($1::bigint[])` }
// Writes store the folded copies the search reads (src/domain/case-fold.ts) with the record.
const CREATE = { name: 'rqs-students-create', text: 'SELECT rqs_create_student($1, $2, $3, $4, $5) AS id' }
const CREATE_IN_SEQUENCE = { name: 'rqs-students-create-in-sequence', text: 'SELECT rqs_create_student_in_sequence($1, $2, $3, $4, $5) AS id' }
const UPDATE = { name: 'rqs-students-update', text: 'UPDATE rqs_students SET first_name = $2, last_name = $3, age = $4, first_name_folded = $5, last_name_folded = $6 WHERE id = $1' }
const DELETE = { name: 'rqs-students-delete', text: 'SELECT rqs_delete_student($1) AS deleted' }
const LOCK_COUNT = { name: 'rqs-students-lock-count', text: 'SELECT n FROM rqs_student_count WHERE singleton FOR UPDATE' }
const LOCK = { name: 'rqs-students-lock', text: `SELECT ${COLUMNS} FROM rqs_students WHERE id = $1 FOR UPDATE` }
const REMOVE = { name: 'rqs-students-remove', text: 'DELETE FROM rqs_students WHERE id = $1' }
const DECREMENT = { name: 'rqs-students-decrement', text: 'UPDATE rqs_student_count SET n = n - 1 WHERE singleton' }
const IMPORT: ImportPlan<Student> = {
  table: 'rqs_students',
  service: 'students',
  columns: [
    ['id', 'bigint', (s) => s.id], ['first_name', 'text', (s) => s.firstName], ['last_name', 'text', (s) => s.lastName], ['age', 'integer', (s) => s.age],
    ['first_name_folded', 'text', (s) => fold(s.firstName)], ['last_name_folded', 'text', (s) => fold(s.lastName)]
  ],
  changed: "jsonb_build_object('firstName', a.first_name, 'lastName', a.last_name, 'age', a.age)",
  // Creates and deletes lock the counter before a record: taken first, so neither waits in a cycle with the import.
  lock: LOCK_COUNT.text,
  finish: 'UPDATE rqs_student_count SET n = (SELECT count(*) FROM rqs_students), next_id = GREATEST(next_id, COALESCE((SELECT max(id) + 1 FROM rqs_students), 0)) WHERE singleton'
}

/**
 * Student records in PostgreSQL. Creates and deletes go through the
 * functions of the migrations, which serialise on the counter row;
 * conditional writes lock the record (SELECT … FOR UPDATE) and decide with
 * the same conditionHolds as the memory store. An unconditional write without
 * an Idempotency-Key is one autocommit statement; any other runs in a
 * transaction (see PostgresWrites).
 */
export class PostgresStudentStore implements StudentStore {
  readonly #pool: Pool
  readonly #writes: PostgresWrites
  readonly #kept: PostgresKeptWrites
  readonly #create: { name: string, text: string }
  readonly #queries: PostgresQueries<StudentField, StudentRow, Student>
  readonly #gets: BatchedGets<number, StudentRow, Student>

  constructor (pool: Pool, writes: PostgresWrites, kept: PostgresKeptWrites, ids: StudentIdRule = 'count') {
    this.#pool = pool
    this.#writes = writes
    this.#kept = kept
    this.#create = ids === 'sequence' ? CREATE_IN_SEQUENCE : CREATE
    this.#queries = new PostgresQueries(pool, TABLE, toStudent)
    this.#gets = new BatchedGets(pool, { statement: GET_MANY, idOf: (row) => Number(row.id), toRecord: toStudent })
  }

  async #read<R extends object> (query: { name: string, text: string }, values: unknown[] = []): Promise<R[]> {
    try {
      return (await this.#pool.query<R>({ ...query, values } as QueryConfig)).rows
    } catch (err) { return rethrow(err) }
  }

  async list (): Promise<Student[]> {
    return (await this.#read<StudentRow>(LIST)).map(toStudent)
  }

  async get (id: number): Promise<Student | undefined> {
    return await this.#gets.get(id)
  }

  async keptWrite (key: string): Promise<KeptWrite | undefined> {
    return await this.#kept.find(key)
  }

  async create (input: StudentInput, keyed?: KeyedWrite<Student>): Promise<Student> {
    const query = { ...this.#create, values: [input.firstName, input.lastName, input.age, fold(input.firstName), fold(input.lastName)] }
    const created = (id: bigint | undefined): Student => ({ id: Number(id), firstName: input.firstName, lastName: input.lastName, age: input.age })
    if (keyed === undefined) return created((await this.#writes.statement<{ id: bigint }>(query)).rows[0]?.id)
    return await this.#writes.transaction(async (client) => created((await client.query<{ id: bigint }>(query)).rows[0]?.id), keyed)
  }

  async replace (student: Student, condition: WriteCondition<Student> = NO_CONDITION, keyed?: KeyedWrite<ReplaceResult<Student>>): Promise<ReplaceResult<Student>> {
    const values = [student.id, student.firstName, student.lastName, student.age, fold(student.firstName), fold(student.lastName)]
    const record = { id: student.id, firstName: student.firstName, lastName: student.lastName, age: student.age }
    if (condition.kind === 'none' && keyed === undefined) {
      const { rowCount } = await this.#writes.statement({ ...UPDATE, values })
      return rowCount === 1 ? { outcome: 'replaced', record } : NOT_FOUND
    }
    return await this.#writes.transaction(async (client): Promise<ReplaceResult<Student>> => {
      if (condition.kind === 'none') {
        const { rowCount } = await client.query({ ...UPDATE, values })
        return rowCount === 1 ? { outcome: 'replaced', record } : NOT_FOUND
      }
      const row = (await client.query<StudentRow>({ ...LOCK, values: [student.id] })).rows[0]
      if (row === undefined) return NOT_FOUND
      if (!conditionHolds(condition, toStudent(row), sameStudent)) return PRECONDITION_FAILED
      await client.query({ ...UPDATE, values })
      return { outcome: 'replaced', record }
    }, keyed)
  }

  async delete (id: number, condition: WriteCondition<Student> = NO_CONDITION, keyed?: KeyedWrite<DeleteResult>): Promise<DeleteResult> {
    if (condition.kind === 'none' && keyed === undefined) {
      const { rows } = await this.#writes.statement<{ deleted: boolean }>({ ...DELETE, values: [id] })
      return rows[0]?.deleted === true ? DELETED : NOT_FOUND
    }
    return await this.#writes.transaction(async (client) => await deleteIn(client, id, condition), keyed)
  }

  async query (query: RecordQuery<StudentField>): Promise<Student[]> {
    return await this.#queries.query(query)
  }

  async count (filter: RecordFilter<StudentField>): Promise<number> {
    return await this.#queries.count(filter)
  }

  batches (query: RecordQuery<StudentField>): AsyncIterable<Student[]> {
    return this.#queries.batches(query)
  }

  /**
   * Stages the file, then upserts it by id in one short transaction holding
   * the counter row's lock (creates and deletes wait for that transaction
   * only) and sets the count to the records held (see importStaged).
   */
  async importAll (source: AsyncIterable<readonly Student[]>): Promise<number> {
    return await importStaged(this.#pool, IMPORT, source)
  }
}

async function deleteIn (client: PoolClient, id: number, condition: WriteCondition<Student>): Promise<DeleteResult> {
  if (condition.kind === 'none') {
    const { rows } = await client.query<{ deleted: boolean }>({ ...DELETE, values: [id] })
    return rows[0]?.deleted === true ? DELETED : NOT_FOUND
  }
  await client.query(LOCK_COUNT) // counter first, as rqs_create_student does: no deadlock
  const row = (await client.query<StudentRow>({ ...LOCK, values: [id] })).rows[0]
  if (row === undefined) return NOT_FOUND
  if (!conditionHolds(condition, toStudent(row), sameStudent)) return PRECONDITION_FAILED
  await client.query({ ...REMOVE, values: [id] })
  await client.query(DECREMENT)
  return DELETED
}

function toStudent (row: StudentRow): Student {
  return { id: Number(row.id), firstName: row.first_name, lastName: row.last_name, age: row.age }
}
