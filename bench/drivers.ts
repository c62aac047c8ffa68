/**
 * npm run bench:drivers — the PostgreSQL driver alone, without HTTP: `pg`
 * (a Pool, named prepared statements), the store's batched gets on it
 * (BatchedGets: one `id = ANY($1)` statement for the gets of one I/O round)
 * and `postgres` (postgres.js: prepared statements, pipelining on each
 * connection), running the two statements the student store runs most —
 * GET by id and the create function — from N concurrent callers over a pool
 * of 10 connections. This process is pinned to the server core, as rqs is;
 * PostgreSQL itself is not pinned. Needs DATABASE_URL; creates and drops its
 * own database beside it.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:drivers [-- --duration 5 --rounds 3 --quick]
 */
import { parseArgs } from 'node:util'
import pg from 'pg'
import postgres from 'postgres'
import { openPostgresStores } from '../test/helpers/built-ins.js'
import { BatchedGets } from '../src/stores/postgres/batched-gets.js'
import { freshDatabase } from './lib/postgres.js'
import { PINNING, SERVER_CPU } from './lib/procs.js'
import { median, percentile } from './lib/stats.js'
import { spawnSync } from 'node:child_process'
import { writeResults } from './lib/report.js'
import { STUDENT_INPUT } from './servers/shared.js'
import { fold } from '../src/domain/case-fold.js'

const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    quick: { type: 'boolean', default: false }
  }
})
const quick = flags.quick === true
const duration = quick ? 0.5 : Number(flags.duration)
const rounds = quick ? 1 : Number(flags.rounds)
const POOL = 10
const CONCURRENCY = [10, 50]

const DATABASE_URL = process.env.DATABASE_URL
if (DATABASE_URL === undefined) {
  console.log('bench:drivers skipped: DATABASE_URL is not set')
  process.exit(0)
}
if (PINNING) spawnSync('taskset', ['-a', '-p', '-c', String(SERVER_CPU), String(process.pid)], { stdio: 'ignore' })

/** One driver: how it runs each operation once. */
interface Driver {
  name: string
  get: () => Promise<unknown>
  create: () => Promise<unknown>
  close: () => Promise<void>
}

const GET_SQL = 'SELECT id, first_name, last_name, age FROM rqs_students WHERE id = $1'
// The routine the store generates for the students table (src/stores/postgres/registry.ts): first id 0, the count rule.
const CREATE_SQL = 'SELECT o_id AS id FROM rqs_students_create(0, $1, $2, $3, $4, $5)'
const { firstName, lastName, age } = STUDENT_INPUT

function pgDriver (url: string): Driver {
  const pool = new pg.Pool({ connectionString: url, max: POOL })
  return {
    name: 'pg (Pool, named statements)',
    get: async () => await pool.query({ name: 'get', text: GET_SQL, values: [0] }),
    create: async () => await pool.query({ name: 'create', text: CREATE_SQL, values: [firstName, lastName, age, fold(firstName), fold(lastName)] }),
    close: async () => { await pool.end() }
  }
}

/** What the store does since issue 12: the gets of one I/O round as one `id = ANY($1)` statement; creates as pg does. */
function pgBatchedDriver (url: string): Driver {
  const pool = new pg.Pool({ connectionString: url, max: POOL })
  const gets = new BatchedGets<number, { id: string }, { id: string }>(pool, {
    statement: { name: 'get-many', text: 'SELECT id, first_name, last_name, age FROM rqs_students WHERE id = ANY($1::bigint[])' },
    idOf: (row) => Number(row.id),
    toRecord: (row) => row
  })
  return {
    name: 'pg, batched gets (the store\'s BatchedGets)',
    get: async () => await gets.get(0),
    create: async () => await pool.query({ name: 'create', text: CREATE_SQL, values: [firstName, lastName, age, fold(firstName), fold(lastName)] }),
    close: async () => { await pool.end() }
  }
}

