/**
 * What the change feed costs PostgreSQL writes (issue 20): through the store
 * API, W concurrent writers create addresses for a bounded time on a fresh
 * database, with the feed
 *
 *   off         the change trigger disabled on rqs_addresses and their create
 *               function written again without its change (the store has no
 *               option to open without its change log: this is the write
 *               without any change appended),
 *   on          the default (every create appends its change), nobody reading,
 *   on + reader the default with one subscriber in this process, which must
 *               receive every create once (checked; the row fails otherwise).
 *
 * Each round opens off and on (a fresh database each) and measures them in
 * turns of a second, so that drift on a shared machine hits them alike, then
 * on + reader; the figures are medians of the rounds. Prints
 * creates/s per variant and the ratios on ÷ off (target ≥ 0.9), and the CPU
 * each create cost (this process, or the rqs servers, plus the database's
 * backends serving them, from /proc): on a machine shared with other work
 * the rates swing with the load, the CPU per create much less.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/feed-writes.ts
 *   … --writers 32 --pool 32 --duration 5 --rounds 3
 *
 * With --http (needs dist/: npm run build) it measures, after
 * the store-API row, two rqs instances (servers/rqs.mjs, default config, pool
 * 10 each) on one database, both pinned to the server core, each loaded by its
 * own wrk (POST /addresses, 16 connections, on the load core) at once: the
 * sum of both rates, feed off vs on, alternating rounds.
 *
 * Row id for bench/run.ts: `pg-feed-writes` (see runFeedWrites, exported).
 */
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import type { Change } from '../src/domain/index.js'
import { ADDRESSES_DECLARATION, openPostgresStores, type Stores } from '../test/helpers/built-ins.js'
import { createRoutineSql } from '../src/stores/postgres/registry.js'
import { layoutOf } from '../src/stores/postgres/layout.js'
import { freshDatabase } from './lib/postgres.js'
import { load } from './lib/load.js'
import { cpuSeconds, startServer, type RunningServer } from './lib/procs.js'
import { R, rqsSpec } from './lib/requests.js'
import { median, percentile } from './lib/stats.js'
import { judge, type RowResult } from './lib/compare.js'

export const FEED_WRITES_ROW = 'pg-feed-writes'

export type FeedVariant = 'off' | 'on' | 'on + reader'
export const FEED_VARIANTS: readonly FeedVariant[] = ['off', 'on', 'on + reader']

export interface FeedWritesOptions {
  /** Any database of the server; each run creates and drops its own beside it. */
  url: string
  writers: number
  poolSize: number
  durationSec: number
  rounds: number
}

export interface FeedWritesRun {
  rate: number
  /** How long the writers ran. */
  seconds: number
  p99Ms: number
  creates: number
  /** CPU per create (µs): this process (or the servers) plus the database's backends. */
  cpuUs: number
  /** The database's backends' part of cpuUs. */
  dbCpuUs?: number
  delivered?: number
}

/** The backends serving `url`'s database now (the pool's, the listener's). */
async function backendPids (url: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')).rows.map((r) => r.pid)
  } finally { await client.end() }
}

/** CPU seconds used so far by `pids` (one gone since counts as 0 both times: a start/end pair is taken together). */
function cpuOf (pids: number[]): number[] {
  return pids.map(cpuSeconds)
}
function cpuSpent (before: number[], after: number[]): number {
  return before.reduce((sum, b, i) => {
    const a = after[i] ?? Number.NaN
    return Number.isFinite(a) && Number.isFinite(b) ? sum + a - b : sum
  }, 0)
}

export interface FeedWritesResult {
  runs: Record<FeedVariant, FeedWritesRun[]>
  median: Record<FeedVariant, number>
  /** on ÷ off and on + reader ÷ off, of the medians. */
  ratio: { on: number, reader: number }
}

/**
 * The feed off: the addresses' change trigger disabled, and their create
 * function, which appends its change in its own statement, written again
 * without it (the same SQL the store generates, less the change).
 */
async function feedOff (url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query('ALTER TABLE rqs_addresses DISABLE TRIGGER USER')
    for (const sql of createRoutineSql(layoutOf(ADDRESSES_DECLARATION), 'rqs_address_ids', 'none')) await client.query(sql)
  } finally { await client.end() }
}

