import type { Server } from 'node:http'

/** The record every read benchmark asks for, and the exact bytes rqs answers with. */
export const STUDENT = { id: 0, firstName: 'Ada', lastName: 'Lovelace', age: 36 }
export const STUDENT_BODY = JSON.stringify({ isSuccessful: true, body: STUDENT })

/** Tells the bench runner which port a server bound (first stdout line). */
export function announce (server: Server): void {
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no TCP address')
  process.stdout.write(`LISTENING ${address.port}\n`)
}
