/**
 * What the guard of a collection pinned at its declaration's version costs a
 * PostgreSQL write (instances sharing a database never write with an older
 * declaration than it holds): two collections of the same shape on a fresh
 * database, one pinned (every write statement carries the one-time filter
 * `rqs_schema_is(name, version)`), one not (as the built-in collections, and
 * every collection before), written one request at a time through the store
 * API: a create, then a replace of that record, in alternating rounds so
 * that a shared machine's drift hits both alike. Prints per write the wall
 * time (one round trip each), this process's CPU and the database backends'
 * CPU (from /proc), medians over the rounds, and pinned ÷ plain.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/schema-guard.ts
 *   … --writes 2000 --rounds 6
 */
import { parseArgs } from 'node:util'
import pg from 'pg'
import { planChange, userTableOf, type CollectionDeclaration, type RecordStore, type SchemaChanges } from '../src/domain/index.js'
import { openPostgresStores } from '../test/helpers/built-ins.js'
import { freshDatabase } from './lib/postgres.js'
import { cpuSeconds } from './lib/procs.js'
import { median } from './lib/stats.js'

const { values: args } = parseArgs({ options: { writes: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '6' } } })
const WRITES = Number(args.writes)
const ROUNDS = Number(args.rounds)
const url = process.env.DATABASE_URL
if (url === undefined || url === '') {
  console.error('set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres)')
  process.exit(2)
}

function declaration (name: string): CollectionDeclaration {
  return { name, table: userTableOf(name), fields: { title: { type: 'string', required: true }, year: { type: 'integer', required: false } }, ids: 'sequence', firstId: 1, putCreates: false, keptOnUpdate: [] }
}

/** The backends serving the database now (the pool's). */
async function backendPids (database: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: database })
  await client.connect()
  try {
    return (await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')).rows.map((r) => r.pid)
  } finally { await client.end() }
}

interface Sample { wallUs: number, cpuUs: number, dbCpuUs: number }

async function round (store: RecordStore, database: string): Promise<Sample> {
  const backends = await backendPids(database)
  const dbBefore = backends.map(cpuSeconds)
  const cpuBefore = process.cpuUsage()
  const started = process.hrtime.bigint()
  for (let i = 0; i < WRITES; i++) {
    const created = await store.create({ title: `t${i}`, year: i })
    if (created.outcome !== 'created') throw new Error(`create: ${created.outcome}`)
    const replaced = await store.put(created.record.id, { title: `u${i}`, year: i + 1 })
    if (replaced.outcome !== 'replaced') throw new Error(`put: ${replaced.outcome}`)
  }
  const wallUs = Number(process.hrtime.bigint() - started) / 1000
  const cpu = process.cpuUsage(cpuBefore)
  const dbUs = backends.map(cpuSeconds).reduce((sum, after, i) => sum + (after - (dbBefore[i] ?? after)) * 1e6, 0)
  const writes = WRITES * 2
  return { wallUs: wallUs / writes, cpuUs: (cpu.user + cpu.system) / writes, dbCpuUs: dbUs / writes }
}

const db = await freshDatabase(url)
const stores = await openPostgresStores({ url: db.url, poolSize: 1, startupWaitMs: 0 })
try {
  const schema = stores.schema as SchemaChanges
  const opened = new Map<string, RecordStore>()
  for (const name of ['plain', 'pinned']) {
    const d = declaration(name)
    opened.set(name, await schema.apply(planChange(name, undefined, d), undefined, d, { name, version: 1, source: { name }, at: new Date().toISOString(), caller: 'bench', plan: planChange(name, undefined, d) }) as RecordStore)
  }
  schema.shared?.pin('pinned', 1)
  const samples = new Map<string, Sample[]>([['plain', []], ['pinned', []]])
  // A warm-up round each: statements prepared, caches filled.
  for (const name of ['plain', 'pinned']) await round(opened.get(name) as RecordStore, db.url)
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? ['plain', 'pinned'] : ['pinned', 'plain']
    for (const name of order) samples.get(name)?.push(await round(opened.get(name) as RecordStore, db.url))
  }
  const summary = (name: string): Sample => {
    const s = samples.get(name) ?? []
    return { wallUs: median(s.map((x) => x.wallUs)), cpuUs: median(s.map((x) => x.cpuUs)), dbCpuUs: median(s.map((x) => x.dbCpuUs)) }
  }
  const plain = summary('plain')
  const pinned = summary('pinned')
  const fmt = (n: number): string => n.toFixed(1).padStart(8)
  console.log(`PostgreSQL writes (create + replace), ${WRITES * 2} a round, ${ROUNDS} rounds, medians, µs per write`)
  console.log('                  wall  rqs CPU   DB CPU')
  console.log(`plain        ${fmt(plain.wallUs)} ${fmt(plain.cpuUs)} ${fmt(plain.dbCpuUs)}`)
  console.log(`pinned       ${fmt(pinned.wallUs)} ${fmt(pinned.cpuUs)} ${fmt(pinned.dbCpuUs)}`)
  console.log(`pinned÷plain ${fmt(pinned.wallUs / plain.wallUs)} ${fmt(pinned.cpuUs / plain.cpuUs)} ${fmt(pinned.dbCpuUs / plain.dbCpuUs)}`)
} finally {
  await stores.close()
  await db.drop()
}
