import type { StudentField, Student } from './records.js'
import { type CollectionModel, querystringSchema } from '../../http/rest/index.js'
import { AGE_MAX, NAME_MAX_LENGTH } from './schema.js'

/**
 * What clients may ask of the student list (both versions): a filter and a
 * sort key per field, paging only when asked for (`limit`), so the spec's
 * plain list stays the answer without it.
 */
export const STUDENT_QUERY: CollectionModel<StudentField> = {
  fields: {
    id: { kind: 'integer', min: 0, max: Number.MAX_SAFE_INTEGER, description: 'Student ids are integers from 0.' },
    firstName: { kind: 'string', maxLength: NAME_MAX_LENGTH, description: 'Example: `firstName=Ada`, `firstName[contains]=ad`.' },
    lastName: { kind: 'string', maxLength: NAME_MAX_LENGTH, description: 'Example: `lastName[gte]=M`.' },
    age: { kind: 'integer', min: 0, max: AGE_MAX, description: 'Example: `age[gte]=18&age[lt]=30`.' }
  },
  maxLimit: 500
}

export const StudentListQuery = querystringSchema(STUDENT_QUERY)

/** One record of an NDJSON export, fields in the representation's order. */
export function studentLine (s: Student): string {
  return `{"id":${s.id},"firstName":${JSON.stringify(s.firstName)},"lastName":${JSON.stringify(s.lastName)},"age":${s.age}}\n`
}