/** A variant's stores on a fresh database, warmed, ready for timed runs of the writers. */
interface FeedSession {
  measure: (durationSec: number) => Promise<FeedWritesRun>
  close: () => Promise<void>
}

/** One variant on a fresh database (and its subscriber, for `on + reader`): its pool's connections and plans warmed. */
async function openVariant (variant: FeedVariant, options: FeedWritesOptions): Promise<FeedSession> {
  const db = await freshDatabase(options.url)
  let stores: Stores | undefined
  try {
    stores = await openPostgresStores({ url: db.url, poolSize: options.poolSize, startupWaitMs: 0, log: { warn: (obj, msg) => { process.stderr.write(`${variant}: ${msg} ${String((obj as { err?: Error }).err?.message ?? '')}\n`) } } })
    if (variant === 'off') await feedOff(db.url)
    const open = stores
    const delivered: Change[] = []
    const subscription = variant === 'on + reader' ? await open.changes.subscribe((change) => { delivered.push(change) }) : undefined
    // Warm the pool's connections and the prepared plans.
    await Promise.all(Array.from({ length: options.poolSize }, async (_, i) => await open.addresses.create({ name: 'warm', city: 'Kiel', postalCode: String(i) })))
    let written = options.poolSize
    const backends = await backendPids(db.url)
    return {
      measure: async (durationSec) => {
        const latencies: number[] = []
        const backendsBefore = cpuOf(backends)
        const selfBefore = process.cpuUsage()
        const started = performance.now()
        const deadline = started + durationSec * 1000
        const writer = async (w: number): Promise<void> => {
          for (let i = 0; performance.now() < deadline; i++) {
            const begun = performance.now()
            await open.addresses.create({ name: `w${w}`, city: 'Berlin', postalCode: String(i) })
            latencies.push(performance.now() - begun)
          }
        }
        await Promise.all(Array.from({ length: options.writers }, async (_, w) => { await writer(w) }))
        const seconds = (performance.now() - started) / 1000
        const self = process.cpuUsage(selfBefore)
        const dbCpu = cpuSpent(backendsBefore, cpuOf(backends))
        const cpu = (self.user + self.system) / 1e6 + dbCpu
        const run: FeedWritesRun = { rate: latencies.length / seconds, seconds, p99Ms: percentile(latencies, 99), creates: latencies.length, cpuUs: cpu / latencies.length * 1e6, dbCpuUs: dbCpu / latencies.length * 1e6 }
        written += latencies.length
        if (subscription !== undefined) {
          // Every change delivered once, in order, before the next slice (of another variant) is measured.
          const until = performance.now() + 30_000
          while (delivered.length < written && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 20))
          const seqs = delivered.map((c) => c.seq)
          const gapFree = seqs.every((s, i) => s === subscription.position + i + 1)
          if (delivered.length !== written || !gapFree) throw new Error(`the reader got ${delivered.length} of ${written} changes${gapFree ? '' : ', not numbered 1, 2, 3 …'}`)
          run.delivered = latencies.length
        }
        return run
      },
      close: async () => {
        subscription?.unsubscribe()
        await open.close()
        await db.drop()
      }
    }
  } catch (err) {
    await stores?.close()
    await db.drop()
    throw err
  }
}

/** A run from its slices: creates and CPU summed, the rate over their time, the slices' median p99. */
function combineRuns (parts: readonly FeedWritesRun[]): FeedWritesRun {
  const seconds = parts.reduce((n, p) => n + p.seconds, 0)
  const creates = parts.reduce((n, p) => n + p.creates, 0)
  const cpu = parts.reduce((n, p) => n + p.cpuUs * p.creates, 0)
  const dbCpu = parts.reduce((n, p) => n + (p.dbCpuUs ?? 0) * p.creates, 0)
  const delivered = parts.every((p) => p.delivered !== undefined) ? parts.reduce((n, p) => n + p.delivered!, 0) : undefined
  return { rate: creates / seconds, seconds, p99Ms: median(parts.map((p) => p.p99Ms)), creates, cpuUs: cpu / creates, dbCpuUs: dbCpu / creates, ...(delivered === undefined ? {} : { delivered }) }
}

/** Slices of a round, in seconds: the variants take turns a second at a time, so the host's weather meets them alike. */
const FEED_SLICE_SEC = 1

