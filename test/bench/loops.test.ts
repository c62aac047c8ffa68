import { describe, expect, it } from 'vitest'
import { loopRun } from '../../bench/lib/loops.js'

/**
 * The bench's own loops (bench/lib/loops.ts): a by-hand statement or a bulk
 * create measured like a load run — bounded by a count in quick mode and by
 * its duration otherwise, counting operations (a bulk create's records), not calls.
 */
describe('loopRun', () => {
  it('stops after maxRequests calls and counts what each call did', async () => {
    let calls = 0
    const r = await loopRun(async () => { calls++; return 5 }, { connections: 1, durationSec: 60, maxRequests: 7 }, 3, { self: true })
    expect(calls).toBe(7)
    expect(r.requests).toBe(35)
    expect(r.errors).toBe(0)
    expect(r.rps).toBeGreaterThan(0)
    expect(r.cpuUsPerRequest).toBeGreaterThanOrEqual(0)
  })

  it('stops after its duration without a count, and leaves CPU out when none is measurable', async () => {
    const started = performance.now()
    const r = await loopRun(async () => { await new Promise((resolve) => setTimeout(resolve, 5)); return 1 }, { connections: 1, durationSec: 0.2 }, 2, undefined)
    const seconds = (performance.now() - started) / 1000
    expect(seconds).toBeGreaterThanOrEqual(0.2)
    expect(seconds).toBeLessThan(5)
    expect(r.requests).toBeGreaterThan(0)
    expect(r.cpuUsPerRequest).toBeUndefined()
    expect(r.serverCpu).toBeUndefined()
  })

  it('counts a failing call as an error, not as an operation', async () => {
    let n = 0
    const r = await loopRun(async () => { if (n++ % 2 === 0) throw new Error('refused'); return 1 }, { connections: 1, durationSec: 60, maxRequests: 10 }, 1, undefined)
    expect(r.errors).toBe(5)
    expect(r.requests).toBe(5)
  })
})
