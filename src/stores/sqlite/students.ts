import type Database from 'better-sqlite3'
import type { Statement } from 'better-sqlite3'
import { type DeleteResult, type KeptWrite, type KeyedWrite, type ReplaceResult, type Student, type StudentIdRule, type StudentInput, type StudentStore, type WriteCondition, conditionHolds, DELETED, NO_CONDITION, NOT_FOUND, PRECONDITION_FAILED, sameStudent, STUDENT_FIELDS, type RecordFilter, type RecordQuery, type StudentField } from '../../domain/index.js'
import type { SqlTable } from '../sql-query.js'
import { fold } from '../../domain/index.js'
import { rethrow } from './errors.js'
import type { SqliteKeptWrites } from './kept-writes.js'
import { importStaged } from './import.js'
import { SqliteQueries } from './query.js'

const COLUMNS = 'id, first_name AS firstName, last_name AS lastName, age'

interface Counter {
  n: number
  nextId: number
}

const TABLE: SqlTable<StudentField> = {
  name: 'rqs_students',
  columns: { id: 'id', firstName: 'first_name', lastName: 'last_name', age: 'age' },
  folded: { firstName: 'first_name_folded', lastName: 'last_name_folded' },
  kinds: STUDENT_FIELDS,
  select: COLUMNS
}

/**
 * Student records in an SQLite file. Every write runs in a BEGIN IMMEDIATE
 * transaction, which holds the file's write lock across processes, so the id
 * rule stays exact even with several processes on one file. The record count
 * and the next never-issued id live in rqs_student_count, updated in the same
 * transaction, so a create is O(log n), not a count(*).
 */
export class SqliteStudentStore implements StudentStore {
  readonly #list: Statement<[], Student>
  readonly #get: Statement<[number], Student>
  readonly #kept: SqliteKeptWrites
  readonly #create: (input: StudentInput, keyed: KeyedWrite<Student> | undefined) => Student
  readonly #replace: (student: Student, condition: WriteCondition<Student>, keyed: KeyedWrite<ReplaceResult<Student>> | undefined) => ReplaceResult<Student>
  readonly #remove: (id: number, condition: WriteCondition<Student>, keyed: KeyedWrite<DeleteResult> | undefined) => DeleteResult

  readonly #db: Database.Database
  readonly #queries: SqliteQueries<StudentField, Student>

