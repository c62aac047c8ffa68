/**
 * The verbs and relations rows, measured standalone: a fresh `rqs serve` per
 * store holding 100 authors and 10 000 books (authors referenced), then each
 * request for a few seconds from C concurrent clients, against its plain
 * baseline in the same run: a filtered list (`filter=` with OR, the same
 * `[in]` as brackets), a page with `?expand=author`, and an aggregate against
 * the plain page `GET /books?limit=50`; a PATCH against a POST. Prints
 * requests/s (wall) and the server's CPU per request (from /proc, steadier on
 * a shared machine), and each row's ratio to its baseline.
 *
 *   npx tsc -p tsconfig.build.json && npx tsx bench/verbs.ts
 *   … --seconds 3 --clients 8 --stores memory,sqlite
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/verbs.ts   (adds PostgreSQL)
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'

const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '3' }, clients: { type: 'string', default: '8' }, stores: { type: 'string' } } })
const SECONDS = Number(args.seconds)
const CLIENTS = Number(args.clients)
const BOOKS = 10_000
const dir = mkdtempSync(join(tmpdir(), 'rqs-verbs-'))
const collections = join(dir, 'library.json')
writeFileSync(collections, JSON.stringify({
  collections: {
    authors: { schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
    books: { schema: { type: 'object', properties: { title: { type: 'string', maxLength: 200 }, year: { type: 'integer' }, price: { type: 'number' }, author: { type: 'integer', 'x-references': 'authors' } }, required: ['title', 'year', 'author'] } }
  }
}))

interface Probe { label: string, method: 'GET' | 'POST' | 'PATCH', path: () => string, body?: () => unknown, headers?: Record<string, string>, status: number }

const MERGE = { 'content-type': 'application/merge-patch+json' }
const filter = (text: string): string => `filter=${encodeURIComponent(text)}`
let patched = 0
/** Rows: a probe and the baseline it is taken against. */
const PAGE: Probe = { label: 'GET /books?limit=50', method: 'GET', path: () => '/books?limit=50', status: 200 }
const POST: Probe = { label: 'POST /books', method: 'POST', path: () => '/books', body: () => ({ title: 'Posted', year: 2000, price: 1, author: 1 }), status: 201 }
const ROWS: Array<[Probe, Probe]> = [
  [{ label: 'filter= with OR', method: 'GET', path: () => `/books?limit=50&${filter('(year < 1950 || year >= 2000) && price != 7.5')}`, status: 200 }, PAGE],
  [{ label: 'filter= OR of three years', method: 'GET', path: () => `/books?limit=50&${filter('year = 1965 || year = 1984 || year = 2001')}`, status: 200 },
    { label: 'year[in]=1965,1984,2001', method: 'GET', path: () => '/books?limit=50&year[in]=1965,1984,2001', status: 200 }],
  [{ label: 'year[in]=1965,1984,2001', method: 'GET', path: () => '/books?limit=50&year[in]=1965,1984,2001', status: 200 }, PAGE],
  [{ label: '?expand=author', method: 'GET', path: () => '/books?limit=50&expand=author', status: 200 }, PAGE],
  [{ label: 'aggregate by year (count, sum, avg)', method: 'GET', path: () => '/books/aggregate?groupBy=year&count=true&sum=price&avg=price', status: 200 }, PAGE],
  [{ label: 'PATCH /books/{id}', method: 'PATCH', path: () => `/books/${(patched++ % BOOKS) + 1}`, body: () => ({ price: 3.5 }), headers: MERGE, status: 200 }, POST]
]

/** Clock ticks of a process, user + system (/proc/<pid>/stat fields 14 and 15), in ms. */
function cpuMs (pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(fields[11]) + Number(fields[12])) * 10
}

async function serve (store: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['dist/bin.js', 'serve', '--port', String(port), '--collections', collections, '--store', store, '--body-limit', '64mb'], { stdio: 'ignore' })
  for (let i = 0; i < 200; i++) {
    try { if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return child } catch { /* not yet */ }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`rqs did not start on ${store}`)
}

async function send (origin: string, probe: Probe): Promise<void> {
  const body = probe.body?.()
  const res = await fetch(`${origin}${probe.path()}`, { method: probe.method, headers: body === undefined ? undefined : { 'content-type': 'application/json', ...probe.headers }, body: body === undefined ? undefined : JSON.stringify(body) })
  if (res.status !== probe.status) throw new Error(`${probe.label}: ${res.status} ${await res.text()}`)
  await res.arrayBuffer()
}

/** Requests/s and server CPU µs a request of one probe, for SECONDS from CLIENTS clients. */
async function measure (origin: string, pid: number, probe: Probe): Promise<{ rate: number, cpuUs: number }> {
  for (let i = 0; i < 20; i++) await send(origin, probe) // warm
  let count = 0
  const cpu0 = cpuMs(pid)
  const t0 = performance.now()
  const end = t0 + SECONDS * 1000
  await Promise.all(Array.from({ length: CLIENTS }, async () => { while (performance.now() < end) { await send(origin, probe); count++ } }))
  const seconds = (performance.now() - t0) / 1000
  return { rate: count / seconds, cpuUs: (cpuMs(pid) - cpu0) * 1000 / count }
}

const stores: Array<[string, () => string]> = [['memory', () => 'memory'], ['sqlite', () => `sqlite:${join(dir, `${Math.random()}.db`)}`]]
if (process.env.DATABASE_URL !== undefined) stores.push(['postgres', () => process.env.DATABASE_URL as string])
const only = args.stores?.split(',')

let port = 39500
for (const [name, location] of stores) {
  if (only !== undefined && !only.includes(name)) continue
  const server = await serve(location(), port)
  const origin = `http://127.0.0.1:${port++}`
  try {
    const authors = await fetch(`${origin}/authors`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ name: `Author ${i}` }))) })
    const first = ((await authors.json()) as Array<{ id: number }>)[0]?.id ?? 1
    const books = Array.from({ length: BOOKS }, (_, i) => ({ title: `Book ${i}`, year: 1900 + (i % 120), price: (i % 50) + 0.5, author: first + (i % 100) }))
    const seeded = await fetch(`${origin}/books`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(books) })
    if (seeded.status !== 201) throw new Error(`seeding: ${seeded.status}`)
    console.log(`${name}: ${BOOKS} books, ${CLIENTS} clients, ${SECONDS} s a probe`)
    for (const [probe, baseline] of ROWS) {
      const a = await measure(origin, server.pid ?? 0, probe)
      const b = await measure(origin, server.pid ?? 0, baseline)
      console.log(`  ${probe.label.padEnd(38)} ${a.rate.toFixed(0).padStart(6)} req/s ${a.cpuUs.toFixed(0).padStart(6)} µs CPU | ${baseline.label.padEnd(26)} ${b.rate.toFixed(0).padStart(6)} req/s ${b.cpuUs.toFixed(0).padStart(6)} µs CPU | rate ${(a.rate / b.rate).toFixed(2)}×, CPU ${(a.cpuUs / b.cpuUs).toFixed(2)}×`)
    }
  } finally {
    server.kill()
    await new Promise((resolve) => server.once('exit', resolve))
  }
}
rmSync(dir, { recursive: true, force: true })
