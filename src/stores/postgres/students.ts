import type { Pool, QueryConfig } from 'pg'
import type { DeleteResult, ReplaceResult, Student, StudentInput, StudentStore, WriteCondition } from '../types.js'
import { conditionHolds } from '../conditions.js'
import { DELETED, NO_CONDITION, NOT_FOUND, PRECONDITION_FAILED, sameStudent } from '../records.js'
import { STUDENT_FIELDS, type RecordFilter, type RecordQuery, type StudentField } from '../query.js'
import type { SqlTable } from '../sql-query.js'
import { rethrow } from './errors.js'
import { lastOfEachId, PostgresQueries } from './query.js'
import { inTransaction } from './transaction.js'

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
  kinds: STUDENT_FIELDS,
  select: COLUMNS
}

// Named statements are parsed and planned once per connection.
const LIST = { name: 'rqs-students-list', text: `SELECT ${COLUMNS} FROM rqs_students ORDER BY id` }
const GET = { name: 'rqs-students-get', text: `SELECT ${COLUMNS} FROM rqs_students WHERE id = $1` }
const CREATE = { name: 'rqs-students-create', text: 'SELECT rqs_create_student($1, $2, $3) AS id' }
const UPDATE = { name: 'rqs-students-update', text: 'UPDATE rqs_students SET first_name = $2, last_name = $3, age = $4 WHERE id = $1' }
const DELETE = { name: 'rqs-students-delete', text: 'SELECT rqs_delete_student($1) AS deleted' }
const LOCK_COUNT = { name: 'rqs-students-lock-count', text: 'SELECT n FROM rqs_student_count WHERE singleton FOR UPDATE' }
const LOCK = { name: 'rqs-students-lock', text: `SELECT ${COLUMNS} FROM rqs_students WHERE id = $1 FOR UPDATE` }
const REMOVE = { name: 'rqs-students-remove', text: 'DELETE FROM rqs_students WHERE id = $1' }
const DECREMENT = { name: 'rqs-students-decrement', text: 'UPDATE rqs_student_count SET n = n - 1 WHERE singleton' }
const IMPORT_BATCH = `INSERT INTO rqs_students (id, first_name, last_name, age)
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::integer[])
  ON CONFLICT (id) DO UPDATE SET first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name, age = EXCLUDED.age`
const RECOUNT = 'UPDATE rqs_student_count SET n = (SELECT count(*) FROM rqs_students) WHERE singleton'

/**
 * Student records in PostgreSQL. Creates and deletes go through the
 * functions of migration 1, which serialise on the counter row; conditional
 * writes lock the record (SELECT … FOR UPDATE) and decide with the same
 * conditionHolds as the memory store.
 */
export class PostgresStudentStore implements StudentStore {
  readonly #pool: Pool
  readonly #queries: PostgresQueries<StudentField, StudentRow, Student>

  constructor (pool: Pool) {
    this.#pool = pool
    this.#queries = new PostgresQueries(pool, TABLE, toStudent)
  }

  async #query<R extends object> (query: { name: string, text: string }, values: unknown[] = []): Promise<{ rows: R[], rowCount: number | null }> {
    try {
      return await this.#pool.query<R>({ ...query, values } as QueryConfig)
    } catch (err) { return rethrow(err) }
  }

  async list (): Promise<Student[]> {
    return (await this.#query<StudentRow>(LIST)).rows.map(toStudent)
  }

  async get (id: number): Promise<Student | undefined> {
    const row = (await this.#query<StudentRow>(GET, [id])).rows[0]
    return row === undefined ? undefined : toStudent(row)
  }

  async create (input: StudentInput): Promise<Student> {
    const { rows } = await this.#query<{ id: bigint }>(CREATE, [input.firstName, input.lastName, input.age])
    return { id: Number(rows[0]?.id), firstName: input.firstName, lastName: input.lastName, age: input.age }
  }

  async replace (student: Student, condition: WriteCondition<Student> = NO_CONDITION): Promise<ReplaceResult<Student>> {
    const values = [student.id, student.firstName, student.lastName, student.age]
    const record = { id: student.id, firstName: student.firstName, lastName: student.lastName, age: student.age }
    if (condition.kind === 'none') {
      const { rowCount } = await this.#query(UPDATE, values)
      return rowCount === 1 ? { outcome: 'replaced', record } : NOT_FOUND
    }
    return await inTransaction(this.#pool, async (client) => {
      const row = (await client.query<StudentRow>({ ...LOCK, values: [student.id] })).rows[0]
      if (row === undefined) return NOT_FOUND
      if (!conditionHolds(condition, toStudent(row), sameStudent)) return PRECONDITION_FAILED
      await client.query({ ...UPDATE, values })
      return { outcome: 'replaced', record }
    })
  }

  async delete (id: number, condition: WriteCondition<Student> = NO_CONDITION): Promise<DeleteResult> {
    if (condition.kind === 'none') {
      const { rows } = await this.#query<{ deleted: boolean }>(DELETE, [id])
      return rows[0]?.deleted === true ? DELETED : NOT_FOUND
    }
    return await inTransaction(this.#pool, async (client) => {
      await client.query(LOCK_COUNT) // counter first, as rqs_create_student does: no deadlock
      const row = (await client.query<StudentRow>({ ...LOCK, values: [id] })).rows[0]
      if (row === undefined) return NOT_FOUND
      if (!conditionHolds(condition, toStudent(row), sameStudent)) return PRECONDITION_FAILED
      await client.query({ ...REMOVE, values: [id] })
      await client.query(DECREMENT)
      return DELETED
    })
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
   * Upserts by id in one transaction that holds the counter row's lock (so no
   * create or delete interleaves), then sets the count to the records held.
   */
  async importAll (source: AsyncIterable<readonly Student[]>): Promise<number> {
    return await inTransaction(this.#pool, async (client) => {
      await client.query(LOCK_COUNT)
      let count = 0
      for await (const batch of source) {
        const rows = lastOfEachId(batch)
        await client.query(IMPORT_BATCH, [rows.map((s) => s.id), rows.map((s) => s.firstName), rows.map((s) => s.lastName), rows.map((s) => s.age)])
        count += batch.length
      }
      await client.query(RECOUNT)
      return count
    })
  }
}


function toStudent (row: StudentRow): Student {
  return { id: Number(row.id), firstName: row.first_name, lastName: row.last_name, age: row.age }
}
