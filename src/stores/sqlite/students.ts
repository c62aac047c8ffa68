import type { Database, Statement } from 'better-sqlite3'
import type { DeleteResult, ReplaceResult, Student, StudentInput, StudentStore, WriteCondition } from '../types.js'
import { conditionHolds } from '../conditions.js'
import { DELETED, NO_CONDITION, NOT_FOUND, PRECONDITION_FAILED, sameStudent } from '../records.js'
import { STUDENT_FIELDS, type RecordFilter, type RecordQuery, type StudentField } from '../query.js'
import type { SqlTable } from '../sql-query.js'
import { rethrow } from './errors.js'
import { importInTransaction } from './import.js'
import { SqliteQueries } from './query.js'

const COLUMNS = 'id, first_name AS firstName, last_name AS lastName, age'

const TABLE: SqlTable<StudentField> = {
  name: 'rqs_students',
  columns: { id: 'id', firstName: 'first_name', lastName: 'last_name', age: 'age' },
  kinds: STUDENT_FIELDS,
  select: COLUMNS
}

/**
 * Student records in an SQLite file. Every write runs in a BEGIN IMMEDIATE
 * transaction, which holds the file's write lock across processes, so the id
 * rule (id = records held now) stays exact even with several processes on
 * one file. The record count lives in rqs_student_count, updated in the same
 * transaction, so a create is O(log n), not a count(*).
 */
export class SqliteStudentStore implements StudentStore {
  readonly #list: Statement<[], Student>
  readonly #get: Statement<[number], Student>
  readonly #count: Statement<[], number>
  readonly #addToCount: Statement<[number]>
  readonly #insert: Statement<[number, string, string, number]>
  readonly #update: Statement<[string, string, number, number]>
  readonly #delete: Statement<[number]>
  readonly #create: (input: StudentInput) => Student
  readonly #replace: (student: Student, condition: WriteCondition<Student>) => ReplaceResult<Student>
  readonly #remove: (id: number, condition: WriteCondition<Student>) => DeleteResult
  readonly #db: Database
  readonly #queries: SqliteQueries<StudentField, Student>

  constructor (db: Database) {
    this.#db = db
    this.#queries = new SqliteQueries(db, TABLE)
    this.#list = db.prepare(`SELECT ${COLUMNS} FROM rqs_students ORDER BY id`)
    this.#get = db.prepare(`SELECT ${COLUMNS} FROM rqs_students WHERE id = ?`)
    this.#count = db.prepare<[], number>('SELECT n FROM rqs_student_count WHERE singleton = 1').pluck()
    this.#addToCount = db.prepare('UPDATE rqs_student_count SET n = n + ? WHERE singleton = 1')
    this.#insert = db.prepare('INSERT INTO rqs_students (id, first_name, last_name, age) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING')
    this.#update = db.prepare('UPDATE rqs_students SET first_name = ?, last_name = ?, age = ? WHERE id = ?')
    this.#delete = db.prepare('DELETE FROM rqs_students WHERE id = ?')

    const create = db.transaction((input: StudentInput): Student => {
      const id = this.#count.get() as number
      // A record already under this id is replaced and the count stays (the spec's rule).
      if (this.#insert.run(id, input.firstName, input.lastName, input.age).changes === 1) this.#addToCount.run(1)
      else this.#update.run(input.firstName, input.lastName, input.age, id)
      return { id, firstName: input.firstName, lastName: input.lastName, age: input.age }
    })
    this.#create = (input) => create.immediate(input)

    const replace = db.transaction((student: Student, condition: WriteCondition<Student>): ReplaceResult<Student> => {
      const current = this.#get.get(student.id)
      if (current === undefined) return NOT_FOUND
      if (!conditionHolds(condition, current, sameStudent)) return PRECONDITION_FAILED
      this.#update.run(student.firstName, student.lastName, student.age, student.id)
      return { outcome: 'replaced', record: { id: student.id, firstName: student.firstName, lastName: student.lastName, age: student.age } }
    })
    this.#replace = (student, condition) => replace.immediate(student, condition)

    const remove = db.transaction((id: number, condition: WriteCondition<Student>): DeleteResult => {
      const current = this.#get.get(id)
      if (current === undefined) return NOT_FOUND
      if (!conditionHolds(condition, current, sameStudent)) return PRECONDITION_FAILED
      this.#delete.run(id)
      this.#addToCount.run(-1)
      return DELETED
    })
    this.#remove = (id, condition) => remove.immediate(id, condition)
  }

  async list (): Promise<Student[]> {
    try { return this.#list.all() } catch (err) { return rethrow(err) }
  }

  async get (id: number): Promise<Student | undefined> {
    try { return this.#get.get(id) } catch (err) { return rethrow(err) }
  }

  async create (input: StudentInput): Promise<Student> {
    try { return this.#create(input) } catch (err) { return rethrow(err) }
  }

  async replace (student: Student, condition: WriteCondition<Student> = NO_CONDITION): Promise<ReplaceResult<Student>> {
    try { return this.#replace(student, condition) } catch (err) { return rethrow(err) }
  }

  async delete (id: number, condition: WriteCondition<Student> = NO_CONDITION): Promise<DeleteResult> {
    try { return this.#remove(id, condition) } catch (err) { return rethrow(err) }
  }

  async query (query: RecordQuery<StudentField>): Promise<Student[]> {
    return this.#queries.query(query)
  }

  async count (filter: RecordFilter<StudentField>): Promise<number> {
    return this.#queries.count(filter)
  }

  batches (query: RecordQuery<StudentField>): AsyncIterable<Student[]> {
    return this.#queries.batches(query)
  }

  /** Upserts by id in one transaction, then sets the count to the records held, so the id rule goes on from there. */
  async importAll (source: AsyncIterable<readonly Student[]>): Promise<number> {
    const upsert = this.#db.prepare<[number, string, string, number]>(`INSERT INTO rqs_students (id, first_name, last_name, age) VALUES (?, ?, ?, ?)
      ON CONFLICT (id) DO UPDATE SET first_name = excluded.first_name, last_name = excluded.last_name, age = excluded.age`)
    const recount = this.#db.prepare('UPDATE rqs_student_count SET n = (SELECT count(*) FROM rqs_students) WHERE singleton = 1')
    return await importInTransaction(this.#db, TABLE.name, source, (batch) => {
      for (const s of batch) upsert.run(s.id, s.firstName, s.lastName, s.age)
    }, () => { recount.run() })
  }
}
