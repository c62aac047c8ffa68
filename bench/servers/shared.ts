import type { Server } from 'node:http'

/**
 * What every server of the benchmark holds and answers, so rqs and its
 * baselines send comparable bytes. Each server prints `LISTENING <port>` once
 * it accepts connections; the runner reads that line.
 */

/** The record every read asks for (id 0), and the input every write sends. */
export const STUDENT_INPUT = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }
export const STUDENT = { id: 0, ...STUDENT_INPUT }
export const STUDENT_BODY = JSON.stringify({ isSuccessful: true, body: STUDENT })

/**
 * The headers rqs sends by default besides Fastify's own and its request id
 * (X-Request-Id): the protective pair and the negotiation's Vary. The GET and
 * POST rows' "Fastify, nothing added + rqs's headers" sends these and a request
 * id (fastify-bare.ts), and checks they came back (bench/run.ts).
 */
export const RQS_HEADERS = { 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', vary: 'Accept' } as const

/** The address every server holds under id 1, and the bodies its writes send. */
export const ADDRESS_INPUT = { name: 'Ada Lovelace', city: 'London', postalCode: 'W1' }
export const ADDRESS = { id: 1, ...ADDRESS_INPUT }
export const ADDRESS_BODY = JSON.stringify(ADDRESS)
export const ADDRESS_PUT_INPUT = { name: 'Ada Lovelace', city: 'Paris', postalCode: '75001' }

/** The spec's three albums, as rqs serves them by default. */
export const ALBUMS = [
  { title: 'Rumours', artist: 'Fleetwood Mac', recordNo: 20 },
  { title: "What's Going On", artist: 'Marvin Gaye', recordNo: 10 },
  { title: 'Pet Sounds', artist: 'The Beach Boys', recordNo: 12 }
]
export const ALBUMS_DOCUMENT = '{ albums { title artist recordNo } }'
export const FILTER_DOCUMENT = 'query ($f: String) { albums(titleFilter: $f) { title artist recordNo } }'
export const FILTER_VARIABLES = { f: 'Sounds' }

/**
 * How many students a baseline starts with (BENCH_STUDENTS, default 1), all
 * STUDENT_INPUT under ids 0 … n-1, as rqs (servers/rqs.mjs) is seeded. The
 * issue's large-list figures (64 bytes a record, 103 MB for 1 600 000) are of
 * exactly these records.
 */
export function seedCount (): number {
  const n = Number(process.env.BENCH_STUDENTS ?? '1')
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`BENCH_STUDENTS must be a count, not ${process.env.BENCH_STUDENTS}`)
  return n
}

/** Tells the bench runner which port a server bound (first stdout line). */
export function announce (server: Server): void {
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no TCP address')
  process.stdout.write(`LISTENING ${address.port}\n`)
}

/** Ends the process on SIGTERM / SIGINT through `close`, so --cpu-prof can write its profile. */
export function exitOnSignal (close: () => Promise<void> | void = () => {}): void {
  const stop = (): void => {
    void Promise.resolve().then(close).finally(() => process.exit(0))
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}
