/**
 * Contenders that are not one request under wrk: a statement run by hand
 * (pg, better-sqlite3) in a loop, and records created one POST at a time or
 * in bulk. Each run is bounded like every other (its duration, or in quick
 * mode a count) and gives the same figures as a load run: a rate, p99, and
 * the CPU per operation where it can be measured — the server's from /proc,
 * or this process's own for a library that runs in it.
 */
import type { Contender } from './compare.js'
import type { LoadOptions, LoadResult } from './load.js'
import { cpuSeconds } from './procs.js'
import { percentile } from './stats.js'

/** Whose CPU an operation costs: this process's (a library called in it), a server's, or none measurable (PostgreSQL's backends). */
export type CpuOf = { self: true } | { pid: number } | undefined

function cpuNow (of: CpuOf): number {
  if (of === undefined) return Number.NaN
  if ('pid' in of) return cpuSeconds(of.pid)
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}

/**
 * Calls `once` from `concurrency` loops for the run's duration (or, in quick
 * mode, until `maxRequests` calls); `once` answers how many operations it did
 * (a bulk create: its records), which the rate and the CPU are counted in.
 */
export async function loopRun (once: () => Promise<number>, opts: LoadOptions, concurrency: number, cpuOf: CpuOf): Promise<LoadResult> {
  const latencies: number[] = []
  let operations = 0
  let calls = 0
  let errors = 0
  const cpu0 = cpuNow(cpuOf)
  const t0 = performance.now()
  const end = t0 + opts.durationSec * 1000
  const more = (): boolean => opts.maxRequests !== undefined ? calls < opts.maxRequests : performance.now() < end
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (more()) {
      calls++
      const t = performance.now()
      try {
        // Not `operations += await once()`: that reads the sum before the await, and loses the other loops' counts.
        const done = await once()
        operations += done
      } catch (err) {
        errors++
        if (errors === 1) process.stderr.write(`  first error: ${(err as Error).message}\n`)
      }
      latencies.push(performance.now() - t)
    }
  }))
  const seconds = (performance.now() - t0) / 1000
  const cpu = cpuNow(cpuOf) - cpu0
  return {
    requests: operations,
    seconds,
    rps: operations / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    errors,
    serverCpu: Number.isFinite(cpu) ? cpu / seconds : undefined,
    cpuUsPerRequest: Number.isFinite(cpu) && operations > 0 ? cpu * 1e6 / operations : undefined
  }
}

/** A contender that loops `once` (see loopRun); `check` runs once before measuring. */
export function loopContender (label: string, role: Contender['role'], once: () => Promise<number>, options: { concurrency: number, cpuOf: CpuOf, check?: () => Promise<void> }): Contender {
  return {
    label,
    role,
    check: options.check,
    measure: async (opts) => await loopRun(once, opts, options.concurrency, options.cpuOf)
  }
}

/** POSTs `body` as JSON and fails unless the answer is `status`; answers the parsed body. */
export async function postJson (url: string, body: unknown, status = 201, method = 'POST'): Promise<unknown> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const text = await res.text()
  if (res.status !== status) throw new Error(`${method} ${url}: ${res.status}, expected ${status}: ${text.slice(0, 300)}`)
  return JSON.parse(text) as unknown
}
