/**
 * A bulk create against one-record POSTs (issue 31's speed row, measured
 * standalone): a fresh `rqs serve` per store and round creates N books of a
 * declared collection, either as N POSTs from C concurrent clients or as
 * arrays of B records (POST /books with a JSON array, all or nothing). Prints
 * records/s (wall) and the server's CPU per record (from /proc, steadier on a
 * shared machine), median of the rounds, and the ratio bulk ÷ single.
 *
 *   npx tsc -p tsconfig.build.json && npx tsx bench/bulk-create.ts
 *   … --records 10000 --batch 10000 --clients 8 --rounds 3
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/bulk-create.ts   (adds PostgreSQL)
 *   … --stores postgres   (only the stores named, comma-separated)
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'

const { values: args } = parseArgs({ options: { records: { type: 'string', default: '10000' }, batch: { type: 'string', default: '10000' }, clients: { type: 'string', default: '8' }, rounds: { type: 'string', default: '3' }, stores: { type: 'string' } } })
const RECORDS = Number(args.records)
const BATCH = Number(args.batch)
const CLIENTS = Number(args.clients)
const ROUNDS = Number(args.rounds)
const dir = mkdtempSync(join(tmpdir(), 'rqs-bulk-'))
const collections = join(dir, 'books.json')
writeFileSync(collections, JSON.stringify({ collections: { books: { schema: { type: 'object', properties: { title: { type: 'string', maxLength: 200 }, year: { type: 'integer' }, price: { type: 'number' } }, required: ['title', 'year'] } } } }))
const book = (i: number): { title: string, year: number, price: number } => ({ title: `Book ${i}`, year: 1900 + (i % 120), price: (i % 50) + 0.5 })

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

async function post (url: string, body: unknown): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  if (res.status !== 201) throw new Error(`${url}: ${res.status} ${await res.text()}`)
  await res.arrayBuffer()
}

async function round (store: string, mode: 'single' | 'bulk', port: number): Promise<{ rate: number, cpuUs: number }> {
  const server = await serve(store, port)
  const url = `http://127.0.0.1:${port}/books`
  const cpu0 = cpuMs(server.pid ?? 0)
  const t0 = performance.now()
  if (mode === 'bulk') {
    for (let start = 0; start < RECORDS; start += BATCH) await post(url, Array.from({ length: Math.min(BATCH, RECORDS - start) }, (_, i) => book(start + i)))
  } else {
    let next = 0
    await Promise.all(Array.from({ length: CLIENTS }, async () => { while (next < RECORDS) await post(url, book(next++)) }))
  }
  const seconds = (performance.now() - t0) / 1000
  const cpu = cpuMs(server.pid ?? 0) - cpu0
  server.kill()
  await new Promise((resolve) => server.once('exit', resolve))
  return { rate: RECORDS / seconds, cpuUs: cpu * 1000 / RECORDS }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN
const stores: Array<[string, () => string]> = [['memory', () => 'memory'], ['sqlite', () => `sqlite:${join(dir, `${Math.random()}.db`)}`]]
if (process.env.DATABASE_URL !== undefined) stores.push(['postgres', () => process.env.DATABASE_URL as string])
const only = args.stores?.split(',')

let port = 39000
for (const [name, location] of stores) {
  if (only !== undefined && !only.includes(name)) continue
  const results: Record<'single' | 'bulk', Array<{ rate: number, cpuUs: number }>> = { single: [], bulk: [] }
  for (let r = 0; r < ROUNDS; r++) {
    for (const mode of ['single', 'bulk'] as const) results[mode].push(await round(location(), mode, port++))
  }
  const row = (mode: 'single' | 'bulk'): string => `${mode.padEnd(6)} ${median(results[mode].map((x) => x.rate)).toFixed(0).padStart(8)} records/s, ${median(results[mode].map((x) => x.cpuUs)).toFixed(1).padStart(7)} µs CPU a record`
  const ratio = median(results.bulk.map((x) => x.rate)) / median(results.single.map((x) => x.rate))
  const cpuRatio = median(results.single.map((x) => x.cpuUs)) / median(results.bulk.map((x) => x.cpuUs))
  console.log(`${name}: ${RECORDS} records (bulk: arrays of ${BATCH}; single: ${CLIENTS} clients)\n  ${row('single')}\n  ${row('bulk')}\n  bulk ÷ single: ${ratio.toFixed(1)}× the rate, ${cpuRatio.toFixed(1)}× less CPU a record (target ≥ 10×)`)
}
rmSync(dir, { recursive: true, force: true })
