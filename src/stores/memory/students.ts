import type { DeleteResult, KeptWrite, KeyedWrite, ReplaceResult, Student, StudentIdRule, StudentInput, StudentStore, WriteCondition } from '../types.js'
import { conditionHolds } from '../conditions.js'
import { DELETED, NO_CONDITION, NOT_FOUND, PRECONDITION_FAILED, sameStudent } from '../records.js'
import { MemoryKeptWrites } from './kept-writes.js'
import { MemoryChangeLog } from './changes.js'

/**
 * Student records in a Map. Every operation is O(1) except list(). Under the
 * `count` rule the id is the Map's size at the moment of creation; under
 * `sequence` it is one past the highest id ever issued, which is tracked
 * under both rules.
 */
export class MemoryStudentStore implements StudentStore {
  readonly #records = new Map<number, Student>()
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
}

const byId = (a: Student, b: Student): number => a.id - b.id
