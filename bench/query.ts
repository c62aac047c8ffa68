/**
 * Query benchmark (issue 13, not a test): with N students (1 000 000 by
 * default) in each store, the median time of a page of 50 with one filter
 * and one sort over HTTP (127.0.0.1, sequential requests, bounded count);
 * `rqs import` of the file into SQLite (records/s) and `rqs export` of it
 * (records/s and how much the resident memory grew). PostgreSQL runs only
 * when DATABASE_URL is set, on a fresh database dropped afterwards.
 *
 *   npx tsx bench/query.ts [--records 1000000] [--requests 100] [--stores memory,sqlite,postgres]
 *   node --expose-gc --import tsx bench/query.ts …   # export memory as live heap after GC, not RSS
 *
 * Targets: page ≤ 20 ms (SQLite, PostgreSQL), ≤ 50 ms (memory); import into
 * SQLite ≥ 100 000 records/s; export ≥ 200 000 records/s with flat memory.
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs'
import { once } from 'node:events'
import { Writable } from 'node:stream'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { makeConfig } from '../src/options.js'
import { buildServer } from '../src/server.js'
import { runExport } from '../src/commands/export.js'
import { runImport } from '../src/commands/import.js'
import type { CommandIO } from '../src/commands/common.js'
import { STUDENTS } from '../src/services/students/collection.js'
import { readRecords } from '../src/data/read-records.js'
import { memoryStores, type Stores } from '../test/helpers/built-ins.js'

const { values } = parseArgs({
  options: { records: { type: 'string', default: '1000000' }, requests: { type: 'string', default: '100' }, stores: { type: 'string', default: 'memory,sqlite,postgres' } }
})
const RECORDS = Number(values.records)
const REQUESTS = Number(values.requests)
const STORES = (values.stores as string).split(',')

const FIRST = ['Ada', 'Alan', 'Grace', 'Edsger', 'Barbara', 'Ken', 'Dennis', 'Margaret', 'Donald', 'Frances', 'John', 'Leslie', 'Radia', 'Tim', 'Niklaus', 'Hedy']
/** A well-mixed hash of (i, salt), so that the fields of a record are independent of each other. */
function mix (i: number, salt: number): number {
  let x = Math.imul(i + 1, 0x9E3779B1) ^ salt
  x = Math.imul(x ^ (x >>> 16), 0x85EBCA6B)
  x = Math.imul(x ^ (x >>> 13), 0xC2B2AE35)
  return (x ^ (x >>> 16)) >>> 0
}
/** A lastName from about 20 000 distinct values, spread over the alphabet. */
const lastName = (i: number): string => `${String.fromCharCode(65 + mix(i, 2) % 26)}${(mix(i, 3) % 20000).toString(36)}son`

/** The page queries measured: one filter and one sort each, then a walk deep into one of them. */
const PAGES = [
  ['filter age, sort lastName', '/v2/students?age=42&sort=lastName&limit=50'],
  ['filter lastName range, sort -age', '/v2/students?lastName[gte]=M&sort=-age&limit=50'],
  ['filter firstName, sort -lastName', '/v2/students?firstName=Grace&sort=-lastName&limit=50'],
  ['filter age range, sort id (default)', '/v2/students?age[lt]=30&limit=50']
] as const

class Sink extends Writable {
  bytes = 0
  /** Called with the bytes taken so far after each chunk. */
  onChunk: (bytes: number) => void = () => {}
  constructor (readonly isTTY = false) { super({ highWaterMark: 1 << 16 }) }
  override _write (chunk: Buffer, _encoding: string, done: () => void): void {
    this.bytes += chunk.length
    this.onChunk(this.bytes)
    setImmediate(done)
  }
}

function io (stdout: Writable = new Sink()): CommandIO & { stderr: Sink } {
  return { stdin: process.stdin, stdout, stderr: new Sink(), env: {} }
}

async function writeFile (path: string): Promise<void> {
  const out = createWriteStream(path)
  for (let i = 0; i < RECORDS; i++) {
    const line = `{"id":${i},"firstName":"${FIRST[mix(i, 1) % FIRST.length] as string}","lastName":"${lastName(i)}","age":${mix(i, 4) % 100}}\n`
    if (!out.write(line)) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
}

function median (xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] as number
}

