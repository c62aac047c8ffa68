import { fieldKindsOf, type CollectionDeclaration, type CreateResult, type DeleteResult, type FieldKinds, type KeptWrites, type KeyedWrite, type QueryableStore, type RecordStore, type ReplaceResult, type WriteCondition, type WriteResult } from '../../domain/index.js'
import { keyedAs, RecordView } from '../records/view.js'

/**
 * The student records as the record engine keeps them: their declaration
 * (the spec's id rules: the count rule, or a sequence; PUT replaces only),
 * their type, and the typed view the v1 routes, import/export and seeding use.
 */

// Type aliases, not interfaces: a typed record is then a StoredRecord too (an alias has an implicit index signature).
export type StudentInput = {
  firstName: string
  lastName: string
  age: number
}

export type Student = StudentInput & {
  id: number
}

export type StudentField = 'id' | 'firstName' | 'lastName' | 'age'

/**
 * How a created student's id is chosen. `count` is the spec's rule: id =
 * number of records held now, so after a delete a create can take, and
 * overwrite, an id in use. `sequence` never reuses an id: one past the highest
 * id ever issued (kept by the store, so it survives restarts).
 */
export type StudentIdRule = 'count' | 'sequence'

export const STUDENT_ID_RULES: readonly StudentIdRule[] = ['count', 'sequence']

/** The students as the stores keep them, under an id rule (default the spec's `count`). */
export function studentsDeclaration (ids: StudentIdRule = 'count'): CollectionDeclaration {
  return {
    name: 'students',
    table: 'rqs_students',
    fields: { firstName: { type: 'string', required: true }, lastName: { type: 'string', required: true }, age: { type: 'integer', required: true } },
    ids,
    firstId: 0,
    putCreates: false,
    keptOnUpdate: []
  }
}

/** The query kind of each student field, the id included. */
export const STUDENT_FIELDS: FieldKinds<StudentField> = fieldKindsOf(studentsDeclaration())

export function sameStudent (a: Student, b: Student): boolean {
  return a.id === b.id && a.firstName === b.firstName && a.lastName === b.lastName && a.age === b.age
}

/** What a student create did: `replaced` when the count rule gave it the id of a record held (which is gone). */
export interface StudentCreated {
  outcome: 'created' | 'replaced'
  record: Student
}

export interface StudentStore extends KeptWrites, QueryableStore<Student, StudentField> {
  /** Every record, in ascending id order. */
  list (): Promise<Student[]>
  get (id: number): Promise<Student | undefined>
  /**
   * Atomically, by the declaration's StudentIdRule: `count` (the spec) gives
   * id = number of records held now and replaces any record already there;
   * `sequence` gives one past the highest id ever issued.
   */
  create (input: StudentInput, keyed?: KeyedWrite<Student>): Promise<Student>
  /** create, also telling whether the id rule made it replace a record (`count` only). */
  createReporting (input: StudentInput, keyed?: KeyedWrite<StudentCreated>): Promise<StudentCreated>
  /** Replaces firstName, lastName and age of an existing record; never creates. */
  replace (student: Student, condition?: WriteCondition<Student>, keyed?: KeyedWrite<ReplaceResult<Student>>): Promise<ReplaceResult<Student>>
  delete (id: number, condition?: WriteCondition<Student>, keyed?: KeyedWrite<DeleteResult>): Promise<DeleteResult>
}

/** The students' typed view of their record store. */
export function studentStore (records: RecordStore): StudentStore {
  return new StudentView(records)
}

class StudentView extends RecordView<Student> implements StudentStore {
  async list (): Promise<Student[]> {
    return await this.query({ where: [], sort: [] })
  }

  // The store's own promise, passed on: a read by id is every GET's path, and an async wrapper costs it a promise and a turn of the microtask queue.
  get (id: number): Promise<Student | undefined> {
    return this.records.get(id) as Promise<Student | undefined>
  }

  async create (input: StudentInput, keyed?: KeyedWrite<Student>): Promise<Student> {
    const result = await this.records.create(input, keyedAs(keyed, (r: CreateResult) => r.record as Student))
    return result.record as Student
  }

  // The store's own promise and result, handed on as they are (as get's): a CreateResult of a student is
  // a StudentCreated already (the same two members), so every v1 create pays no copy, no closure, no extra promise.
  createReporting (input: StudentInput, keyed?: KeyedWrite<StudentCreated>): Promise<StudentCreated> {
    return this.records.create(input, keyed as KeyedWrite<CreateResult> | undefined) as Promise<StudentCreated>
  }

  async replace (student: Student, condition?: WriteCondition<Student>, keyed?: KeyedWrite<ReplaceResult<Student>>): Promise<ReplaceResult<Student>> {
    const { id, ...input } = student
    const result = await this.records.put(id, input, condition, keyedAs(keyed, replaceResult))
    return replaceResult(result)
  }
}

function replaceResult (result: WriteResult): ReplaceResult<Student> {
  return result.outcome === 'replaced' || result.outcome === 'created' ? { outcome: 'replaced', record: result.record as Student } : result
}
