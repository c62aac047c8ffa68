import { type DeleteResult, type KeptWrite, type KeyedWrite, type ReplaceResult, type Student, type StudentIdRule, type StudentInput, type StudentStore, type WriteCondition, conditionHolds, STUDENT_FIELDS, type RecordFilter, type RecordQuery, type StudentField, DELETED, NO_CONDITION, NOT_FOUND, PRECONDITION_FAILED, sameStudent } from '../../domain/index.js'
import { MemoryKeptWrites } from './kept-writes.js'
import { IndexedTable } from './indexed-table.js'
import { MemoryQueries } from './query.js'
import { MemoryChangeLog } from './changes.js'
import type { Revision } from './revision.js'

/**
 * Student records in a Map with a sorted index per field (IndexedTable).
 * Reads by id are O(1), writes O(log n). Under the `count` rule the id is the
 * number of records at the moment of creation; under `sequence` it is one
 * past the highest id ever issued, which is tracked under both rules.
 */
export class MemoryStudentStore implements StudentStore {
  readonly #records = new IndexedTable<number, Student>(STUDENT_FIELDS)
  readonly #queries = new MemoryQueries(this.#records, STUDENT_FIELDS, 'students')
  /** Advanced by every write (a plain field, so wrappers that delegate to this store see it too). */
  readonly revision: Revision = this.#records.revision
  readonly #ids: StudentIdRule
  readonly #kept: MemoryKeptWrites
  readonly #changes: MemoryChangeLog
  /** One past the highest id ever issued. */
  #nextId = 0

  constructor (ids: StudentIdRule = 'count', kept = new MemoryKeptWrites(), changes = new MemoryChangeLog()) {
    this.#ids = ids
    this.#kept = kept
    this.#changes = changes
  }

  async list (): Promise<Student[]> {
    return [...this.#records.values()].sort(byId)
  }

  async get (id: number): Promise<Student | undefined> {
    return this.#records.get(id)
  }

  async keptWrite (key: string): Promise<KeptWrite | undefined> {
    return this.#kept.find(key)
  }

  async create (input: StudentInput, keyed?: KeyedWrite<Student>): Promise<Student> {
    return this.#kept.run(keyed, () => {
      const id = this.#ids === 'sequence' ? this.#nextId : this.#records.size
      const student: Student = { id, firstName: input.firstName, lastName: input.lastName, age: input.age }
      this.#changes.studentChanged(this.#records.has(id) ? 'replaced' : 'created', id, student)
      this.#records.set(id, student)
      this.#nextId = Math.max(this.#nextId, id + 1)
      return student
    })
  }

  async replace (student: Student, condition: WriteCondition<Student> = NO_CONDITION, keyed?: KeyedWrite<ReplaceResult<Student>>): Promise<ReplaceResult<Student>> {
    return this.#kept.run(keyed, () => {
      const current = this.#records.get(student.id)
      if (current === undefined) return NOT_FOUND
      if (!conditionHolds(condition, current, sameStudent)) return PRECONDITION_FAILED
      const replaced: Student = { id: student.id, firstName: student.firstName, lastName: student.lastName, age: student.age }
      this.#records.set(replaced.id, replaced)
      this.#changes.studentChanged('replaced', replaced.id, replaced)
      return { outcome: 'replaced', record: replaced }
    })
  }

  async delete (id: number, condition: WriteCondition<Student> = NO_CONDITION, keyed?: KeyedWrite<DeleteResult>): Promise<DeleteResult> {
    return this.#kept.run(keyed, () => {
      const current = this.#records.get(id)
      if (current === undefined) return NOT_FOUND
      if (!conditionHolds(condition, current, sameStudent)) return PRECONDITION_FAILED
      this.#records.delete(id)
      this.#changes.studentChanged('deleted', id, null)
      return DELETED
    })
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

  /**
   * All or nothing: every record is read before any is stored (the last line
   * of an id wins), then stored in id order with one change each, as the SQL
   * stores do. Ids are kept, so the id rule's count is the records held.
   */
  async importAll (source: AsyncIterable<readonly Student[]>): Promise<number> {
    const staged = new Map<number, Student>()
    let count = 0
    for await (const batch of source) {
      for (const s of batch) staged.set(s.id, { id: s.id, firstName: s.firstName, lastName: s.lastName, age: s.age })
      count += batch.length
    }
    for (const s of [...staged.values()].sort(byId)) {
      this.#changes.studentChanged(this.#records.has(s.id) ? 'replaced' : 'created', s.id, s)
      this.#records.set(s.id, s)
      this.#nextId = Math.max(this.#nextId, s.id + 1)
    }
    return count
  }
}

const byId = (a: Student, b: Student): number => a.id - b.id
