import { readFileSync } from 'node:fs'
import { expect } from 'vitest'
import { request } from './server.js'

/** The main thread's time on a CPU so far, in ms (Linux: its schedstat), or undefined where there is none. */
function mainThreadCpuMs (): number | undefined {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6
  } catch {
    return undefined
  }
}

/** What a 10 ms timer saw of this process's event loop while it watched. */
export interface Watched {
  /** The longest wall-clock gap between two ticks. */
  longestGapMs: number
  /** The process's CPU over that gap (all its threads): on a loaded machine the gap is mostly waiting for a core. */
  longestGapCpuMs: number
  /** The most CPU the main thread ran between two ticks, which a loaded machine does not stretch (0 where unknown). */
  mostMainCpuMs: number
  ticks: number
}

/**
 * Watches the event loop while `work` runs, asking `origin`'s /healthz every
 * 20 ms meanwhile (each answer a 200): how the loop fared, and how many
 * answers came before the work finished.
 */
export async function watchWhile<T> (origin: string, work: () => Promise<T>): Promise<Watched & { result: T, health: number, elapsedMs: number }> {
  const started = performance.now()
  let last = started
  let lastCpu = process.cpuUsage()
  let lastMain = mainThreadCpuMs()
  const seen: Watched = { longestGapMs: 0, longestGapCpuMs: 0, mostMainCpuMs: 0, ticks: 0 }
  const timer = setInterval(() => {
    const now = performance.now()
    const cpu = process.cpuUsage(lastCpu)
    if (now - last > seen.longestGapMs) {
      seen.longestGapMs = now - last
      seen.longestGapCpuMs = (cpu.user + cpu.system) / 1000
    }
    const main = mainThreadCpuMs()
    if (main !== undefined && lastMain !== undefined) seen.mostMainCpuMs = Math.max(seen.mostMainCpuMs, main - lastMain)
    last = now
    lastCpu = process.cpuUsage()
    lastMain = main
    seen.ticks++
  }, 10)
  let finished = false
  const working = work().finally(() => { finished = true })
  let health = 0
  try {
    while (!finished) {
      const answer = await request(`${origin}/healthz`)
      expect(answer.status).toBe(200)
      if (!finished) health++
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  } finally {
    clearInterval(timer)
  }
  const result = await working
  return { ...seen, result, health, elapsedMs: performance.now() - started }
}
