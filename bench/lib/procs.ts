/**
 * Child processes of the benchmark: servers pinned to one core, load
 * generators to the other (taskset, when present on a machine with two or
 * more cores), their CPU time and RSS read from /proc, and a stop that
 * always ends them.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { availableParallelism } from 'node:os'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

export const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url))
export const ROOT = fileURLToPath(new URL('../..', import.meta.url))

const hasTaskset = spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0
const cores = availableParallelism()
/** Pinning needs taskset and two cores: the server gets CPU 0, every load generator CPU 1. */
export let PINNING = hasTaskset && cores >= 2
export const SERVER_CPU = 0
export const LOAD_CPU = 1

/** Quick mode runs unpinned: its figures mean nothing, and servers start faster on every core. */
export function disablePinning (): void {
  PINNING = false
}

/** The command line for `command args` pinned to `cpu` when pinning is possible. */
export function pinned (cpu: number, command: string, args: string[]): [string, string[]] {
  return PINNING ? ['taskset', ['-c', String(cpu), command, ...args]] : [command, args]
}

/** Pins this process (all its threads) to the load generator's core: it times the large-list row. */
export function pinSelfToLoadCore (): void {
  if (PINNING) spawnSync('taskset', ['-a', '-p', '-c', String(LOAD_CPU), String(process.pid)], { stdio: 'ignore' })
}

export interface ServerSpec {
  /** Label in the table. */
  label: string
  /** Module under bench/servers/: `.ts` runs under tsx, `.mjs` under plain node. */
  script: string
  env?: Record<string, string>
  /** Extra node flags (--expose-gc, --cpu-prof …). */
  nodeArgs?: string[]
  /** How long start-up (with seeding) may take. */
  startTimeoutMs?: number
}

export interface RunningServer {
  label: string
  pid: number
  origin: string
  /** The MEMORY line a server printed before listening (rqs only). */
  memory?: { rss: number, heapUsed: number }
  stop: () => Promise<void>
}

const running = new Set<ChildProcess>()

/** Starts a server from bench/servers/ on the server core and waits for its LISTENING line. */
export async function startServer (spec: ServerSpec): Promise<RunningServer> {
  const loader = spec.script.endsWith('.ts') ? ['--import', 'tsx'] : []
  const nodeArgs = [...(spec.nodeArgs ?? []), ...loader, `${BENCH_DIR}servers/${spec.script}`]
  const [command, args] = pinned(SERVER_CPU, process.execPath, nodeArgs)
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', NODE_ENV: 'production', ...spec.env },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  running.add(child)
  const exited = new Promise<void>((resolve) => child.once('exit', () => { running.delete(child); resolve() }))
  let memory: RunningServer['memory']
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${spec.label} did not listen within ${spec.startTimeoutMs ?? 60_000} ms`)), spec.startTimeoutMs ?? 60_000)
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('MEMORY ')) memory = JSON.parse(line.slice(7)) as RunningServer['memory']
      const m = /^LISTENING (\d+)$/.exec(line)
      if (m !== null) { clearTimeout(timer); resolve(Number(m[1])) }
    })
    void exited.then(() => { clearTimeout(timer); reject(new Error(`${spec.label} exited before listening`)) })
  }).catch(async (err: unknown) => { child.kill('SIGKILL'); await exited; throw err })
  return {
    label: spec.label,
    pid: child.pid!,
    origin: `http://127.0.0.1:${port}`,
    memory,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(timer)
    }
  }
}

/** Kills whatever is still running (on an error or Ctrl-C), so no server outlives the run. */
export function killAll (): void {
  for (const child of running) child.kill('SIGKILL')
}
process.once('exit', killAll)
const interruptCleanups: Array<() => Promise<void>> = []
/** Runs `cleanup` (e.g. dropping the bench database) if the run is interrupted by Ctrl-C or SIGTERM. */
export function onInterrupt (cleanup: () => Promise<void>): void {
  interruptCleanups.push(cleanup)
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAll()
    const timeout = new Promise((resolve) => setTimeout(resolve, 5000).unref())
    void Promise.race([Promise.allSettled(interruptCleanups.map(async (c) => { await c() })), timeout]).finally(() => process.exit(130))
  })
}

const TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100

/** User + system CPU seconds a process (all its threads) has used so far; NaN once it is gone. */
export function cpuSeconds (pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / TICKS
  } catch {
    return Number.NaN
  }
}

/** Resident set size of a process in bytes; NaN once it is gone. */
export function rssBytes (pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m === null ? Number.NaN : Number(m[1]) * 1024
  } catch {
    return Number.NaN
  }
}

/**
 * Starts a command (pinned to `cpu` when given) and hands back its pid at
 * once, to sample its CPU while it runs; it is killed after `timeoutMs`.
 */
export function startCommand (command: string, args: string[], cpu?: number, timeoutMs = 600_000): { pid: number, done: Promise<{ stdout: string, stderr: string, code: number | null }> } {
  const [cmd, argv] = cpu === undefined ? [command, args] : pinned(cpu, command, args)
  const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] })
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  running.add(child)
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString() })
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString() })
  const done = new Promise<{ stdout: string, stderr: string, code: number | null }>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => { clearTimeout(timer); running.delete(child); resolve({ stdout, stderr, code }) })
  })
  return { pid: child.pid!, done }
}
