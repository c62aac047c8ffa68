/**
 * The longest the event loop is held while a server at the declaration
 * limits (src/services/collections/limits.ts) answers its first GraphQL
 * request: loading the GraphQL packages and building the schema. A 10 ms
 * interval probe (the largest gap between its ticks, less the 10 ms, and the
 * process's CPU over that gap) and monitorEventLoopDelay, both started after
 * the server listens; /healthz is asked every 20 ms meanwhile and the
 * slowest answer reported. Then the second query, the SDL, and the first
 * query after the collections changed are measured the same way.
 * In-process, from dist/ (npx tsc -p tsconfig.build.json first) or, with
 * --src, from the sources (tsx then transforms each module it loads).
 *
 *   npx tsx scripts/graphql-at-limits.ts [collections] [string fields] [--src]
 *
 * To see what a long block was: node --cpu-prof --import tsx scripts/graphql-at-limits.ts
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import type * as Options from '../src/options.js'
import type * as Server from '../src/server.js'
import type * as Config from '../src/services/collections/config.js'
import type * as Limits from '../src/services/collections/limits.js'

// From dist/ as a server runs (loading modules is most of the first request's work), or the sources with --src.
const root = process.argv.includes('--src') ? '../src' : '../dist'
const args = process.argv.slice(2).filter((a) => !a.startsWith('--'))
const { makeConfig } = await import(`${root}/options.js`) as typeof Options
const { buildServer } = await import(`${root}/server.js`) as typeof Server
const { fromFile } = await import(`${root}/services/collections/config.js`) as typeof Config
const { MAX_COLLECTIONS, MAX_COLUMNS } = await import(`${root}/services/collections/limits.js`) as typeof Limits

const count = Number(args[0] ?? MAX_COLLECTIONS)
const width = Number(args[1] ?? MAX_COLUMNS / 2)
const dir = mkdtempSync(join(tmpdir(), 'rqs-graphql-limits-'))
const fields = Object.fromEntries(Array.from({ length: width }, (_, i) => [`field${i}`, { type: 'string', maxLength: 200 }]))
const declaration = { collections: Object.fromEntries(Array.from({ length: count }, (_, i) => [`c${i}`, { schema: { type: 'object', properties: fields, required: ['field0'] } }])) }
const file = join(dir, 'limits.json')
writeFileSync(file, JSON.stringify(declaration))

/** Watches the event loop from now until `stop`: the largest gap between 10 ms ticks (and the CPU over it), and the histogram's maximum. */
function watch (): { stop: () => { maxGapMs: number, gapCpuMs: number, maxDelayMs: number, ticks: number } } {
  const histogram = monitorEventLoopDelay({ resolution: 10 })
  histogram.enable()
  let last = performance.now()
  let lastCpu = process.cpuUsage()
  let maxGapMs = 0
  let gapCpuMs = 0
  let ticks = 0
  const timer = setInterval(() => {
    const now = performance.now()
    // On a loaded machine the gap is longer than the work: the CPU over it says what the process did.
    const cpu = process.cpuUsage(lastCpu)
    if (now - last - 10 > maxGapMs) {
      maxGapMs = now - last - 10
      gapCpuMs = (cpu.user + cpu.system) / 1000
    }
    last = now
    lastCpu = process.cpuUsage()
    ticks++
  }, 10)
  return {
    stop: () => {
      clearInterval(timer)
      histogram.disable()
      return { maxGapMs, gapCpuMs, maxDelayMs: histogram.max / 1e6, ticks }
    }
  }
}

/** Asks `url` every 20 ms until `done`: how many answers, and the slowest. */
async function poll (url: string, done: () => boolean): Promise<{ answers: number, slowestMs: number }> {
  let answers = 0
  let slowestMs = 0
  while (!done()) {
    const asked = performance.now()
    const res = await fetch(url)
    await res.arrayBuffer()
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`)
    slowestMs = Math.max(slowestMs, performance.now() - asked)
    answers++
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return { answers, slowestMs }
}

/** The answer's status and size, read by curl: a client in another process, so its reading holds no part of this event loop. */
async function curl (url: string, args: readonly string[] = []): Promise<{ status: number, bytes: number }> {
  return await new Promise((resolve, reject) => {
    execFile('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code} %{size_download}', ...args, url], (err, out) => {
      if (err !== null) { reject(err); return }
      const [status, bytes] = out.split(' ').map(Number)
      resolve({ status: status ?? 0, bytes: bytes ?? 0 })
    })
  })
}

async function measured (origin: string, what: string, path: string, args: readonly string[] = []): Promise<void> {
  const probe = watch()
  const asked = performance.now()
  const cpu = process.cpuUsage()
  let finished = false
  const health = poll(`${origin}/healthz`, () => finished)
  const res = await curl(`${origin}${path}`, args)
  finished = true
  const { answers, slowestMs } = await health
  const used = process.cpuUsage(cpu)
  const { maxGapMs, gapCpuMs, maxDelayMs, ticks } = probe.stop()
  console.log(`${what}: ${res.status}, ${res.bytes} bytes in ${(performance.now() - asked).toFixed(0)} ms (CPU ${((used.user + used.system) / 1000).toFixed(0)} ms); ` +
    `longest block: probe ${maxGapMs.toFixed(0)} ms (CPU ${gapCpuMs.toFixed(0)} ms), monitorEventLoopDelay ${maxDelayMs.toFixed(0)} ms over ${ticks} ticks; /healthz answered ${answers} times, slowest ${slowestMs.toFixed(0)} ms`)
}

const query = ['-H', 'content-type: application/json', '--data', JSON.stringify({ query: '{ c0(first: 1) { nodes { id field0 } } }' })]
const app = await buildServer(makeConfig({ logLevel: 'silent', port: 0, collections: fromFile(file, '--collections'), connections: { handlerTimeoutMs: 0 } }))
try {
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no TCP port')
  const origin = `http://127.0.0.1:${address.port}`
  console.log(`${count} collections × ${width} string fields`)
  await measured(origin, 'first GraphQL query', '/graphql', query)
  await measured(origin, 'second GraphQL query', '/graphql', query)
  await measured(origin, 'the SDL', '/graphql/schema.graphql')
} finally {
  await app.close()
  rmSync(dir, { recursive: true, force: true })
}