/**
 * The variants measured together, in turns: the judged pair, then the reader. PostgreSQL's 100 connections
 * hold two pools of 32 beside the bench's own, not three.
 */
const FEED_GROUPS: ReadonlyArray<readonly FeedVariant[]> = [['off', 'on'], ['on + reader']]

export async function runFeedWrites (options: FeedWritesOptions, progress: (line: string) => void = () => {}): Promise<FeedWritesResult> {
  const runs: Record<FeedVariant, FeedWritesRun[]> = { off: [], on: [], 'on + reader': [] }
  const slices = Math.max(1, Math.round(options.durationSec / FEED_SLICE_SEC))
  for (let round = 0; round < options.rounds; round++) {
    for (const group of FEED_GROUPS) {
      // Each variant of the group on a database of its own, measured in turns of a second, the order rotating
      // from slice to slice and round to round (each variant is first and last alike).
      const sessions = new Map<FeedVariant, FeedSession>()
      try {
        for (const variant of group) sessions.set(variant, await openVariant(variant, options))
        const parts = new Map<FeedVariant, FeedWritesRun[]>(group.map((v) => [v, []]))
        for (let slice = 0; slice < slices; slice++) {
          for (let i = 0; i < group.length; i++) {
            const variant = group[(i + round + slice) % group.length]!
            parts.get(variant)!.push(await sessions.get(variant)!.measure(options.durationSec / slices))
          }
        }
        for (const variant of group) {
          const measured = parts.get(variant)!
          const run = combineRuns(measured)
          runs[variant].push(run)
          progress(`round ${round + 1} ${variant}${slices > 1 ? ` (${slices} slices)` : ''}: ${run.rate.toFixed(0)} creates/s, p99 ${run.p99Ms.toFixed(1)} ms, ${run.cpuUs.toFixed(0)} µs CPU/create (database ${run.dbCpuUs?.toFixed(0) ?? '?'})${run.delivered === undefined ? '' : `, ${run.delivered} delivered`}`)
        }
      } finally {
        for (const session of sessions.values()) await session.close()
      }
    }
  }
  const med = Object.fromEntries(FEED_VARIANTS.map((v) => [v, median(runs[v].map((r) => r.rate))])) as Record<FeedVariant, number>
  return { runs, median: med, ratio: { on: med.on / med.off, reader: med['on + reader'] / med.off } }
}

/**
 * The result as a row of bench/run.ts's table: `on` is the target, `off` the
 * baseline it must reach 0.9 of; `on + reader` a second baseline line for
 * what a subscriber adds.
 */
export function feedWritesRow (result: FeedWritesResult, options: FeedWritesOptions): RowResult {
  const line = (variant: FeedVariant, role: 'target' | 'baseline'): RowResult['lines'][number] => ({
    label: variant === 'off' ? 'feed off (change trigger disabled)' : variant === 'on' ? 'feed on (default)' : 'feed on, one subscriber',
    role,
    rps: result.median[variant],
    p99Ms: median(result.runs[variant].map((r) => r.p99Ms)),
    // CPU per create (the writers' process and the database's backends): what the verdict rests on.
    cpuUsPerRequest: median(result.runs[variant].map((r) => r.cpuUs)),
    cpuRounds: result.runs[variant].map((r) => r.cpuUs),
    rounds: result.runs[variant].map((r) => r.rate)
  })
  const row = judge(
    {
      id: FEED_WRITES_ROW,
      title: `PostgreSQL: ${options.writers} writers creating addresses through the store API, change feed on vs off`,
      goal: { against: 'feed off (change trigger disabled)', min: 0.9, text: 'feed on ≥ 0.9 × feed off' }
    },
    [line('on', 'target'), line('off', 'baseline'), line('on + reader', 'baseline')]
  )
  return { ...row, figures: { ratioOn: result.ratio.on, ratioWithReader: result.ratio.reader, ...Object.fromEntries(FEED_VARIANTS.map((v) => [`cpuUsPerCreate ${v}`, median(result.runs[v].map((r) => r.cpuUs))])) } }
}

