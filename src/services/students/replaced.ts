import type { Student } from './records.js'

/**
 * The `Replaced-Record` header of a create that the spec's count rule gave
 * the id of a record held (after a delete): that record's path. The create
 * itself stays a 201, as the spec says; the header (and the feed's
 * `students.replaced`) lets a client tell a person what was overwritten.
 */
export function replacedHeader (outcome: 'created' | 'replaced', record: Student, pathPrefix: string): Record<string, string> {
  return outcome === 'replaced' ? { 'replaced-record': `${pathPrefix}${record.id}` } : {}
}
