/**
 * A collection changed under load on PostgreSQL: a fresh database beside
 * DATABASE_URL's, `rqs serve` with the admin API, a collection of N records
 * (1 000 000 by default, loaded with one set-based INSERT … SELECT from
 * generate_series), writers creating records at a steady rate (open loop:
 * each write is sent at its time, whatever the ones before it do), then a
 * field with a default added, with its index, through `PUT /collections/books`.
 * Prints the writes' latency (p50, p99, max) before and during the change,
 * failed writes, and how long the change took. The database is dropped at
 * the end.
 *
 *   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/schema-change.ts
 *   … --records 20000 --rate 500 --warmup 3        (a quick run)
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { parseArgs } from 'node:util'
import pg from 'pg'

const { values: args } = parseArgs({ options: { records: { type: 'string', default: '1000000' }, rate: { type: 'string', default: '500' }, warmup: { type: 'string', default: '3' }, port: { type: 'string', default: '18931' } } })
const RECORDS = Number(args.records)
const RATE = Number(args.rate)
const WARMUP_S = Number(args.warmup)
const PORT = Number(args.port)
const ORIGIN = `http://127.0.0.1:${PORT}`

const BOOKS = { type: 'object', properties: { title: { type: 'string', maxLength: 200 }, year: { type: 'integer' } }, required: ['title'] }
const WITH_PAGES = { ...BOOKS, properties: { ...BOOKS.properties, pages: { type: 'integer', default: 100 } } }

interface Write { at: number, ms: number, ok: boolean }
/** The answers of failed writes: status and error code, with how many. */
const failures = new Map<string, number>()

function percentile (sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number
}

function summary (label: string, writes: readonly Write[]): string {
  const ms = writes.filter((w) => w.ok).map((w) => w.ms).sort((a, b) => a - b)
  const failed = writes.filter((w) => !w.ok).length
  const f = (n: number): string => Number.isNaN(n) ? '–' : n.toFixed(1)
  return `| ${label} | ${writes.length} | ${failed} | ${f(percentile(ms, 50))} | ${f(percentile(ms, 99))} | ${f(ms.at(-1) ?? NaN)} |`
}

async function serve (url: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['dist/bin.js', 'serve', '--port', String(PORT), '--store', url, '--collections-api'], { stdio: ['ignore', process.env.RQS_BENCH_LOG === undefined ? 'ignore' : 'inherit', 'inherit'] })
  for (let i = 0; i < 300; i++) {
    try { if ((await fetch(`${ORIGIN}/healthz`)).ok) return child } catch { /* not yet */ }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  child.kill()
  throw new Error('rqs did not start')
}

async function call (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return await fetch(`${ORIGIN}${path}`, { method, headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
}

/** The records, in one statement (the change trigger skipped, as an import does), and the id counter after them. */
async function load (url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query('BEGIN')
    await client.query("SET LOCAL rqs.import = 'on'")
    await client.query(`INSERT INTO rqs_col_books (id, title, title_folded, year)
      SELECT g, 'Book ' || g, 'book ' || g, 1900 + g % 120 FROM generate_series(1, $1::bigint) AS g`, [RECORDS])
    await client.query("UPDATE rqs_ids SET n = $1::bigint, next_id = $1::bigint + 1 WHERE collection = 'books'", [RECORDS])
    await client.query('COMMIT')
    await client.query('VACUUM ANALYZE rqs_col_books')
  } finally {
    await client.end()
  }
}

async function main (): Promise<void> {
  const base = process.env.DATABASE_URL
  if (base === undefined) {
    console.log('schema-change: skipped (needs DATABASE_URL, a role that may create databases)')
    return
  }
  const database = `rqs_bench_schema_${process.pid}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${database}`)
  const url = new URL(base)
  url.pathname = `/${database}`
  let server: ChildProcess | undefined
  try {
    server = await serve(url.toString())
    const created = await call('POST', '/collections', { name: 'books', schema: BOOKS, ids: 'sequence' })
    if (created.status !== 201) throw new Error(`creating books: ${created.status} ${await created.text()}`)
    const loading = performance.now()
    await load(url.toString())
    console.log(`loaded ${RECORDS} records in ${((performance.now() - loading) / 1000).toFixed(1)} s`)

    const writes: Write[] = []
    const pending: Array<Promise<void>> = []
    let stop = false
    const t0 = performance.now()
    const writer = (async () => {
      for (let i = 0; !stop; i++) {
        const due = t0 + (i * 1000) / RATE
        // Always a turn of the event loop, also when behind: the answers must be read meanwhile.
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())))
        const at = performance.now()
        pending.push(call('POST', '/books', { title: `Written ${i}`, year: 2000 }).then(async (res) => {
          const text = await res.text()
          writes.push({ at, ms: performance.now() - at, ok: res.status === 201 })
          if (res.status !== 201) {
            const what = `${res.status} ${/"error":"([A-Z_]+)"/.exec(text)?.[1] ?? text.slice(0, 80)}`
            failures.set(what, (failures.get(what) ?? 0) + 1)
          }
        }, (err: Error) => {
          writes.push({ at, ms: performance.now() - at, ok: false })
          failures.set(err.message, (failures.get(err.message) ?? 0) + 1)
        }))
      }
    })()
    await new Promise((resolve) => setTimeout(resolve, WARMUP_S * 1000))
    const etag = (await call('GET', '/collections/books')).headers.get('etag') ?? '*'
    const changeStart = performance.now()
    const changed = await call('PUT', '/collections/books', { schema: WITH_PAGES, ids: 'sequence' }, { 'if-match': etag })
    const changeEnd = performance.now()
    const answer = await changed.json() as { plan?: { added?: unknown, indexed?: unknown } }
    if (changed.status !== 200) throw new Error(`the change: ${changed.status} ${JSON.stringify(answer)}`)
    await new Promise((resolve) => setTimeout(resolve, 1000))
    stop = true
    await writer
    await Promise.all(pending)

    const held = await (await call('GET', '/books/1')).json() as { pages?: number }
    if (held.pages !== 100) throw new Error(`a record held did not get the default: ${JSON.stringify(held)}`)
    console.log(`\nPUT /collections/books (add "pages", default 100, indexed) on ${RECORDS} records at ${RATE} writes/s: ${((changeEnd - changeStart) / 1000).toFixed(2)} s; plan ${JSON.stringify(answer.plan?.added)}\n`)
    console.log('| writes | sent | failed | p50 ms | p99 ms | max ms |')
    console.log('|---|---|---|---|---|---|')
    console.log(summary('before the change', writes.filter((w) => w.at < changeStart)))
    console.log(summary('during the change', writes.filter((w) => w.at >= changeStart && w.at <= changeEnd)))
    console.log(summary('after the change', writes.filter((w) => w.at > changeEnd)))
    if (failures.size > 0) console.log(`\nfailed writes: ${[...failures].map(([what, n]) => `${n} × ${what}`).join('; ')}`)
  } finally {
    server?.kill()
    await new Promise((resolve) => setTimeout(resolve, 500))
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
    await admin.end()
  }
}

await main()
