/**
 * SQLite under many writers (issue 20): `POST /students` on the SQLite store
 * at 200 connections. The rqs server (bench/servers/rqs.mjs, the compiled
 * dist/ — run `npm run build` first) runs on CPU 0 with a
 * fresh database file per round; the load runs on CPU 1. Prints, per round
 * and as medians: requests/s, p50, p99 and max latency, errors.
 *
 *   Max rate (wrk -t1 -c200):   npx tsx bench/sqlite-writers.ts --rounds 3 --duration 10
 *   Paced (wrk, think time):    npx tsx bench/sqlite-writers.ts --rate 400
 *   Paced (autocannon):         npx tsx bench/sqlite-writers.ts --rate 400 --autocannon
 *
 * A rate compares two builds at the same load (wrk2 is not installed). With
 * wrk each connection waits a random 0–2 × connections/rate seconds after
 * each answer (wrk's `delay` hook), so the offered rate is about `rate` while
 * the server keeps up; autocannon's overallRate is the other way to pace, but
 * its own event loop on a shared core adds tens of ms to what it measures.
 * The database file lives in --dir (default: the OS temporary folder).
 * --warmup N runs the same load for N seconds first, unmeasured.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { BENCH_DIR, LOAD_CPU, cpuSeconds, startCommand, startServer } from './lib/procs.js'
import { ADDRESS_INPUT, STUDENT_INPUT } from './servers/shared.js'

interface Round { rps: number, p50Ms: number, p99Ms: number, maxMs: number, errors: number, serverCpu: number }

// Run as the autocannon child (on the load core): one worker thread's figures as one JSON line.
if (process.argv[2] === '--autocannon-child') {
  const { default: autocannon } = await import('autocannon')
  const config = JSON.parse(process.argv[3]!) as Record<string, unknown>
  const r = await autocannon({ ...config, workers: 1, pipelining: 1 } as never)
  process.stdout.write(`ACJSON ${JSON.stringify({
    rps: r.requests.total / r.duration, p50Ms: r.latency.p50, p99Ms: r.latency.p99, maxMs: r.latency.max, errors: r.non2xx + r.errors + r.timeouts
  })}\n`)
  process.exit(0)
}

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '200' },
    rate: { type: 'string' },
    autocannon: { type: 'boolean', default: false },
    dir: { type: 'string' },
    warmup: { type: 'string', default: '0' }
  }
})
const rounds = Number(values.rounds)
const duration = Number(values.duration)
const connections = Number(values.connections)
const warmup = Number(values.warmup)
const rate = values.rate === undefined ? undefined : Number(values.rate)
const body = JSON.stringify(STUDENT_INPUT)
const work = mkdtempSync(join(values.dir ?? tmpdir(), 'rqs-sqlite-writers-'))
process.once('exit', () => { rmSync(work, { recursive: true, force: true }) })

// wrk's figures from a `done` hook, exact (µs), rather than parsed from its rounded text.
const script = join(work, 'post.lua')
writeFileSync(script, [
  'wrk.method = "POST"',
  `wrk.body = [[${body}]]`,
  'wrk.headers["Content-Type"] = "application/json"',
  ...(rate === undefined ? [] : [`delay = function () return math.random() * ${(2 * 1000 * connections / rate).toFixed(3)} end`]),
  'done = function (s, latency)',
  '  io.write(string.format(\'WRKJSON {"requests":%d,"duration":%d,"errors":%d,"p50":%d,"p99":%d,"max":%d}\\n\',',
  '    s.requests, s.duration, s.errors.status + s.errors.connect + s.errors.read + s.errors.write + s.errors.timeout,',
  '    latency:percentile(50), latency:percentile(99), latency.max))',
  'end'
].join('\n') + '\n')

async function loadRun (origin: string, seconds = duration): Promise<Omit<Round, 'serverCpu'>> {
  if (rate === undefined || values.autocannon !== true) {
    const { stdout, stderr } = await startCommand('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', script, `${origin}/students`], LOAD_CPU).done
    const line = stdout.split('\n').find((l) => l.startsWith('WRKJSON '))
    if (line === undefined) throw new Error(`wrk failed: ${stderr}${stdout}`)
    const j = JSON.parse(line.slice(8)) as Record<string, number>
    return { rps: j.requests! / (j.duration! / 1e6), p50Ms: j.p50! / 1000, p99Ms: j.p99! / 1000, maxMs: j.max! / 1000, errors: j.errors! }
  }
  const config = { url: `${origin}/students`, method: 'POST', body, headers: { 'content-type': 'application/json' }, connections, duration: seconds, overallRate: rate }
  const { stdout, stderr } = await startCommand(process.execPath, ['--import', 'tsx', `${BENCH_DIR}sqlite-writers.ts`, '--autocannon-child', JSON.stringify(config)], LOAD_CPU).done
  const line = stdout.split('\n').find((l) => l.startsWith('ACJSON '))
  if (line === undefined) throw new Error(`autocannon failed: ${stderr}`)
  return JSON.parse(line.slice(7)) as Omit<Round, 'serverCpu'>
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const results: Round[] = []
for (let i = 0; i < rounds; i++) {
  const file = join(work, `round-${i}.db`)
  const server = await startServer({
    label: 'rqs-sqlite',
    script: 'rqs.mjs',
    env: { BENCH_STORE: `sqlite:${file}`, BENCH_STUDENTS: '1', BENCH_STUDENT_INPUT: JSON.stringify(STUDENT_INPUT), BENCH_ADDRESS_INPUT: JSON.stringify(ADDRESS_INPUT) }
  })
  try {
    // The first second of a fresh server (lazy compilation, the first 200 connections at once) is a stall of
    // several hundred ms that puts 200 requests, ~1 % of a 10 s run, above the p99: --warmup leaves it out.
    if (warmup > 0) await loadRun(server.origin, warmup)
    const cpu0 = cpuSeconds(server.pid)
    const t0 = performance.now()
    const r = await loadRun(server.origin)
    const serverCpu = (cpuSeconds(server.pid) - cpu0) / ((performance.now() - t0) / 1000)
    results.push({ ...r, serverCpu })
    const f = (x: number): string => x.toFixed(1)
    console.log(`round ${i + 1}: ${f(r.rps)} req/s  p50 ${f(r.p50Ms)} ms  p99 ${f(r.p99Ms)} ms  max ${f(r.maxMs)} ms  errors ${r.errors}  server CPU ${serverCpu.toFixed(2)}`)
  } finally {
    await server.stop()
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true })
  }
}
const m = (k: keyof Round): string => median(results.map((r) => r[k])).toFixed(1)
console.log(`median of ${rounds}${warmup > 0 ? `, after ${warmup} s warm-up` : ''} (${rate === undefined ? `wrk -t1 -c${connections} -d${duration}s` : values.autocannon === true ? `autocannon -c${connections} overallRate ${rate}/s ${duration}s` : `wrk -t1 -c${connections} -d${duration}s paced to ${rate}/s`}): ` +
  `${m('rps')} req/s  p50 ${m('p50Ms')} ms  p99 ${m('p99Ms')} ms  max ${m('maxMs')} ms  errors ${m('errors')}`)
