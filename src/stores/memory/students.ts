import type { DeleteResult, ReplaceResult, Student, StudentInput, StudentStore, WriteCondition } from '../types.js'
import { conditionHolds } from '../conditions.js'
import { STUDENT_FIELDS, type RecordFilter, type RecordQuery, type StudentField } from '../query.js'
import { DELETED, NO_CONDITION, NOT_FOUND, PRECONDITION_FAILED, sameStudent } from '../records.js'
import { IndexedTable } from './indexed-table.js'
import { MemoryQueries } from './query.js'

/**
 * Student records in a Map with a sorted index per field (IndexedTable).
 * Reads by id are O(1), writes O(log n); the id rule is the number of
 * records at the moment of creation.
 */
export class MemoryStudentStore implements StudentStore {
  readonly #records = new IndexedTable<number, Student>(STUDENT_FIELDS)
  readonly #queries = new MemoryQueries(this.#records, STUDENT_FIELDS)

  async list (): Promise<Student[]> {
    return [...this.#records.values()].sort(byId)
  }

  async get (id: number): Promise<Student | undefined> {
    return this.#records.get(id)
  }

  async create (input: StudentInput): Promise<Student> {
    const student: Student = { id: this.#records.size, firstName: input.firstName, lastName: input.lastName, age: input.age }
    this.#records.set(student.id, student)
    return student
  }

  async replace (student: Student, condition: WriteCondition<Student> = NO_CONDITION): Promise<ReplaceResult<Student>> {
    const current = this.#records.get(student.id)
    if (current === undefined) return NOT_FOUND
    if (!conditionHolds(condition, current, sameStudent)) return PRECONDITION_FAILED
    const replaced: Student = { id: student.id, firstName: student.firstName, lastName: student.lastName, age: student.age }
    this.#records.set(replaced.id, replaced)
    return { outcome: 'replaced', record: replaced }
  }

  async delete (id: number, condition: WriteCondition<Student> = NO_CONDITION): Promise<DeleteResult> {
    const current = this.#records.get(id)
    if (current === undefined) return NOT_FOUND
    if (!conditionHolds(condition, current, sameStudent)) return PRECONDITION_FAILED
    this.#records.delete(id)
    return DELETED
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

  /** All or nothing: every record is read before any is stored. Ids are kept, so the id rule's count is the records held. */
  async importAll (source: AsyncIterable<readonly Student[]>): Promise<number> {
    const staged: Student[] = []
    for await (const batch of source) for (const s of batch) staged.push({ id: s.id, firstName: s.firstName, lastName: s.lastName, age: s.age })
    for (const s of staged) this.#records.set(s.id, s)
    return staged.length
  }
}

const byId = (a: Student, b: Student): number => a.id - b.id