  constructor (db: Database.Database, kept: SqliteKeptWrites, ids: StudentIdRule = 'count') {
    this.#kept = kept
    this.#db = db
    this.#queries = new SqliteQueries(db, TABLE)
    this.#list = db.prepare(`SELECT ${COLUMNS} FROM rqs_students ORDER BY id`)
    this.#get = db.prepare(`SELECT ${COLUMNS} FROM rqs_students WHERE id = ?`)
    const counter = db.prepare<[], Counter>('SELECT n, next_id AS nextId FROM rqs_student_count WHERE singleton = 1')
    const addToCount = db.prepare<[number]>('UPDATE rqs_student_count SET n = n + ? WHERE singleton = 1')
    const issued = db.prepare<[number]>('UPDATE rqs_student_count SET next_id = MAX(next_id, ? + 1) WHERE singleton = 1')
    const insertRow = db.prepare<[number, string, string, number, string, string]>(`INSERT INTO rqs_students (id, first_name, last_name, age, first_name_folded, last_name_folded)
      VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`)
    const updateRow = db.prepare<[string, string, number, string, string, number]>('UPDATE rqs_students SET first_name = ?, last_name = ?, age = ?, first_name_folded = ?, last_name_folded = ? WHERE id = ?')
    // Every write stores the folded copies the search reads (src/domain/case-fold.ts).
    const insert = (id: number, s: StudentInput): Database.RunResult => insertRow.run(id, s.firstName, s.lastName, s.age, fold(s.firstName), fold(s.lastName))
    const update = (id: number, s: StudentInput): Database.RunResult => updateRow.run(s.firstName, s.lastName, s.age, fold(s.firstName), fold(s.lastName), id)
    const remove = db.prepare<[number]>('DELETE FROM rqs_students WHERE id = ?')

    const create = db.transaction((input: StudentInput, keyed: KeyedWrite<Student> | undefined): Student => kept.run(keyed, () => {
      const { n, nextId } = counter.get() as Counter
      const id = ids === 'sequence' ? nextId : n
      // Under `count` a record already under this id is replaced and the count stays (the spec's rule).
      if (insert(id, input).changes === 1) addToCount.run(1)
      else update(id, input)
      issued.run(id)
      return { id, firstName: input.firstName, lastName: input.lastName, age: input.age }
    }))
    this.#create = (input, keyed) => create.immediate(input, keyed)

    const replace = db.transaction((student: Student, condition: WriteCondition<Student>, keyed: KeyedWrite<ReplaceResult<Student>> | undefined) => kept.run(keyed, (): ReplaceResult<Student> => {
      const current = this.#get.get(student.id)
      if (current === undefined) return NOT_FOUND
      if (!conditionHolds(condition, current, sameStudent)) return PRECONDITION_FAILED
      update(student.id, student)
      return { outcome: 'replaced', record: { id: student.id, firstName: student.firstName, lastName: student.lastName, age: student.age } }
    }))
    this.#replace = (student, condition, keyed) => replace.immediate(student, condition, keyed)

    const del = db.transaction((id: number, condition: WriteCondition<Student>, keyed: KeyedWrite<DeleteResult> | undefined) => kept.run(keyed, (): DeleteResult => {
      const current = this.#get.get(id)
      if (current === undefined) return NOT_FOUND
      if (!conditionHolds(condition, current, sameStudent)) return PRECONDITION_FAILED
      remove.run(id)
      addToCount.run(-1)
      return DELETED
    }))
    this.#remove = (id, condition, keyed) => del.immediate(id, condition, keyed)
  }

  async list (): Promise<Student[]> {
    try { return this.#list.all() } catch (err) { return rethrow(err) }
  }

  async get (id: number): Promise<Student | undefined> {
    try { return this.#get.get(id) } catch (err) { return rethrow(err) }
  }

  async keptWrite (key: string): Promise<KeptWrite | undefined> {
    try { return this.#kept.find(key) } catch (err) { return rethrow(err) }
  }

  async create (input: StudentInput, keyed?: KeyedWrite<Student>): Promise<Student> {
    try { return this.#create(input, keyed) } catch (err) { return rethrow(err) }
  }

  async replace (student: Student, condition: WriteCondition<Student> = NO_CONDITION, keyed?: KeyedWrite<ReplaceResult<Student>>): Promise<ReplaceResult<Student>> {
    try { return this.#replace(student, condition, keyed) } catch (err) { return rethrow(err) }
  }

  async delete (id: number, condition: WriteCondition<Student> = NO_CONDITION, keyed?: KeyedWrite<DeleteResult>): Promise<DeleteResult> {
    try { return this.#remove(id, condition, keyed) } catch (err) { return rethrow(err) }
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

  /** Stages the file, then upserts it by id in one transaction and sets the count to the records held, so the id rule goes on from there (see importStaged). */
  async importAll (source: AsyncIterable<readonly Student[]>): Promise<number> {
    const recount = this.#db.prepare('UPDATE rqs_student_count SET n = (SELECT count(*) FROM rqs_students), next_id = MAX(next_id, COALESCE((SELECT MAX(id) + 1 FROM rqs_students), 0)) WHERE singleton = 1')
    return await importStaged<Student>(this.#db, {
      table: TABLE.name,
      columns: [['id', (s) => s.id], ['first_name', (s) => s.firstName], ['last_name', (s) => s.lastName], ['age', (s) => s.age],
        ['first_name_folded', (s) => fold(s.firstName)], ['last_name_folded', (s) => fold(s.lastName)]],
      finish: () => { recount.run() }
    }, source)
  }
}
