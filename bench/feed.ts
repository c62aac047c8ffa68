/**
 * The change feed's targets (issue 14), measured on this machine:
 *
 * 1. A write through instance A reaches a subscriber of instance B within
 *    100 ms at p99 (PostgreSQL): two `rqs serve` processes on one fresh
 *    database, paced POSTs to A, one GET /events on B; the latency of each
 *    write is from A's answer (the commit) to the event's arrival at B, and
 *    also from sending the request. Needs DATABASE_URL.
 * 2. 10 000 idle subscribers on one instance cost ≤ 100 MB and slow
 *    GET /students/{id} by ≤ 10 %: the server's RSS and CPU time (from
 *    /proc) and wrk's rate with no subscriber and with 10 000 connected.
 *
 *   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:feed
 *   npm run bench:feed -- --writes 200 --subscribers 2000   (smaller)
 *
 * rqs runs from dist/ under plain node (as `npm start`), pinned to CPU 0
 * with taskset when there are two cores; wrk runs on CPU 1. Nothing here
 * asserts: it prints the figures and whether each target is met.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import http from 'node:http'
import net from 'node:net'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { randomBytes } from 'node:crypto'
import { createParser } from 'eventsource-parser'
import pg from 'pg'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const { values: args } = parseArgs({
  options: {
    writes: { type: 'string', default: '1000' },
    rate: { type: 'string', default: '50' },
    subscribers: { type: 'string', default: '10000' },
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' }
  }
})
const WRITES = Number(args.writes)
const RATE = Number(args.rate)
const SUBSCRIBERS = Number(args.subscribers)
const DURATION_S = Number(args.duration)
const ROUNDS = Number(args.rounds)

const pinning = spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0 && availableParallelism() >= 2
const pinned = (cpu: number, command: string, argv: string[]): [string, string[]] => pinning ? ['taskset', ['-c', String(cpu), command, ...argv]] : [command, argv]
const children = new Set<ChildProcess>()
process.on('exit', () => { for (const child of children) child.kill('SIGKILL') })

interface Server { origin: string, pid: number, stop: () => Promise<void> }

async function serve (argv: string[]): Promise<Server> {
  const [command, rest] = pinned(0, process.execPath, [`${ROOT}/dist/bin.js`, 'serve', '--port', '0', '--log-level', 'info', ...argv])
  const env = { ...process.env }
  delete env.DATABASE_URL // the store is named by --store only
  const child = spawn(command, rest, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env })
  children.add(child)
  let err = ''
  child.stderr?.on('data', (c: Buffer) => { err += c.toString() })
  const origin = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString()
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m !== null) resolve(m[1] as string)
    })
    child.once('exit', (code) => { reject(new Error(`rqs exited (${String(code)}): ${err}`)) })
  })
  // With taskset the child is taskset's exec of node: the same pid.
  return {
    origin,
    pid: child.pid as number,
    stop: async () => {
      child.kill('SIGTERM')
      await new Promise((resolve) => child.once('close', resolve))
      children.delete(child)
    }
  }
}

function percentile (sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number
}

async function post (url: string, body: object): Promise<{ status: number, text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: res.status, text: await res.text() }
}

/** Part 1: the latency from a write on A to its event on B. */
async function crossInstanceLatency (adminUrl: string): Promise<void> {
  const name = `rqs_bench_feed_${randomBytes(4).toString('hex')}`
  const admin = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: adminUrl })
    await client.connect()
    try { await client.query(sql) } finally { await client.end() }
  }
  await admin(`CREATE DATABASE ${name}`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  const servers: Server[] = []
  try {
    servers.push(await serve(['--store', url.toString()]), await serve(['--store', url.toString()]))
    const [a, b] = servers as [Server, Server]
    const arrived = new Map<number, number>()
    let ready = false
    const parser = createParser({
      onEvent: (event) => {
        if (event.event === 'ready') ready = true
        if (event.event === 'students.created') arrived.set((JSON.parse(event.data) as { id: number }).id, performance.now())
      }
    })
    const req = http.get(`${b.origin}/events?services=students`, { headers: { accept: 'text/event-stream' }, agent: false }, (res) => {
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { parser.feed(chunk) })
    })
    req.on('error', () => {})
    while (!ready) await new Promise((resolve) => setTimeout(resolve, 10))

    const sent = new Map<number, { start: number, answered: number }>()
    const pending: Array<Promise<void>> = []
    const t0 = performance.now()
    for (let i = 0; i < WRITES; i++) {
      const due = t0 + (i * 1000) / RATE
      const wait = due - performance.now()
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      pending.push((async () => {
        const start = performance.now()
        const { status, text } = await post(`${a.origin}/students`, { firstName: 'Feed', lastName: `n${i}`, age: i % 100 })
        if (status !== 201) throw new Error(`POST answered ${status}: ${text}`)
        sent.set((JSON.parse(text) as { body: { id: number } }).body.id, { start, answered: performance.now() })
      })())
    }
    await Promise.all(pending)
    const deadline = performance.now() + 10_000
    while (arrived.size < sent.size && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    req.destroy()

    const fromAnswer: number[] = []
    const fromRequest: number[] = []
    for (const [id, { start, answered }] of sent) {
      const at = arrived.get(id)
      if (at === undefined) continue
      fromAnswer.push(Math.max(0, at - answered))
      fromRequest.push(at - start)
    }
    fromAnswer.sort((x, y) => x - y)
    fromRequest.sort((x, y) => x - y)
    const fmt = (ms: number): string => `${ms.toFixed(1)} ms`
    console.log(`\n## A → B over PostgreSQL (${WRITES} POST /students on A at ${RATE}/s, one subscriber on B)\n`)
    console.log('| measured from | p50 | p99 | max | events received |')
    console.log('|---|---|---|---|---|')
    console.log(`| A's answer (commit) | ${fmt(percentile(fromAnswer, 50))} | ${fmt(percentile(fromAnswer, 99))} | ${fmt(fromAnswer.at(-1) ?? NaN)} | ${arrived.size} / ${sent.size} |`)
    console.log(`| sending the request | ${fmt(percentile(fromRequest, 50))} | ${fmt(percentile(fromRequest, 99))} | ${fmt(fromRequest.at(-1) ?? NaN)} | |`)
    const p99 = percentile(fromRequest, 99)
    console.log(`\nTarget p99 ≤ 100 ms (from sending the write): ${p99 <= 100 ? 'met' : 'NOT met'} (${fmt(p99)}); every event arrived: ${arrived.size === sent.size ? 'yes' : 'NO'}`)
  } finally {
    for (const server of servers) await server.stop()
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  }
}

