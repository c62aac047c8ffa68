import type { RecordId } from '../../domain/index.js'
import { AppError } from '../../http/errors/index.js'
import { parseNonNegativeInteger } from '../../http/rest/index.js'
import type { IdCodec } from '../records/policy.js'
import { invalidId } from './failures.js'
import { IdParams } from './schema.js'

/** A student id in a path: a non-negative integer in decimal digits (leading zeros allowed), every version. */
export function studentId (segment: string): number {
  const id = parseNonNegativeInteger(segment)
  if (id < 0) throw invalidId(segment)
  return id
}

/** Student ids on the wire (v2): the path's, and a PUT body's, which must agree. */
export const STUDENT_IDS: IdCodec = {
  parse: studentId,
  params: IdParams,
  checkBody: (value: unknown, id: RecordId) => value === id ? undefined : new AppError('ID_MISMATCH', `body.id ${String(value)} differs from the path id ${String(id)}`)
}
