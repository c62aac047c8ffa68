// @ts-check
// Webhook delivery on SQLite, builds or formats alternating: the webhooks row's backlog and paced phases
// (bench/rows/webhooks.ts) by hand, one fresh server a round per variant, its CPU read from /proc.
//
//   taskset -c 1 node bench/webhook-ab.mjs [--rounds 4] [--backlog 10000] [--paced 3000] [--perf DIR] VARIANT...
//
// A VARIANT is `<format>:<root>` (the root of a built checkout; `.` for this one), format one of
//   bundle  the executable as npm start runs it: node <root>/dist/bin.js serve
//   esm     the same command line from tsc's ES modules: runExecutable of <root>/dist/executable.js
//   bench   the bench's own server script: <root>/bench/servers/rqs-declared.mjs (dist/server.js in process)
// Servers run pinned to core 0 with the bench's environment (NODE_ENV=production) and webhook options;
// the receiver and the load run in this process (pin it to core 1). Per round and variant: the CPU µs a
// delivered change of a 10 000-change backlog released at once, its events/s, and the p50/p99 from a
// change to its delivery while single writes arrive at 1 000/s (with the server's CPU a paced write, its
// delivery included). With --perf DIR the servers run with
// --perf-basic-prof and `perf record` samples each backlog's delivery alone, into DIR/<variant>-r<n>.data.
// With --syncs, `perf stat` counts the server's fsync and fdatasync calls in each phase (a disk sync a
// commit, on the event loop: ≈ 3 ms each on the host measured) and its pwrite64 calls (pages written).
import { Buffer } from 'node:buffer'
import { spawn } from 'node:child_process'
import console from 'node:console'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { Agent, createServer, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import process from 'node:process'
import { clearTimeout, setTimeout } from 'node:timers'
import { parseArgs } from 'node:util'

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '4' }, backlog: { type: 'string', default: '10000' }, paced: { type: 'string', default: '3000' }, perf: { type: 'string' }, syncs: { type: 'boolean' } }
})
const ROUNDS = Number(flags.rounds)
const BACKLOG = Number(flags.backlog)
const PACED = Number(flags.paced)
const RATE = 1000
const temp = mkdtempSync(join(tmpdir(), 'webhook-ab-'))
const collections = join(temp, 'items.json')
writeFileSync(collections, JSON.stringify({ collections: { items: { schema: { type: 'object', properties: { name: { type: 'string', maxLength: 100 }, n: { type: 'integer' } }, required: ['name', 'n'] } } } }))
const esmRunner = join(temp, 'esm-runner.mjs')
writeFileSync(esmRunner, "const { runExecutable } = await import(process.env.WEBHOOK_AB_EXECUTABLE)\nrunExecutable(process.argv.slice(2), process.env)\n")

const agent = new Agent({ keepAlive: true, maxSockets: 256 })
/** @returns {Promise<number>} the status */
function send (port, method, path, body) {
  return new Promise((ok, fail) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body))
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers: payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {} }, (res) => {
      res.resume()
      res.on('end', () => ok(res.statusCode ?? 0))
    })
    req.on('error', fail)
    req.end(payload)
  })
}