function postgresJsDriver (url: string): Driver {
  const sql = postgres(url, { max: POOL, prepare: true, onnotice: () => {} })
  return {
    name: 'postgres.js (prepared, pipelined)',
    get: async () => await sql`SELECT id, first_name, last_name, age FROM rqs_students WHERE id = ${0}`,
    create: async () => await sql`SELECT o_id AS id FROM rqs_students_create(0, ${firstName}, ${lastName}, ${age}, ${fold(firstName)}, ${fold(lastName)})`,
    close: async () => { await sql.end() }
  }
}

/** `concurrency` callers each running `op` back to back for `seconds`. */
async function measure (op: () => Promise<unknown>, concurrency: number, seconds: number): Promise<{ rate: number, p99Ms: number }> {
  const latencies: number[] = []
  const end = performance.now() + seconds * 1000
  const start = performance.now()
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      const t = performance.now()
      await op()
      latencies.push(performance.now() - t)
    }
  }))
  return { rate: latencies.length / ((performance.now() - start) / 1000), p99Ms: percentile(latencies, 99) }
}

const db = await freshDatabase(DATABASE_URL)
const rows: Array<{ operation: string, concurrency: number, driver: string, rate: number, p99Ms: number, rounds: number[] }> = []
try {
  // The store's own schema and functions, and the record GET asks for.
  const stores = await openPostgresStores({ url: db.url, poolSize: 2, startupWaitMs: 0 })
  await stores.students.create(STUDENT_INPUT)
  await stores.close()

  const drivers = [pgDriver(db.url), pgBatchedDriver(db.url), postgresJsDriver(db.url)]
  try {
    for (const d of drivers) { await measure(d.get, POOL, quick ? 0.2 : 1); await measure(d.create, POOL, quick ? 0.2 : 1) } // warm-up: connections, statements
    for (const operation of ['get', 'create'] as const) {
      for (const concurrency of CONCURRENCY) {
        const runs = new Map<string, Array<{ rate: number, p99Ms: number }>>(drivers.map((d) => [d.name, []]))
        for (let round = 0; round < rounds; round++) {
          for (let i = 0; i < drivers.length; i++) {
            const d = drivers[(i + round) % drivers.length]!
            const r = await measure(d[operation], concurrency, duration)
            runs.get(d.name)!.push(r)
            process.stderr.write(`  ${operation} · ${concurrency} callers · ${d.name} · round ${round + 1}: ${Math.round(r.rate)}/s, p99 ${r.p99Ms.toFixed(2)} ms\n`)
          }
        }
        for (const d of drivers) {
          const rs = runs.get(d.name)!
          rows.push({ operation, concurrency, driver: d.name, rate: median(rs.map((r) => r.rate)), p99Ms: median(rs.map((r) => r.p99Ms)), rounds: rs.map((r) => Math.round(r.rate)) })
        }
      }
    }
  } finally {
    for (const d of drivers) await d.close()
  }
} finally {
  await db.drop()
}

const label = { get: 'GET by id (SELECT … WHERE id = $1)', create: 'POST (SELECT … FROM rqs_students_create(…))' }
console.log(`PostgreSQL drivers, pool of ${POOL} connections, median of ${rounds} alternating round(s) of ${duration} s${PINNING ? `, this process on CPU ${SERVER_CPU}` : ''}`)
console.log('| operation | callers | driver | queries/s | p99 ms | ÷ pg |')
console.log('|---|---:|---|---:|---:|---:|')
for (const r of rows) {
  const pgRow = rows.find((x) => x.operation === r.operation && x.concurrency === r.concurrency && x.driver.startsWith('pg '))!
  const ratio = r === pgRow ? '' : `${(r.rate / pgRow.rate).toFixed(2)}×`
  console.log(`| ${label[r.operation as 'get' | 'create']} | ${r.concurrency} | ${r.driver} | ${Math.round(r.rate)} | ${r.p99Ms.toFixed(2)} | ${ratio} |`)
}
writeResults({ date: new Date().toISOString(), node: process.version, pool: POOL, duration, rounds, quick }, rows as never, 'drivers.json')