/** RSS in bytes and user+system CPU time in ms of a process, from /proc. */
function usage (pid: number): { rss: number, cpuMs: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  const ticks = Number(fields[11]) + Number(fields[12])
  return { rss, cpuMs: (ticks * 1000) / 100 }
}

/** wrk GET `url` for DURATION_S seconds on the load core: requests per second and p99 latency (ms). */
function wrk (url: string, seconds = DURATION_S): { rate: number, p99: number } {
  const [command, argv] = pinned(1, 'wrk', ['-t1', '-c32', `-d${seconds}s`, '--latency', url])
  const out = spawnSync(command, argv, { encoding: 'utf8' }).stdout
  const rate = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN)
  const m = /99%\s+([\d.]+)(us|ms|s)/.exec(out)
  const p99 = m === null ? NaN : Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1)
  return { rate, p99 }
}

/** Opens `count` idle GET /events connections (raw sockets, reading and dropping what arrives). */
async function idleSubscribers (origin: string, count: number): Promise<net.Socket[]> {
  const { hostname, port } = new URL(origin)
  const sockets: net.Socket[] = []
  const request = `GET /events HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n\r\n`
  for (let i = 0; i < count; i += 200) {
    await Promise.all(Array.from({ length: Math.min(200, count - i) }, async () => await new Promise<void>((resolve, reject) => {
      const socket = net.connect(Number(port), hostname)
      socket.once('error', reject)
      socket.once('data', () => { resolve() }) // the headers and the retry hint: subscribed
      socket.on('data', () => {})
      socket.write(request)
      sockets.push(socket)
    })))
  }
  return sockets
}

