/**
 * What the at-limits scripts (openapi-at-limits.ts, graphql-at-limits.ts)
 * measure of one request to a server in this process: the longest the event
 * loop was held while it was answered — a 10 ms interval probe (the largest
 * gap between its ticks, less the 10 ms, and the process's CPU over it),
 * monitorEventLoopDelay, and the most CPU the main thread used between two
 * ticks — with /healthz asked every 20 ms meanwhile and the slowest answer
 * reported. The request itself is sent by curl, a client in another process.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { monitorEventLoopDelay } from 'node:perf_hooks'

/** A declaration at (or below) the limits: `count` collections of `width` string fields. */
export function limitsDeclaration (count: number, width: number): { collections: Record<string, unknown> } {
  const fields = Object.fromEntries(Array.from({ length: width }, (_, i) => [`field${i}`, { type: 'string', maxLength: 200 }]))
  return { collections: Object.fromEntries(Array.from({ length: count }, (_, i) => [`c${i}`, { schema: { type: 'object', properties: fields, required: ['field0'] } }])) }
}

/**
 * The main thread's time on a CPU so far, in ms (Linux: its schedstat, in
 * ns), or undefined elsewhere. Between two ticks of the probe it is how long
 * the event loop was held, whatever else the machine runs: a shared
 * machine stretches the gaps between ticks, not the main thread's CPU in them.
 */
const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`
function mainThreadCpuMs (): number | undefined {
  try {
    return Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]) / 1e6
  } catch {
    return undefined
  }
}

interface Watched { maxGapMs: number, gapCpuMs: number, maxDelayMs: number, ticks: number, maxMainCpuMs: number | undefined, over50: number | undefined }

/**
 * Watches the event loop from now until `stop`: the largest gap between 10 ms
 * ticks, the histogram's maximum, and the most CPU the main thread used
 * between two ticks (with how many times it was over 50 ms).
 */
export function watch (): { stop: () => Watched } {
  const histogram = monitorEventLoopDelay({ resolution: 10 })
  histogram.enable()
  let last = performance.now()
  let lastCpu = process.cpuUsage()
  let lastMain = mainThreadCpuMs()
  let maxGapMs = 0
  let gapCpuMs = 0
  let maxMainCpuMs: number | undefined
  let over50: number | undefined
  let ticks = 0
  const timer = setInterval(() => {
    const now = performance.now()
    // The process's CPU over the gap (the main thread's, and any of GC's helpers): on a loaded machine the gap is longer than the work.
    const cpu = process.cpuUsage(lastCpu)
    const main = mainThreadCpuMs()
    if (main !== undefined && lastMain !== undefined) {
      maxMainCpuMs = Math.max(maxMainCpuMs ?? 0, main - lastMain)
      over50 = (over50 ?? 0) + (main - lastMain > 50 ? 1 : 0)
      if (process.env.RQS_GAPS !== undefined && main - lastMain > 30) console.error(`[gap] ${(process.hrtime.bigint() / 1000n).toString()} µs, ${(now - last).toFixed(0)} ms long: ${(main - lastMain).toFixed(0)} ms of main-thread CPU`)
    }
    if (now - last - 10 > maxGapMs) {
      maxGapMs = now - last - 10
      gapCpuMs = (cpu.user + cpu.system) / 1000
    }
    last = now
    lastCpu = process.cpuUsage()
    lastMain = mainThreadCpuMs()
    ticks++
  }, 10)
  return {
    stop: () => {
      clearInterval(timer)
      histogram.disable()
      return { maxGapMs, gapCpuMs, maxDelayMs: histogram.max / 1e6, ticks, maxMainCpuMs, over50 }
    }
  }
}

/** Asks `url` every 20 ms until `done`: how many answers, and the slowest. */
export async function poll (url: string, done: () => boolean): Promise<{ answers: number, slowestMs: number }> {
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
export async function curl (url: string, args: readonly string[] = [], out = '/dev/null'): Promise<{ status: number, bytes: number }> {
  return await new Promise((resolve, reject) => {
    execFile('curl', ['-s', '-o', out, '-w', '%{http_code} %{size_download}', ...args, url], (err, out) => {
      if (err !== null) { reject(err); return }
      const [status, bytes] = out.split(' ').map(Number)
      resolve({ status: status ?? 0, bytes: bytes ?? 0 })
    })
  })
}

export async function measured (origin: string, what: string, path: string, args: readonly string[] = [], out?: string): Promise<void> {
  const probe = watch()
  const asked = performance.now()
  const cpu = process.cpuUsage()
  let finished = false
  const health = poll(`${origin}/healthz`, () => finished)
  const res = await curl(`${origin}${path}`, args, out)
  const bytes = res.bytes
  finished = true
  const { answers, slowestMs } = await health
  const used = process.cpuUsage(cpu)
  const { maxGapMs, gapCpuMs, maxDelayMs, ticks, maxMainCpuMs, over50 } = probe.stop()
  const main = maxMainCpuMs === undefined ? '' : `; main thread's CPU between two ticks: at most ${maxMainCpuMs.toFixed(0)} ms, over 50 ms ${over50 ?? 0} times`
  console.log(`${what}: ${res.status}, ${bytes} bytes in ${(performance.now() - asked).toFixed(0)} ms (CPU ${((used.user + used.system) / 1000).toFixed(0)} ms); ` +
    `longest block: probe ${maxGapMs.toFixed(0)} ms (CPU ${gapCpuMs.toFixed(0)} ms), monitorEventLoopDelay ${maxDelayMs.toFixed(0)} ms over ${ticks} ticks; /healthz answered ${answers} times, slowest ${slowestMs.toFixed(0)} ms${main}`)
}