/** Two rqs instances on one fresh database, each under its own wrk at once: the summed rate of creates. */
async function runHttpOnce (variant: 'off' | 'on', url: string, durationSec: number): Promise<{ rate: number, p99Ms: number, errors: number, cpuUs: number }> {
  const db = await freshDatabase(url)
  const servers: RunningServer[] = []
  try {
    for (let i = 0; i < 2; i++) servers.push(await startServer(rqsSpec(`rqs ${i}`, 1, { env: { BENCH_STORE: db.url } })))
    if (variant === 'off') await feedOff(db.url)
    const pids = [...servers.map((server) => server.pid), ...await backendPids(db.url)]
    const before = cpuOf(pids)
    const results = await Promise.all(servers.map(async (server) => await load(server.origin, R.postAddress, { connections: 16, durationSec }, server.pid)))
    const cpu = cpuSpent(before, cpuOf(pids))
    const requests = results.reduce((sum, r) => sum + r.requests, 0)
    return { rate: results.reduce((sum, r) => sum + r.rps, 0), p99Ms: Math.max(...results.map((r) => r.p99Ms)), errors: results.reduce((sum, r) => sum + r.errors, 0), cpuUs: cpu / requests * 1e6 }
  } finally {
    for (const server of servers) await server.stop()
    await db.drop()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      writers: { type: 'string', default: '32' },
      pool: { type: 'string', default: '32' },
      duration: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '3' },
      http: { type: 'boolean', default: false }
    }
  })
  const url = process.env.DATABASE_URL
  if (url === undefined || url === '') throw new Error('set DATABASE_URL')
  const options: FeedWritesOptions = { url, writers: Number(values.writers), poolSize: Number(values.pool), durationSec: Number(values.duration), rounds: Number(values.rounds) }
  console.log(`${FEED_WRITES_ROW}: ${options.writers} writers creating addresses through the store API, pool ${options.poolSize}, ${options.durationSec} s × ${options.rounds} alternating rounds`)
  const result = await runFeedWrites(options, (line) => { console.log(`  ${line}`) })
  console.log('\n| feed | creates/s (median) | p99 (median) | ÷ off | CPU µs per create (median) | off ÷ this |')
  console.log('|---|---|---|---|---|---|')
  const cpuOff = median(result.runs.off.map((r) => r.cpuUs))
  for (const v of FEED_VARIANTS) {
    const cpu = median(result.runs[v].map((r) => r.cpuUs))
    console.log(`| ${v} | ${result.median[v].toFixed(0)} | ${median(result.runs[v].map((r) => r.p99Ms)).toFixed(1)} ms | ${(result.median[v] / result.median.off).toFixed(2)} | ${cpu.toFixed(0)} | ${(cpuOff / cpu).toFixed(2)} |`)
  }
  console.log(`\nTarget on ÷ off ≥ 0.9: ${result.ratio.on >= 0.9 ? 'met' : 'NOT met'} (${result.ratio.on.toFixed(2)}); with a reader: ${result.ratio.reader.toFixed(2)}`)
  if (values.http === true) {
    console.log(`\n${FEED_WRITES_ROW}-http: two rqs instances on one database, each under wrk -t1 -c16 POST /addresses, ${options.durationSec} s × ${options.rounds} alternating rounds`)
    const http: Record<'off' | 'on', number[]> = { off: [], on: [] }
    const cpu: Record<'off' | 'on', number[]> = { off: [], on: [] }
    for (let round = 0; round < options.rounds; round++) {
      for (const variant of round % 2 === 0 ? ['off', 'on'] as const : ['on', 'off'] as const) {
        const run = await runHttpOnce(variant, url, options.durationSec)
        http[variant].push(run.rate)
        cpu[variant].push(run.cpuUs)
        console.log(`  round ${round + 1} ${variant}: ${run.rate.toFixed(0)} creates/s (both instances), p99 ${run.p99Ms.toFixed(1)} ms, ${run.cpuUs.toFixed(0)} µs CPU/create, ${run.errors} errors`)
      }
    }
    console.log(`\nTwo instances over HTTP: off ${median(http.off).toFixed(0)}/s, on ${median(http.on).toFixed(0)}/s, on ÷ off ${(median(http.on) / median(http.off)).toFixed(2)}; CPU per create (servers + backends): off ${median(cpu.off).toFixed(0)} µs, on ${median(cpu.on).toFixed(0)} µs, off ÷ on ${(median(cpu.off) / median(cpu.on)).toFixed(2)}`)
  }
}
