import { RecordEtags, strongEtag } from '../../http/rest/index.js'
import type { Student } from '../../domain/index.js'

/** Student v2 ETags by record object, one cache per server (src/http/rest/record-etags.ts). */
export class StudentEtags extends RecordEtags<Student> {
  constructor () { super(studentEtag) }
}

/** The ETag of a record's fields; NUL separates them, which no stored text holds. */
export function studentEtag (s: Student): string {
  return strongEtag(`${s.id}\u0000${s.firstName}\u0000${s.lastName}\u0000${s.age}`)
}
