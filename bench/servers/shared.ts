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

/** The spec's three albums, as rqs serves them by default. */
export const ALBUMS = [
  { title: 'Rumours', artist: 'Fleetwood Mac', recordNo: 20 },
  { title: "What's Going On", artist: 'Marvin Gaye', recordNo: 10 },
  { title: 'Pet Sounds', artist: 'The Beach Boys', recordNo: 12 }
]
export const ALBUMS_QUERY = JSON.stringify({ query: '{ albums { title artist recordNo } }' })
export const ALBUMS_BODY = JSON.stringify({ data: { albums: ALBUMS } })
export const ADDRESS = { name: 'Ada Lovelace', city: 'London', postalCode: 'W1' }
export const ADDRESS_BODY = JSON.stringify({ id: 1, ...ADDRESS })
