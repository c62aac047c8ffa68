/**
 * How long `rqs serve` takes to be ready: from spawning `node dist/bin.js
 * serve` (as `npm start` runs it) to the first 200 from `/healthz`, polled
 * every 2 ms by the runner on the other core. A fresh process each round, so
 * every module load, configuration check and store opening is counted. Two
 * figures: the wall time, and the CPU time the process used until ready (read
 * from /proc), which stays steady when the machine is shared.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cpuSeconds, pinned, ROOT, SERVER_CPU } from './procs.js'
import { median } from './stats.js'
import { MAX_COLLECTIONS, MAX_COLUMNS } from '../../src/services/collections/limits.js'

export interface StartupFigures {
  /** Each round's wall time to ready, ms. */
  rounds: number[]
  medianMs: number
  /** Each round's CPU time (user + system) of the process until ready, ms. */
  cpuRounds: number[]
  cpuMedianMs: number
}

interface Start { wallMs: number, cpuMs: number }

/** `count` declared collections of four fields each, in the form `--collections` reads. */
export function collectionsFile (dir: string, count: number): string {
  const collections: Record<string, unknown> = {}
  for (let i = 0; i < count; i++) {
    collections[`things-${i}`] = {
      schema: {
        type: 'object',
        properties: { title: { type: 'string', maxLength: 200 }, year: { type: 'integer', minimum: 0 }, price: { type: 'number' }, available: { type: 'boolean' } },
        required: ['title']
      },
      ids: 'sequence'
    }
  }
  const file = join(dir, `collections-${count}.json`)
  writeFileSync(file, JSON.stringify({ collections }))
  return file
}

/**
 * A declaration at the documented limits (src/services/collections/limits.ts): the most collections a
 * server takes, each with the most string fields a collection takes (as scripts/start-at-limits.ts).
 */
export function limitsFile (dir: string): string {
  const fields = Object.fromEntries(Array.from({ length: MAX_COLUMNS / 2 }, (_, i) => [`field${i}`, { type: 'string', maxLength: 200 }]))
  const collections = Object.fromEntries(Array.from({ length: MAX_COLLECTIONS }, (_, i) => [`c${i}`, { schema: { type: 'object', properties: fields, required: ['field0'] } }]))
  const file = join(dir, 'collections-at-limits.json')
  writeFileSync(file, JSON.stringify({ collections }))
  return file
}

async function freePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => { resolve(typeof address === 'object' && address !== null ? address.port : 0) })
    })
  })
}

/** One start: spawn, poll /healthz until 200 (at most `timeoutMs`), stop the process. */
async function startOnce (args: string[], timeoutMs: number): Promise<Start> {
  const port = await freePort()
  const [command, argv] = pinned(SERVER_CPU, process.execPath, [join(ROOT, 'dist/bin.js'), 'serve', '--host', '127.0.0.1', '--port', String(port), '--log-format', 'json', '--log-level', 'warn', ...args])
  const started = performance.now()
  const child = spawn(command, argv, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  try {
    while (performance.now() - started < timeoutMs) {
      if (child.exitCode !== null) throw new Error(`rqs serve exited with ${child.exitCode}: ${stderr.slice(0, 500)}`)
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status === 200, () => false)
      if (ok) return { wallMs: performance.now() - started, cpuMs: child.pid === undefined ? Number.NaN : cpuSeconds(child.pid) * 1000 }
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
    throw new Error(`rqs serve was not ready within ${timeoutMs} ms`)
  } finally {
    child.kill('SIGKILL')
    await new Promise((resolve) => { if (child.exitCode !== null || child.signalCode !== null) resolve(undefined); else child.once('exit', resolve) })
  }
}

/**
 * `rounds` starts with the default services, with `collections` declared collections and with a
 * declaration at the documented limits, alternating.
 */
export async function measureStartup (rounds: number, collections: number): Promise<{ plain: StartupFigures, declared: StartupFigures, limits: StartupFigures }> {
  const dir = mkdtempSync(join(tmpdir(), 'rqs-bench-start-'))
  try {
    const file = collectionsFile(dir, collections)
    const atLimits = limitsFile(dir)
    const plain: Start[] = []
    const declared: Start[] = []
    const limits: Start[] = []
    for (let i = 0; i < rounds; i++) {
      plain.push(await startOnce([], 60_000))
      declared.push(await startOnce(['--collections', file], 60_000))
      limits.push(await startOnce(['--collections', atLimits], 120_000))
    }
    return { plain: figures(plain), declared: figures(declared), limits: figures(limits) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function figures (starts: Start[]): StartupFigures {
  const wall = starts.map((s) => s.wallMs)
  const cpu = starts.map((s) => s.cpuMs)
  return { rounds: wall, medianMs: median(wall), cpuRounds: cpu, cpuMedianMs: median(cpu) }
}
