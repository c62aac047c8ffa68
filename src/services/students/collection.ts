import { studentStore, type Student } from './records.js'
import { bodyChecks, lineChecker, type ServedCollection } from '../../data/collection.js'
import { STUDENT_QUERY, studentLine } from './query.js'
import { Student as StudentSchema, StudentCreateBody, StudentReplaceBody } from './schema.js'
import { recordEtag } from '../../http/rest/index.js'
import { collectionStore } from '../records/routes.js'

const checkLine = lineChecker(StudentReplaceBody)

/** Students in files: a line is a PUT body (the id is kept). */
export const STUDENTS: ServedCollection<Student> = {
  name: 'students',
  schema: StudentSchema,
  store: (stores) => studentStore(collectionStore(stores, 'students')),
  fields: Object.keys(StudentReplaceBody.properties),
  line: studentLine,
  id: (s) => s.id,
  check: (value) => {
    const result = checkLine(value)
    if ('reason' in result) return result
    const s = value as Student
    return { record: { id: s.id, firstName: s.firstName, lastName: s.lastName, age: s.age } }
  },
  model: STUDENT_QUERY,
  checkBody: bodyChecks({ create: StudentCreateBody, replace: StudentCreateBody }),
  etag: recordEtag,
  notFound: 'STUDENT_NOT_FOUND'
}
