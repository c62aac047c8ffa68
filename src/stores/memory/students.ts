import type { DeleteResult, ReplaceResult, Student, StudentInput, StudentStore, WriteCondition } from '../types.js'
import { conditionHolds } from '../conditions.js'
import { DELETED, NO_CONDITION, NOT_FOUND, PRECONDITION_FAILED, sameStudent } from '../records.js'

/**
 * Student records in a Map. Every operation is O(1) except list(); the id
 * rule is the Map's size at the moment of creation.
 */
export class MemoryStudentStore implements StudentStore {
  readonly #records = new Map<number, Student>()

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
}

const byId = (a: Student, b: Student): number => a.id - b.id
