/**
 * Store benchmark (not a test): GET-by-id and POST throughput of the student
 * service per store, over HTTP on 127.0.0.1, against a child `rqs serve`
 * process per store (autocannon in this process makes the load, as in
 * bench/run.ts). Request counts are bounded (autocannon `amount`); PostgreSQL
 * runs only when DATABASE_URL is set, on a fresh database dropped afterwards.
 *
 *   npx tsx bench/stores.ts                    # all stores available here
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/stores.ts
 */
import { spawn } from 'node:child_process'
import autocannon from 'autocannon'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { createInterface } from 'node:readline'
import { fileURLToPath, pathToFileURL } from 'node:url'
import pg from 'pg'

export type BenchStore = 'memory' | 'sqlite' | 'postgres'

export interface StoreBenchOptions {
  stores?: BenchStore[]
  getRequests?: number
  postRequests?: number
  concurrency?: number
  /** Uncounted requests of each kind first, so the JIT and the pools are warm. */
  warmupRequests?: number
  databaseUrl?: string
}

export interface StoreBenchRow {
  store: BenchStore
  operation: 'GET /students/:id' | 'POST /students'
  requests: number
  concurrency: number
  seconds: number
  requestsPerSecond: number
}

const ROOT = fileURLToPath(new URL('..', import.meta.url))

export async function benchStores (options: StoreBenchOptions = {}): Promise<StoreBenchRow[]> {
  const databaseUrl = options.databaseUrl ?? process.env.DATABASE_URL
  const stores = options.stores ?? (databaseUrl ? ['memory', 'sqlite', 'postgres'] : ['memory', 'sqlite'])
  const getRequests = options.getRequests ?? 20_000
  const postRequests = options.postRequests ?? 5000
  const concurrency = options.concurrency ?? 16
  const warmup = options.warmupRequests ?? 1000
  const rows: StoreBenchRow[] = []

  for (const store of stores) {
    const target = await prepare(store, databaseUrl)
    const server = await serve(target.spec)
    try {
      const post = { url: `${server.origin}/students`, method: 'POST' as const, headers: { 'content-type': 'application/json' }, body: STUDENT }
      const get = { url: `${server.origin}/students/1`, method: 'GET' as const }
      await measure({ ...post, amount: warmup, connections: concurrency }, 201)
      rows.push(row(store, 'POST /students', concurrency, await measure({ ...post, amount: postRequests, connections: concurrency }, 201)))
      await measure({ ...get, amount: warmup, connections: concurrency }, 200)
      rows.push(row(store, 'GET /students/:id', concurrency, await measure({ ...get, amount: getRequests, connections: concurrency }, 200)))
    } finally {
      await server.stop()
      await target.cleanup()
    }
  }
  return rows
}

const STUDENT = JSON.stringify({ firstName: 'Bench', lastName: 'Mark', age: 42 })

function row (store: BenchStore, operation: StoreBenchRow['operation'], concurrency: number, r: { requests: number, seconds: number }): StoreBenchRow {
  return { store, operation, requests: r.requests, concurrency, seconds: Number(r.seconds.toFixed(3)), requestsPerSecond: Math.round(r.requests / r.seconds) }
}

/** Sends exactly `amount` requests; fails on any answer but `status`. */
async function measure (opts: autocannon.Options & { amount: number }, status: number): Promise<{ requests: number, seconds: number }> {
  // autocannon ends a run on its one-second ticker, so time the run from the first request to the last answer.
  const start = process.hrtime.bigint()
  let last = start
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ ...opts, pipelining: 1 }, (err, r) => { if (err != null) reject(err); else resolve(r) })
    instance.on('response', () => { last = process.hrtime.bigint() })
  })
  const wrong = result.non2xx + result.errors + result.timeouts
  const ok = result.statusCodeStats?.[String(status) as keyof typeof result.statusCodeStats]?.count ?? 0
  if (wrong > 0 || ok < opts.amount) throw new Error(`${opts.method} ${opts.url}: ${ok} of ${opts.amount} answered ${status} (${wrong} failed)`)
  return { requests: opts.amount, seconds: Number(last - start) / 1e9 }
}

async function prepare (store: BenchStore, databaseUrl: string | undefined): Promise<{ spec: string, cleanup: () => Promise<void> }> {
  switch (store) {
    case 'memory':
      return { spec: 'memory', cleanup: async () => {} }
    case 'sqlite': {
      const dir = mkdtempSync(join(tmpdir(), 'rqs-bench-'))
      return { spec: `sqlite:${join(dir, 'bench.db')}`, cleanup: async () => { rmSync(dir, { recursive: true, force: true }) } }
    }
    case 'postgres': {
      if (!databaseUrl) throw new Error('the postgres bench needs DATABASE_URL')
      const name = `rqs_b_${randomBytes(6).toString('hex')}`
      await admin(databaseUrl, `CREATE DATABASE ${name}`)
      const url = new URL(databaseUrl)
      url.pathname = `/${name}`
      return { spec: url.toString(), cleanup: async () => { await admin(databaseUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) } }
    }
  }
}

async function admin (url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try { await client.query(sql) } finally { await client.end() }
}

/** A child `rqs serve` on a free port, found from its "Server listening at" log line. */
async function serve (store: string): Promise<{ origin: string, stop: () => Promise<void> }> {
  const env = { ...process.env }
  delete env.DATABASE_URL
  delete env.RQS_STORE
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/bin.ts', 'serve', '--port', '0', '--log-level', 'info', '--store', store], {
    cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit']
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const origin = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line)
      if (m !== null) resolve(m[1] as string)
    })
    void exited.then(() => reject(new Error(`rqs serve --store ${store} exited before listening`)))
  })
  return { origin, stop: async () => { child.kill('SIGTERM'); await exited } }
}

/** Prints the rows as a Markdown table. */
export function formatStoreBench (rows: StoreBenchRow[]): string {
  const lines = ['| store | operation | requests | concurrency | seconds | req/s |', '|---|---|---:|---:|---:|---:|']
  for (const r of rows) lines.push(`| ${r.store} | ${r.operation} | ${r.requests} | ${r.concurrency} | ${r.seconds} | ${r.requestsPerSecond} |`)
  return lines.join('\n')
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchStores().then((rows) => { process.stdout.write(`${formatStoreBench(rows)}\n`) }, (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`)
    process.exitCode = 1
  })
}
