/**
 * npm run bench: every server runs in its own child process, the load comes
 * from autocannon in this one, all on 127.0.0.1 with bounded durations. Each
 * scenario prints requests/s, p99 latency and the ratio to its baseline
 * measured in the same run — absolute numbers vary by machine, ratios less so.
 *
 *   npm run bench [-- --duration 5 --connections 50 --rounds 2 --only students,addresses,albums]
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { ADDRESS_BODY, ALBUMS_BODY, ALBUMS_QUERY, STUDENT_BODY } from './servers/shared.js'

export interface Target {
  /** Row label. */
  name: string
  /** Module under bench/ that starts a server and prints `LISTENING <port>`. */
  script: string
  args?: string[]
  env?: NodeJS.ProcessEnv
}

export interface Scenario {
  name: string
  method: 'GET' | 'POST'
  path: string
  body?: string
  headers?: Record<string, string>
  /** The first target is the baseline every ratio is taken against. */
  targets: Target[]
  /** Optional check of one response before measuring, so no scenario measures an error page. */
  expect?: (status: number, body: string) => boolean
}

export interface Row { scenario: string, target: string, rps: number, p99: number, ratio: number, errors: number }

const HERE = fileURLToPath(new URL('.', import.meta.url))

async function startTarget (target: Target): Promise<{ child: ChildProcess, origin: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', `${HERE}${target.script}`, ...(target.args ?? [])], {
    env: { ...process.env, LOG_LEVEL: 'silent', ...target.env },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  const port = await new Promise<number>((resolve, reject) => {
    let out = ''
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString()
      const m = /LISTENING (\d+)/.exec(out)
      if (m !== null) resolve(Number(m[1]))
    })
    child.on('exit', (code) => reject(new Error(`${target.name} exited with ${String(code)}`)))
  })
  return { child, origin: `http://127.0.0.1:${port}` }
}

async function measure (origin: string, s: Scenario, duration: number, connections: number): Promise<autocannon.Result> {
  const opts = { url: `${origin}${s.path}`, method: s.method, body: s.body, headers: s.headers, connections, pipelining: 1 }
  await autocannon({ ...opts, duration: 1 }) // warm-up: JIT, caches
  return await autocannon({ ...opts, duration })
}

/**
 * Measures every target of every scenario `rounds` times, alternating the
 * targets, and keeps each target's best round: noise from other work on the
 * machine only ever lowers a figure, so the best is the fairest comparison.
 */
export async function runScenarios (scenarios: Scenario[], duration: number, connections: number, rounds = 2): Promise<Row[]> {
  const rows: Row[] = []
  for (const s of scenarios) {
    const best = new Map<string, { rps: number, p99: number, errors: number }>()
    for (let round = 0; round < rounds; round++) {
      for (const target of s.targets) {
        const { child, origin } = await startTarget(target)
        try {
          if (s.expect !== undefined) {
            const res = await fetch(`${origin}${s.path}`, { method: s.method, body: s.body, headers: s.headers })
            const text = await res.text()
            if (!s.expect(res.status, text)) throw new Error(`${s.name} / ${target.name}: unexpected answer ${res.status} ${text.slice(0, 200)}`)
          }
          const r = await measure(origin, s, duration, connections)
          const rps = r.requests.average
          const previous = best.get(target.name)
          if (previous === undefined || rps > previous.rps) best.set(target.name, { rps, p99: r.latency.p99, errors: r.errors + r.non2xx })
          process.stderr.write(`  ${s.name} · ${target.name} · round ${round + 1}: ${Math.round(rps)} req/s\n`)
        } finally {
          child.kill('SIGKILL')
        }
      }
    }
    const baseline = best.get(s.targets[0]?.name ?? '')?.rps ?? 1
    for (const target of s.targets) {
      const b = best.get(target.name)
      if (b !== undefined) rows.push({ scenario: s.name, target: target.name, rps: b.rps, p99: b.p99, ratio: b.rps / baseline, errors: b.errors })
    }
  }
  return rows
}

export function printTable (rows: Row[]): void {
  const header = ['scenario', 'server', 'req/s', 'p99 ms', 'ratio', 'errors']
  const lines = rows.map((r) => [r.scenario, r.target, String(Math.round(r.rps)), String(r.p99), `${r.ratio.toFixed(2)}x`, String(r.errors)])
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)))
  const fmt = (cells: string[]): string => '| ' + cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ') + ' |'
  console.log(fmt(header))
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|')
  for (const l of lines) console.log(fmt(l))
}

export const studentRead: Scenario = {
  name: 'GET /students/0',
  method: 'GET',
  path: '/students/0',
  targets: [
    { name: 'node:http (same bytes)', script: 'servers/node-http.ts' },
    { name: 'fastify alone', script: 'servers/fastify.ts' },
    { name: 'express', script: 'servers/express.ts' },
    { name: 'rqs (default config)', script: 'servers/rqs.ts' }
  ],
  expect: (status, body) => status === 200 && body === STUDENT_BODY
}

export const addressRead: Scenario = {
  name: 'GET /addresses/1',
  method: 'GET',
  path: '/addresses/1',
  targets: [
    { name: 'node:http (same bytes)', script: 'servers/node-http.ts', env: { BENCH_PATH: '/addresses/1', BENCH_BODY: ADDRESS_BODY } },
    { name: 'rqs (default config)', script: 'servers/rqs.ts' }
  ],
  expect: (status, body) => status === 200 && body === ADDRESS_BODY
}

export const albumsQuery: Scenario = {
  name: 'POST /graphql albums',
  method: 'POST',
  path: '/graphql',
  body: ALBUMS_QUERY,
  headers: { 'content-type': 'application/json' },
  targets: [
    { name: 'node:http (same bytes)', script: 'servers/node-http.ts', env: { BENCH_PATH: '/graphql', BENCH_BODY: ALBUMS_BODY } },
    { name: 'apollo server 5', script: 'servers/apollo.ts' },
    { name: 'rqs (default config)', script: 'servers/rqs.ts' }
  ],
  expect: (status, body) => status === 200 && JSON.parse(body).data.albums.length === 3
}

/** Scenario groups, by name for --only. */
export const GROUPS: Record<string, () => Promise<Scenario[]>> = {
  students: async () => [studentRead],
  addresses: async () => [addressRead],
  albums: async () => [albumsQuery]
}

async function main (): Promise<void> {
  const { values } = parseArgs({
    options: { duration: { type: 'string', default: '5' }, connections: { type: 'string', default: '50' }, rounds: { type: 'string', default: '2' }, only: { type: 'string' } }
  })
  const duration = Number(values.duration)
  const connections = Number(values.connections)
  const names = values.only === undefined ? Object.keys(GROUPS) : values.only.split(',')
  const scenarios: Scenario[] = []
  for (const n of names) {
    const group = GROUPS[n]
    if (group === undefined) throw new Error(`unknown group ${n}; known: ${Object.keys(GROUPS).join(', ')}`)
    scenarios.push(...await group())
  }
  const rounds = Number(values.rounds)
  console.log(`rqs bench: best of ${rounds} rounds of ${duration}s per server (after 1s warm-up), ${connections} connections, node ${process.version}`)
  printTable(await runScenarios(scenarios, duration, connections, rounds))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
