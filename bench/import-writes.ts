/**
 * How long a running server's writes wait while `rqs import` fills the same
 * database (issue 19, item 5). This process plays the server: through its own
 * store it writes one student create and one address PUT every 10 ms, while
 * the real `rqs import` (a child process) reads, checks and stores an NDJSON
 * file of N students. Prints the import's duration and the latencies of the
 * writes made meanwhile. Bounded: the writes stop when the import ends, or
 * after 5 minutes.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/import-writes.ts --store postgres --records 100000
 *   npx tsx bench/import-writes.ts --store sqlite --records 100000
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { openPostgresStores, openSqliteStores, type Stores } from '../test/helpers/built-ins.js'
import { freshDatabase } from './lib/postgres.js'
import { percentile } from './lib/stats.js'

const WRITE_EVERY_MS = 10
const LIMIT_MS = 5 * 60_000

const { values } = parseArgs({ options: { store: { type: 'string', default: 'sqlite' }, records: { type: 'string', default: '100000' } } })
const records = Number(values.records)
const dir = mkdtempSync(join(tmpdir(), 'rqs-import-writes-'))
let store: string
let stores: Stores
let drop = async (): Promise<void> => {}
if (values.store === 'postgres') {
  const url = process.env.DATABASE_URL
  if (url === undefined) throw new Error('set DATABASE_URL')
  const db = await freshDatabase(url)
  drop = db.drop
  store = db.url
  stores = await openPostgresStores({ url: db.url, poolSize: 4, startupWaitMs: 0 })
} else {
  store = `sqlite:${join(dir, 'db.sqlite')}`
  stores = openSqliteStores({ path: join(dir, 'db.sqlite') })
}
const file = join(dir, 'students.ndjson')
let text = ''
for (let i = 0; i < records; i++) text += `{"id":${100_000 + i},"firstName":"First${i % 500}","lastName":"Last${i % 9973}","age":${i % 90}}\n`
writeFileSync(file, text)

const child = spawn(process.execPath, ['--import', 'tsx', 'src/bin.ts', 'import', '--store', store, '--service', 'students', file], { stdio: ['ignore', 'ignore', 'pipe'] })
let stderr = ''
child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
const started = Date.now()
let ended: number | undefined
const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => { ended = Date.now(); resolve(code) }))

const writes: Array<{ ms: number, error?: string }> = []
for (let i = 0; ended === undefined && Date.now() - started < LIMIT_MS; i++) {
  const begun = performance.now()
  try {
    await Promise.all([
      stores.students.create({ firstName: 'Server', lastName: `w${i}`, age: i % 100 }),
      stores.addresses.put(BigInt(1 + (i % 1000)), { name: 'n', city: 'Kiel', postalCode: `${i}` })
    ])
    writes.push({ ms: performance.now() - begun })
  } catch (err) {
    writes.push({ ms: performance.now() - begun, error: (err as Error).message.slice(0, 100) })
  }
  await new Promise((resolve) => setTimeout(resolve, WRITE_EVERY_MS))
}
const code = await exited
await stores.close()
await drop()
rmSync(dir, { recursive: true, force: true })
const ms = writes.map((w) => w.ms)
const failed = writes.filter((w) => w.error !== undefined)
process.stdout.write(`${values.store}: rqs import of ${records} students: exit ${String(code)} after ${(ended ?? Date.now()) - started} ms${code === 0 ? '' : ` (${stderr.trim().slice(0, 200)})`}; ` +
  `${writes.length} server writes meanwhile: p50 ${percentile(ms, 50).toFixed(0)} ms, p99 ${percentile(ms, 99).toFixed(0)} ms, ` +
  `max ${Math.max(0, ...ms).toFixed(0)} ms, ${failed.length} failed${failed[0] === undefined ? '' : ` (${failed[0].error ?? ''})`}\n`)
