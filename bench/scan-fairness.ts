/**
 * What long list scans cost other clients (issue 19, item 12), on the memory
 * store. `rqs serve --seed` holds N students in a child process; a probe
 * client reads single students back to back and records its latency, first
 * alone, then while S clients run searches and counts that read every
 * record (`q`, `contains`, `count=true`). Then C clients each ask for the
 * whole list as NDJSON and never read it: how much the server's resident
 * memory grows per such client. Bounded in time; loopback only.
 *
 *   npx tsx bench/scan-fairness.ts [--records 200000] [--seconds 8] [--scanners 8] [--stalled 20]
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { percentile } from './lib/stats.js'

const { values } = parseArgs({ options: { records: { type: 'string', default: '200000' }, seconds: { type: 'string', default: '8' }, scanners: { type: 'string', default: '8' }, stalled: { type: 'string', default: '20' } } })
const RECORDS = Number(values.records)
const SECONDS = Number(values.seconds)
const SCANNERS = Number(values.scanners)
const STALLED = Number(values.stalled)

const SCANS = [
  '/v2/students?q=zzz&count=true&limit=20', // found nowhere: every record read, twice (page and count)
  '/v2/students?lastName[contains]=SON&count=true&limit=20',
  '/v2/students?q=ada&sort=-age&limit=50',
  '/students?firstName[contains]=x&count=true&limit=10'
]

const dir = mkdtempSync(join(tmpdir(), 'rqs-scan-'))
const file = join(dir, 'students.ndjson')
const FIRST = ['Ada', 'Alan', 'Grace', 'Edsger', 'Barbara', 'Ken', 'Dennis', 'Margaret', 'Zoë', 'Łukasz', 'Σοφία', 'Jürgen']
let text = ''
for (let i = 0; i < RECORDS; i++) text += `{"id":${i},"firstName":"${FIRST[i % FIRST.length] as string}","lastName":"L${(i * 7919) % 20011}son","age":${i % 90}}\n`
writeFileSync(file, text)

const port = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const address = probe.address()
    probe.close(() => { resolve(typeof address === 'object' && address !== null ? address.port : 0) })
  })
})
const origin = `http://127.0.0.1:${port}`
const server = spawn(process.execPath, ['--import', 'tsx', 'src/bin.ts', 'serve', '--port', String(port), '--host', '127.0.0.1', '--seed', file], { stdio: ['ignore', 'ignore', 'inherit'] })
process.on('exit', () => { server.kill('SIGKILL') })
const rssKb = (): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid as number}/status`, 'utf8'))?.[1])

try {
  for (let tries = 0; ; tries++) {
    try { if ((await fetch(`${origin}/students/0`)).ok) break } catch { /* not listening yet */ }
    if (tries > 600) throw new Error('server did not start')
    await new Promise((resolve) => setTimeout(resolve, 200))
  }

  async function probe (seconds: number): Promise<number[]> {
    const latencies: number[] = []
    const until = Date.now() + seconds * 1000
    for (let i = 0; Date.now() < until; i++) {
      const started = performance.now()
      const res = await fetch(`${origin}/students/${(i * 7919) % RECORDS}`)
      await res.arrayBuffer()
      latencies.push(performance.now() - started)
    }
    return latencies
  }
  const show = (label: string, ms: number[]): string =>
    `${label}: ${ms.length} requests, p50 ${percentile(ms, 50).toFixed(1)} ms, p99 ${percentile(ms, 99).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms`

  // Warm up: the indexes a scan needs and the folded text are built on first use.
  for (const path of SCANS) await (await fetch(`${origin}${path}`)).arrayBuffer()
  const alone = await probe(SECONDS / 2)
  let stop = false
  const scanTimes: number[] = []
  const scanners = Array.from({ length: SCANNERS }, async (_, c) => {
    for (let i = c; !stop; i++) {
      const started = performance.now()
      const res = await fetch(`${origin}${SCANS[i % SCANS.length] as string}`)
      await res.arrayBuffer()
      if (!res.ok) throw new Error(`${SCANS[i % SCANS.length] as string}: ${res.status}`)
      scanTimes.push(performance.now() - started)
    }
  })
  const busy = await probe(SECONDS)
  stop = true
  await Promise.all(scanners)
  process.stdout.write(`${RECORDS} students, memory store\n${show('GET /students/{id} alone', alone)}\n` +
    `${show(`GET /students/{id} while ${SCANNERS} clients scan`, busy)}\n${show('the scans themselves', scanTimes)}\n`)

  // Clients that ask for the whole list as NDJSON and never read it.
  await new Promise((resolve) => setTimeout(resolve, 1000))
  const before = rssKb()
  const sockets = Array.from({ length: STALLED }, () => {
    const socket = connect(port, '127.0.0.1')
    socket.write(`GET /v2/students HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/x-ndjson\r\n\r\n`)
    socket.pause()
    return socket
  })
  await new Promise((resolve) => setTimeout(resolve, 3000))
  const after = rssKb()
  process.stdout.write(`${STALLED} NDJSON clients that do not read: server RSS ${(before / 1024).toFixed(1)} → ${(after / 1024).toFixed(1)} MiB, ` +
    `${((after - before) / STALLED).toFixed(0)} KiB each\n`)
  for (const socket of sockets) socket.destroy()
} finally {
  server.kill('SIGTERM')
  rmSync(dir, { recursive: true, force: true })
}
