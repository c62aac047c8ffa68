/**
 * The load generator: wrk when installed (one thread, a Lua script for the
 * method, body and headers, and a `done` hook that prints its figures as
 * JSON), else autocannon in a worker thread of a child process. Either runs
 * on the load core. Every run is bounded by its duration, or in quick mode by
 * a request count; the server's and the generator's CPU use over the run are
 * sampled from /proc so a reader can tell which side was the limit.
 */
import { spawnSync } from 'node:child_process'
import { Agent, request as httpRequest } from 'node:http'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { percentile } from './stats.js'
import { BENCH_DIR, LOAD_CPU, cpuSeconds, startCommand } from './procs.js'

export interface LoadRequest {
  method: string
  /** Path and query, e.g. `/students/0`. */
  path: string
  body?: string
  headers?: Record<string, string>
}

export interface LoadOptions {
  connections: number
  durationSec: number
  /**
   * Quick mode: instead of a timed run of the generator, this many requests
   * from this process (`probe`) — it proves the row works, its figures mean nothing.
   */
  maxRequests?: number
}

export interface LoadResult {
  requests: number
  seconds: number
  rps: number
  p50Ms: number
  p99Ms: number
  /** Answers outside 2xx/3xx, plus socket errors and timeouts. */
  errors: number
  /** Share of one core the server used during the run (1 = its core was saturated). */
  serverCpu?: number
  /**
   * Server CPU time per request, in µs: what a request costs whatever share
   * of its core the server got, so it holds up better than req/s on a busy machine.
   */
  cpuUsPerRequest?: number
  /** Share of one core the generator used. */
  generatorCpu?: number
}

export const WRK = spawnSync('wrk', ['-v'], { encoding: 'utf8' })
const wrkVersion = /wrk (\S+)/.exec(`${WRK.stdout ?? ''}${WRK.stderr ?? ''}`)?.[1]
export const GENERATOR = wrkVersion !== undefined ? `wrk ${wrkVersion} (-t1)` : 'autocannon (worker thread)'

const scriptDir = mkdtempSync(join(tmpdir(), 'rqs-bench-'))
process.once('exit', () => { rmSync(scriptDir, { recursive: true, force: true }) })
let scripts = 0

/** A Lua string literal that holds any text (long brackets with a level the text does not contain). */
function luaString (text: string): string {
  let level = ''
  while (text.includes(`]${level}]`)) level += '='
  return `[${level}[${text}]${level}]`
}

function wrkScript (request: LoadRequest): string {
  const lines = [`wrk.method = ${luaString(request.method)}`]
  if (request.body !== undefined) lines.push(`wrk.body = ${luaString(request.body)}`)
  for (const [name, value] of Object.entries(request.headers ?? {})) lines.push(`wrk.headers[ ${luaString(name)} ] = ${luaString(value)}`)
  lines.push(
    'done = function (s, latency)',
    '  io.write(string.format(\'WRKJSON {"requests":%d,"duration":%d,"status":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"p50":%d,"p99":%d}\\n\',',
    '    s.requests, s.duration, s.errors.status, s.errors.connect, s.errors.read, s.errors.write, s.errors.timeout, latency:percentile(50), latency:percentile(99)))',
    'end'
  )
  const file = join(scriptDir, `load-${scripts++}.lua`)
  writeFileSync(file, lines.join('\n') + '\n')
  return file
}

interface Raw { requests: number, seconds: number, p50Ms: number, p99Ms: number, errors: number }

function runWrk (origin: string, request: LoadRequest, opts: LoadOptions): { pid: number, result: Promise<Raw> } {
  const script = wrkScript(request)
  const args = ['-t1', `-c${opts.connections}`, `-d${Math.max(1, Math.round(opts.durationSec))}s`, '--timeout', '10s', '-s', script, `${origin}${request.path}`]
  const { pid, done } = startCommand('wrk', args, LOAD_CPU)
  return {
    pid,
    result: done.then(({ stdout, stderr, code }) => {
      const line = stdout.split('\n').find((l) => l.startsWith('WRKJSON '))
      if (line === undefined) throw new Error(`wrk failed (exit ${String(code)}): ${stderr}${stdout}`)
      const j = JSON.parse(line.slice(8)) as Record<string, number>
      return {
        requests: j.requests!,
        seconds: j.duration! / 1e6,
        p50Ms: j.p50! / 1000,
        p99Ms: j.p99! / 1000,
        errors: j.status! + j.connect! + j.read! + j.write! + j.timeout!
      }
    })
  }
}