/** Part 2: what 10 000 idle subscribers cost one instance. */
async function idleCost (): Promise<void> {
  // Every subscriber comes from this one address, and they are more than the default caps allow
  // (8 streams a client; 2 048 streams, half of the 4 096 connections): raise both.
  const server = await serve(['--events-max-streams-per-client', '0', '--max-connections', String(2 * SUBSCRIBERS + 100)])
  try {
    const create = await post(`${server.origin}/students`, { firstName: 'Ada', lastName: 'Lovelace', age: 36 })
    if (create.status !== 201) throw new Error(`seed failed: ${create.text}`)
    const target = `${server.origin}/students/0`
    const pause = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }
    wrk(target, 3) // warm-up
    await pause(2000)
    const idle0 = usage(server.pid)
    let sockets = await idleSubscribers(server.origin, SUBSCRIBERS)
    await pause(3000)
    const idle1 = usage(server.pid)
    const open = sockets.filter((s) => !s.destroyed).length
    // Idle CPU over a window that spans a heartbeat (every 15 s).
    const quietMs = 20_000
    await pause(quietMs)
    const idle2 = usage(server.pid)
    for (const socket of sockets) socket.destroy()
    await pause(2000)

    // Paired rounds (without, then with the subscribers connected again): on a shared machine the
    // rate drifts between rounds, so each round is compared with its own partner.
    const pairs: Array<{ without: { rate: number, p99: number }, with: { rate: number, p99: number } }> = []
    for (let round = 0; round < ROUNDS; round++) {
      const without = wrk(target)
      sockets = await idleSubscribers(server.origin, SUBSCRIBERS)
      await pause(2000)
      pairs.push({ without, with: wrk(target) })
      for (const socket of sockets) socket.destroy()
      await pause(2000)
    }

    const median = (values: number[]): number => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] as number
    const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`
    const delta = idle1.rss - idle0.rss
    const slowdown = 1 - median(pairs.map((p) => p.with.rate / p.without.rate))
    console.log(`\n## ${SUBSCRIBERS} idle subscribers on one instance (memory store; wrk -t1 -c32 ${DURATION_S} s GET /students/0, ${ROUNDS} paired rounds)\n`)
    console.log('| round | without: rate, p99 | with subscribers: rate, p99 | with ÷ without |')
    console.log('|---|---|---|---|')
    pairs.forEach((p, i) => {
      console.log(`| ${i + 1} | ${p.without.rate.toFixed(0)}/s, ${p.without.p99.toFixed(1)} ms | ${p.with.rate.toFixed(0)}/s, ${p.with.p99.toFixed(1)} ms | ${(p.with.rate / p.without.rate).toFixed(2)} |`)
    })
    console.log(`\nServer RSS: ${mb(idle0.rss)} without subscribers, ${mb(idle1.rss)} with ${open} (${mb(idle2.rss)} ${quietMs / 1000} s later, after a heartbeat)`)
    console.log(`RSS for the subscribers: ${mb(delta)} (${(delta / SUBSCRIBERS / 1024).toFixed(1)} KB each); CPU while they idle: ${((idle2.cpuMs - idle1.cpuMs) / quietMs * 100).toFixed(2)} % of a core over ${quietMs / 1000} s`)
    console.log(`Targets: ≤ 100 MB: ${delta <= 100 * 1024 * 1024 ? 'met' : 'NOT met'}; GET slowed by ≤ 10 % (median of the paired ratios): ${slowdown <= 0.1 ? 'met' : 'NOT met'} (${(slowdown * 100).toFixed(1)} %)`)
  } finally {
    await server.stop()
  }
}

console.log(`rqs change feed bench — ${pinning ? 'server on CPU 0, wrk on CPU 1' : 'unpinned'}; dist/ as built`)
const databaseUrl = process.env.DATABASE_URL
if (databaseUrl === undefined || databaseUrl === '') console.log('\nA → B over PostgreSQL: skipped (set DATABASE_URL)')
else await crossInstanceLatency(databaseUrl)
await idleCost()
