import { AppError } from '../../http/errors/index.js'
/** The student service's own failures, thrown by the routes of every version and worded by each. */
export function studentNotFound (id: number): AppError {
  return new AppError('STUDENT_NOT_FOUND', `No student has the id ${id}`, { args: { id } })
}

export function invalidId (segment: string): AppError {
  return new AppError('INVALID_ID', `"${segment.slice(0, 40)}" is not a student id: use a non-negative integer in decimal digits`)
}
