/**
 * Store benchmark (not a test): GET-by-id and POST throughput of the student
 * service per store, over HTTP on 127.0.0.1, against a child `rqs serve`
 * process per store so the load generator does not share its event loop.
 * Counts are bounded; PostgreSQL runs only when DATABASE_URL is set, on a
 * fresh database that is dropped afterwards.
 *
 *   npx tsx bench/stores.ts                    # all stores available here
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/stores.ts
 */
import { spawn } from 'node:child_process'
import { Agent, request } from 'node:http'
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
  const getRequests = options.getRequests ?? 5000
  const postRequests = options.postRequests ?? 2000
  const concurrency = options.concurrency ?? 16
  const warmup = options.warmupRequests ?? 500
  const rows: StoreBenchRow[] = []

  for (const store of stores) {
    const target = await prepare(store, databaseUrl)
    const server = await serve(target.spec)
    const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
    try {
      const body = (i: number): string => JSON.stringify({ firstName: 'Bench', lastName: `N${i}`, age: i % 100 })
      await load(warmup, concurrency, (i) => send(agent, server.origin, 'POST', '/students', body(i), 201))
      const postSeconds = await load(postRequests, concurrency, (i) => send(agent, server.origin, 'POST', '/students', body(i), 201))
      rows.push(row(store, 'POST /students', postRequests, concurrency, postSeconds))
      await load(warmup, concurrency, (i) => send(agent, server.origin, 'GET', `/students/${i % 100}`, undefined, 200))
      const getSeconds = await load(getRequests, concurrency, (i) => send(agent, server.origin, 'GET', `/students/${i % 100}`, undefined, 200))
      rows.push(row(store, 'GET /students/:id', getRequests, concurrency, getSeconds))
    } finally {
      agent.destroy()
      await server.stop()
      await target.cleanup()
    }
  }
  return rows
}

function row (store: BenchStore, operation: StoreBenchRow['operation'], requests: number, concurrency: number, seconds: number): StoreBenchRow {
  return { store, operation, requests, concurrency, seconds: Number(seconds.toFixed(3)), requestsPerSecond: Math.round(requests / seconds) }
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
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--port', '0', '--log-level', 'info', '--store', store], {
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

/** Runs `count` requests, `concurrency` at a time; returns the elapsed seconds. */
async function load (count: number, concurrency: number, one: (i: number) => Promise<void>): Promise<number> {
  let next = 0
  const start = process.hrtime.bigint()
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) await one(next++)
  }))
  return Number(process.hrtime.bigint() - start) / 1e9
}

function send (agent: Agent, origin: string, method: string, path: string, body: string | undefined, expected: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }
    const req = request(`${origin}${path}`, { method, agent, headers }, (res) => {
      res.resume()
      res.on('end', () => {
        if (res.statusCode === expected) resolve()
        else reject(new Error(`${method} ${path}: expected ${expected}, got ${res.statusCode}`))
      })
    })
    req.on('error', reject)
    req.end(body)
  })
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