function runAutocannon (origin: string, request: LoadRequest, opts: LoadOptions): { pid: number, result: Promise<Raw> } {
  const config = {
    url: `${origin}${request.path}`, method: request.method, body: request.body, headers: request.headers,
    connections: opts.connections, duration: opts.durationSec, amount: opts.maxRequests
  }
  const { pid, done } = startCommand(process.execPath, ['--import', 'tsx', `${BENCH_DIR}lib/autocannon-child.ts`, JSON.stringify(config)], LOAD_CPU)
  return {
    pid,
    result: done.then(({ stdout, stderr, code }) => {
      const line = stdout.split('\n').find((l) => l.startsWith('ACJSON '))
      if (line === undefined) throw new Error(`autocannon failed (exit ${String(code)}): ${stderr}`)
      return JSON.parse(line.slice(7)) as Raw
    })
  }
}

/** `count` requests over `connections` keep-alive connections from this process (quick mode). */
export async function probe (origin: string, request: LoadRequest, connections: number, count: number): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections })
  const latencies: number[] = []
  let errors = 0
  let sent = 0
  const start = performance.now()
  const one = (): Promise<void> => new Promise((resolve, reject) => {
    const t = performance.now()
    const req = httpRequest(`${origin}${request.path}`, { method: request.method, headers: request.headers, agent }, (res) => {
      res.resume()
      res.on('end', () => {
        latencies.push(performance.now() - t)
        if ((res.statusCode ?? 0) >= 400) errors++
        resolve()
      })
    })
    req.on('error', reject)
    req.end(request.body)
  })
  try {
    await Promise.all(Array.from({ length: Math.min(connections, count) }, async () => {
      while (sent < count) { sent++; await one() }
    }))
  } finally { agent.destroy() }
  const seconds = (performance.now() - start) / 1000
  return { requests: count, seconds, rps: count / seconds, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), errors }
}

/** One bounded load run against `origin`; samples the CPU of `serverPid` and of the generator. */
export async function load (origin: string, request: LoadRequest, opts: LoadOptions, serverPid?: number): Promise<LoadResult> {
  if (opts.maxRequests !== undefined) return await probe(origin, request, Math.min(opts.connections, 10), opts.maxRequests)
  const serverStart = serverPid === undefined ? Number.NaN : cpuSeconds(serverPid)
  const wallStart = performance.now()
  const run = wrkVersion !== undefined ? runWrk(origin, request, opts) : runAutocannon(origin, request, opts)
  // The generator's own CPU, away from its start-up and its end.
  let generatorCpu: number | undefined
  const margin = Math.min(0.3, opts.durationSec / 4) * 1000
  let g0 = Number.NaN
  let t0 = 0
  const first = setTimeout(() => { g0 = cpuSeconds(run.pid); t0 = performance.now() }, margin)
  const second = setTimeout(() => {
    const used = cpuSeconds(run.pid) - g0
    if (Number.isFinite(used)) generatorCpu = used / ((performance.now() - t0) / 1000)
  }, opts.durationSec * 1000 - margin)
  try {
    const raw = await run.result
    const wall = (performance.now() - wallStart) / 1000
    const used = serverPid === undefined ? Number.NaN : cpuSeconds(serverPid) - serverStart
    return {
      ...raw,
      rps: raw.requests / raw.seconds,
      serverCpu: Number.isFinite(used) ? used / wall : undefined,
      cpuUsPerRequest: Number.isFinite(used) && raw.requests > 0 ? (used * 1e6) / raw.requests : undefined,
      generatorCpu
    }
  } finally {
    clearTimeout(first)
    clearTimeout(second)
  }
}
