/**
 * The student service's response envelope `{isSuccessful, body}` and the
 * message texts its clients read. The wording follows the spec's meaning.
 */
export interface Envelope<T> {
  isSuccessful: boolean
  body: T
}

export const ok = <T>(body: T): Envelope<T> => ({ isSuccessful: true, body })
export const fail = (message: string): Envelope<string> => ({ isSuccessful: false, body: message })

export const messages = {
  notFound: (id: number | string) => `Student with id ${id} was not found`,
  deleted: (id: number) => `Student with id ${id} was deleted`,
  jsonExpected: 'JSON data is expected',
  couldNotCreate: 'Student data could not be created',
  couldNotProcess: 'The request could not be processed',
  badId: 'id must be a non-negative integer',
  tooLarge: (limit: number) => `The request body is larger than the limit of ${limit} bytes`,
  noRoute: (method: string, url: string) => `No resource at ${method} ${url}`,
  methodNotAllowed: (method: string, allow: string) => `Method ${method} is not allowed here; allowed: ${allow}`,
  unavailable: 'The student records are temporarily unavailable; try again shortly',
  outcomeUnknown: 'The student records did not confirm the change: it may or may not have been made. Retry with the same Idempotency-Key header to make it exactly once, or read the record first',
  invalidQuery: (what: string) => `Invalid query: ${what}`,
  invalidCursor: 'Invalid query: cursor is not one this list issued; follow the next link unchanged or start again without a cursor'
} as const