// ---------------------------------------------------------------- the receiver (as bench/lib/receiver.ts)
const arrivals = []
const latencies = []
let held
let waiter
const receiver = createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    const answer = () => {
      arrivals.push(performance.now())
      const at = Date.parse(JSON.parse(Buffer.concat(chunks).toString()).data?.at ?? '')
      latencies.push(Date.now() - at)
      res.statusCode = 204
      res.end()
      waiter?.()
    }
    if (held === undefined) answer()
    else held.push(answer)
  })
})
await new Promise((ok) => receiver.listen(0, '127.0.0.1', () => ok(undefined)))
const hookUrl = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (receiver.address()).port}/hook`
const release = () => { const h = held ?? []; held = undefined; for (const a of h) a() }
const waitFor = (n) => new Promise((ok, fail) => {
  const timer = setTimeout(() => fail(new Error(`${arrivals.length} of ${n} deliveries`)), 300_000)
  waiter = () => { if (arrivals.length >= n) { clearTimeout(timer); waiter = undefined; ok(undefined) } }
  waiter()
})

// ---------------------------------------------------------------- servers
const cpuSeconds = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}
let nextPort = 41000 + Math.floor(Math.random() * 1000) * 10

async function startServer (variant, tag) {
  const [format, rootArg] = variant.split(':')
  const root = resolve(rootArg ?? '.')
  const port = nextPort++
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    RQS_LOG_FORMAT: 'json',
    RQS_COLLECTIONS: collections,
    RQS_STORE: `sqlite:${join(temp, `${tag}.db`)}`,
    RQS_BODY_LIMIT: '64mb',
    RQS_WEBHOOKS: 'true',
    RQS_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
    RQS_WEBHOOK_TIMEOUT_MS: '300000',
    RQS_WEBHOOK_LEASE_MS: '600000',
    PORT: String(port),
    WEBHOOK_AB_EXECUTABLE: join(root, 'dist/executable.js')
  }
  const node = flags.perf === undefined ? [] : ['--perf-basic-prof']
  if (process.env.WEBHOOK_AB_CPU_PROF !== undefined) node.push('--cpu-prof', '--cpu-prof-dir', process.env.WEBHOOK_AB_CPU_PROF, '--cpu-prof-name', `${tag}.cpuprofile`)
  const script = format === 'bundle' ? [join(root, 'dist/bin.js'), 'serve'] : format === 'esm' ? [esmRunner, 'serve'] : [join(root, 'bench/servers/rqs-declared.mjs')]
  const child = spawn('taskset', ['-c', '0', process.execPath, ...node, ...script], { env, stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (d) => { out += d })
  if (format === 'bench') {
    await new Promise((ok) => { const check = () => { const m = /LISTENING (\d+)/.exec(out); if (m) { child.stdout.off('data', check); ok(undefined) } }; child.stdout.on('data', check) })
    return { child, port: Number(/LISTENING (\d+)/.exec(out)?.[1]) }
  }
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${variant} exited before it was ready`)
    try { if (await send(port, 'GET', '/healthz') === 200) return { child, port } } catch { /* not yet */ }
    await new Promise((ok) => setTimeout(ok, 50))
  }
}

/** Counts the fsync and fdatasync calls of `pid`, and its pwrite64 calls (SQLite's page writes, a few a commit), until the returned function is called (with --syncs). */
function countSyncs (pid) {
  if (flags.syncs !== true) return async () => ''
  const perf = spawn('perf', ['stat', '-x', ',', '-e', 'syscalls:sys_enter_fsync,syscalls:sys_enter_fdatasync,syscalls:sys_enter_pwrite64', '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] })
  let text = ''
  perf.stderr.on('data', (d) => { text += d })
  return async () => {
    const done = new Promise((ok) => perf.once('exit', ok))
    perf.kill('SIGINT')
    await done
    const count = (event) => text.split('\n').filter((line) => line.includes(event)).reduce((sum, line) => sum + (Number(line.split(',')[0]) || 0), 0)
    return `${count('fsync') + count('fdatasync')} syncs, ${count('pwrite64')} page writes`
  }
}

const percentile = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil(p / 100 * s.length) - 1)] }

