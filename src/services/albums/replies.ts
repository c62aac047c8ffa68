/** What a client is told of a fault it cannot act on (the fault itself is logged). */
export const INTERNAL_MESSAGE = 'Internal server error.'

/** The `{errors: [...]}` body every failure of this service has, with a code clients can branch on. */
export function errorBody (message: string, code: string): string {
  return JSON.stringify({ errors: [{ message, extensions: { code } }] })
}