async function timePages (origin: string): Promise<Array<[string, number, number]>> {
  const rows: Array<[string, number, number]> = []
  const get = async (path: string): Promise<{ ms: number, next?: string, count: number }> => {
    const started = performance.now()
    const res = await fetch(`${origin}${path}`)
    const body = await res.json() as { items: unknown[], next?: string }
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`)
    return { ms: performance.now() - started, next: body.next, count: body.items.length }
  }
  for (const [name, path] of PAGES) {
    for (let i = 0; i < 10; i++) await get(path) // warm-up
    const times: number[] = []
    for (let i = 0; i < REQUESTS; i++) times.push((await get(path)).ms)
    rows.push([name, median(times), (await get(path)).count])
  }
  // Keyset depth: follow next links of the first query 100 pages deep.
  const deep: number[] = []
  let path: string | undefined = PAGES[0][1]
  for (let i = 0; i < 100 && path !== undefined; i++) {
    const page = await get(path)
    deep.push(page.ms)
    path = page.next
  }
  rows.push([`${PAGES[0][0]}, pages 1–${deep.length} by next link`, median(deep), 50])
  return rows
}

async function serve (stores: Stores): Promise<{ origin: string, close: () => Promise<void> }> {
  const app = await buildServer(makeConfig({ logLevel: 'silent', port: 0 }), { stores })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  return { origin: `http://127.0.0.1:${port}`, close: async () => { await app.close() } }
}

function report (store: string, rows: Array<[string, number, number]>, target: number): void {
  for (const [name, ms, count] of rows) {
    console.log(`${store.padEnd(9)} ${name.padEnd(58)} median ${ms.toFixed(2).padStart(7)} ms  (${count} records)  ${ms <= target ? 'ok' : `OVER ${target} ms`}`)
  }
}

async function main (): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rqs-query-bench-'))
  try {
    const file = join(dir, 'students.ndjson')
    await writeFile(file)
    console.log(`${RECORDS} students, ${(statSync(file).size / 1e6).toFixed(0)} MB of NDJSON; ${REQUESTS} sequential requests per page query`)

    if (STORES.includes('memory')) {
      const stores = memoryStores()
      const started = performance.now()
      await stores.students.importAll(readRecords(createReadStream(file), STUDENTS, { skipInvalid: false }))
      console.log(`memory    import (seed) ${(RECORDS / ((performance.now() - started) / 1000)).toFixed(0)} records/s`)
      const server = await serve(stores)
      report('memory', await timePages(server.origin), 50)
      await server.close()
    }

    if (STORES.includes('sqlite')) {
      const path = join(dir, 'bench.db')
      const started = performance.now()
      const imported = io()
      const code = await runImport(['--store', `sqlite:${path}`, '--service', 'students', file], imported)
      if (code !== 0) throw new Error(imported.stderr.bytes.toString())
      console.log(`sqlite    rqs import ${(RECORDS / ((performance.now() - started) / 1000)).toFixed(0)} records/s (target ≥ 100000)`)
      await exportRate('sqlite', `sqlite:${path}`, statSync(file).size)
      const { openSqliteStores } = await import('../test/helpers/built-ins.js')
      const stores = openSqliteStores({ path })
      const server = await serve(stores)
      report('sqlite', await timePages(server.origin), 20)
      await server.close()
      await stores.close()
    }

    const url = process.env.DATABASE_URL
    if (STORES.includes('postgres') && url !== undefined && url !== '') {
      const name = `rqs_bench_${randomBytes(4).toString('hex')}`
      const admin = new pg.Client({ connectionString: url })
      await admin.connect()
      await admin.query(`CREATE DATABASE ${name}`)
      const dbUrl = new URL(url)
      dbUrl.pathname = `/${name}`
      try {
        const started = performance.now()
        const code = await runImport(['--store', dbUrl.toString(), '--service', 'students', file], io())
        if (code !== 0) throw new Error('import into PostgreSQL failed')
        console.log(`postgres  rqs import ${(RECORDS / ((performance.now() - started) / 1000)).toFixed(0)} records/s`)
        const analyse = new pg.Client({ connectionString: dbUrl.toString() })
        await analyse.connect()
        await analyse.query('ANALYZE rqs_students')
        await analyse.end()
        await exportRate('postgres', dbUrl.toString(), statSync(file).size)
        const { openPostgresStores } = await import('../test/helpers/built-ins.js')
        const stores = await openPostgresStores({ url: dbUrl.toString(), poolSize: 4, startupWaitMs: 0 })
        const server = await serve(stores)
        report('postgres', await timePages(server.origin), 20)
        await server.close()
        await stores.close()
      } finally {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
        await admin.end()
      }
    } else if (STORES.includes('postgres')) {
      console.log('postgres  skipped: set DATABASE_URL')
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * `rqs export` into a sink that takes its time (a socket would too). Flat
 * memory: the memory in use once a tenth of the data has gone out, against
 * its peak over the rest of the export. With --expose-gc that is the live
 * heap after a collection every 200 chunks; otherwise the resident set, which
 * also holds garbage not yet collected.
 */
async function exportRate (label: string, store: string, expectedBytes: number): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc
  const inUse = (): number => gc === undefined ? process.memoryUsage().rss : process.memoryUsage().heapUsed
  gc?.()
  const before = inUse()
  let early: number | undefined
  let peak = before
  let chunks = 0
  const sink = new Sink()
  sink.onChunk = (bytes) => {
    if (gc !== undefined && ++chunks % 200 !== 0) return
    gc?.()
    const used = inUse()
    if (early === undefined && bytes >= expectedBytes / 10) early = used
    if (early !== undefined) peak = Math.max(peak, used)
  }
  const started = performance.now()
  const code = await runExport(['--store', store, '--service', 'students'], io(sink))
  const seconds = (performance.now() - started) / 1000
  if (code !== 0) throw new Error('export failed')
  const mb = (n: number): string => (n / 1e6).toFixed(0)
  console.log(`${label.padEnd(9)} rqs export ${(RECORDS / seconds).toFixed(0)} records/s (target ≥ 200000), ${mb(sink.bytes)} MB written; ` +
    `${gc === undefined ? 'resident memory' : 'live heap'} +${mb((early ?? before) - before)} MB after the first tenth, +${mb(peak - before)} MB at most after that`)
}

await main()