async function round (variant, tag) {
  const { child, port } = await startServer(variant, tag)
  try {
    if (await send(port, 'POST', '/webhooks', { url: hookUrl, events: ['items.*'] }) !== 201) throw new Error('webhook not registered')
    // A first delivery, so connections and code are warm before the backlog.
    const mark0 = arrivals.length
    if (await send(port, 'POST', '/items', { name: 'warm', n: 0 }) !== 201) throw new Error('create failed')
    await waitFor(mark0 + 1)
    // The backlog: bulk creates while the receiver holds, then released.
    const start = arrivals.length
    held = []
    for (let done = 0; done < BACKLOG; done += 1000) {
      const status = await send(port, 'POST', '/items', Array.from({ length: Math.min(1000, BACKLOG - done) }, (_, i) => ({ name: 'bulk', n: done + i })))
      if (status !== 201) throw new Error(`bulk create: ${status}`)
    }
    const perf = flags.perf === undefined ? undefined : spawn('perf', ['record', '-q', '-e', 'cpu-clock', '-F', '4999', '-g', '-p', String(child.pid), '-o', join(flags.perf, `${tag}.data`)], { stdio: 'ignore' })
    if (perf !== undefined) await new Promise((ok) => setTimeout(ok, 500))
    const syncsOfBacklog = countSyncs(child.pid)
    await new Promise((ok) => setTimeout(ok, flags.syncs === true ? 300 : 0))
    const cpu0 = cpuSeconds(child.pid)
    const t0 = performance.now()
    release()
    await waitFor(start + BACKLOG)
    const backlogSyncs = await syncsOfBacklog()
    if (perf !== undefined) { const done = new Promise((ok) => perf.once('exit', ok)); perf.kill('SIGINT'); await done }
    const seconds = (arrivals[start + BACKLOG - 1] - t0) / 1000
    const cpuUs = (cpuSeconds(child.pid) - cpu0) * 1e6 / BACKLOG
    await new Promise((ok) => setTimeout(ok, 300))
    // Paced single writes.
    const mark = arrivals.length
    const pending = new Set()
    let sent = 0
    const p0 = performance.now()
    const syncsOfPaced = countSyncs(child.pid)
    const pacedCpu0 = cpuSeconds(child.pid)
    while (sent < PACED) {
      const due = Math.min(PACED, Math.floor((performance.now() - p0) / 1000 * RATE) + 1)
      while (sent < due && pending.size < 256) {
        const p = send(port, 'POST', '/items', { name: 'paced', n: sent++ }).finally(() => pending.delete(p))
        pending.add(p)
      }
      await new Promise((ok) => setTimeout(ok, 2))
    }
    await Promise.all(pending)
    const rate = PACED / ((performance.now() - p0) / 1000)
    await waitFor(mark + PACED)
    const pacedCpuUs = (cpuSeconds(child.pid) - pacedCpu0) * 1e6 / PACED
    const pacedSyncs = await syncsOfPaced()
    const ms = latencies.slice(mark)
    return { cpuUs, eventsPerSecond: BACKLOG / seconds, rate, pacedCpuUs, backlogSyncs, pacedSyncs, p50: percentile(ms, 50), p99: percentile(ms, 99) }
  } finally {
    const exited = new Promise((ok) => child.once('exit', ok))
    child.kill('SIGTERM')
    await exited
  }
}

const results = new Map(positionals.map((v) => [v, []]))
for (let r = 1; r <= ROUNDS; r++) {
  for (const variant of r % 2 === 1 ? positionals : [...positionals].reverse()) {
    const res = await round(variant, `${variant.replace(/\W+/g, '_')}-r${r}`)
    results.get(variant)?.push(res)
    const syncs = flags.syncs === true ? ` [backlog: ${res.backlogSyncs}; paced: ${res.pacedSyncs}]` : ''
    console.log(`round ${r} ${variant}: ${res.cpuUs.toFixed(0)} µs a change, ${res.eventsPerSecond.toFixed(0)} ev/s; paced ${res.rate.toFixed(0)} writes/s (${res.pacedCpuUs.toFixed(0)} µs a write and its delivery) p50 ${res.p50} ms p99 ${res.p99} ms${syncs}`)
  }
}
const range = (xs, d = 0) => `${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)}`
for (const [variant, rs] of results) {
  console.log(`${variant}: ${range(rs.map((x) => x.cpuUs))} µs a change, ${range(rs.map((x) => x.eventsPerSecond))} ev/s; p99 ${range(rs.map((x) => x.p99))} ms (p50 ${range(rs.map((x) => x.p50))}) at ${range(rs.map((x) => x.rate))} writes/s, ${range(rs.map((x) => x.pacedCpuUs))} µs a write and its delivery`)
}
agent.destroy()
receiver.close()
