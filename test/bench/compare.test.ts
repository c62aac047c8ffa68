import { describe, expect, it } from 'vitest'
import { combineSlices, compare, judge, verdictOf, type Contender, type Line } from '../../bench/lib/compare.js'
import type { LoadResult } from '../../bench/lib/load.js'
import { formatTable } from '../../bench/lib/report.js'
import { headline } from '../../bench/lib/chart.js'

/**
 * How a row is judged (bench/lib/compare.ts): by CPU per request when both
 * sides have it, with the rounds' spread, and "undecided" when the spread is
 * wider than the judged ratio's margin to the target.
 */

const goal = { against: 'fastify', min: 0.9, text: '≥ 0.90× fastify' }
const row = { id: 'get-student', title: 'GET /students/{id}', goal }

/** rqs and one baseline, with each round's rate and CPU µs per request. */
function lines (rqs: { rps: number[], cpu?: number[] }, base: { rps: number[], cpu?: number[] }): Line[] {
  const mid = (v: number[]): number => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!
  const line = (label: string, role: Line['role'], f: { rps: number[], cpu?: number[] }): Line => ({
    label, role, rps: mid(f.rps), rounds: f.rps, cpuUsPerRequest: f.cpu === undefined ? undefined : mid(f.cpu), cpuRounds: f.cpu
  })
  return [line('rqs', 'target', rqs), line('fastify', 'baseline', base)]
}

describe('bench verdicts', () => {
  it('judges by CPU per request when both sides have it, whatever the rates did', () => {
    // The rates say 0.5× (rqs lost its core to the machine's other work); CPU per request says 0.95×.
    const r = judge(row, lines({ rps: [5000, 5000, 5000], cpu: [20, 20, 20] }, { rps: [10000, 10000, 10000], cpu: [19, 19, 19] }))
    expect(r.basis).toBe('cpu')
    expect(r.judged).toBeCloseTo(0.95)
    expect(r.verdict).toBe('met')
    expect(r.met).toBe(true)
    expect(r.lines[1]!.spread).toEqual([0.95, 0.95])
  })

  it('falls back to the rate when a side has no CPU figure (pgbench, a database\'s own client)', () => {
    const r = judge(row, lines({ rps: [900, 900, 900], cpu: [20, 20, 20] }, { rps: [1000, 1000, 1000] }))
    expect(r.basis).toBe('rate')
    expect(r.judged).toBeCloseTo(0.9)
    expect(r.verdict).toBe('met')
  })

  it('says undecided when the rounds spread wider than the margin to the target', () => {
    // Round ratios 0.85, 0.95, 1.0 (median 0.95): spread 0.15 > margin 0.05.
    const r = judge(row, lines({ rps: [1, 1, 1], cpu: [20, 20, 20] }, { rps: [1, 1, 1], cpu: [17, 19, 20] }))
    expect(r.verdict).toBe('undecided')
    expect(r.met).toBeUndefined()
    expect(formatTable([r])).toContain('undecided (by CPU)')
    expect(headline(r)).toMatchObject({ undecided: true, byCpu: true, ratio: 0.95 })
  })

  it('decides when the spread is narrower than the margin, either way', () => {
    expect(verdictOf(0.8, 0.9, [0.78, 0.82])).toBe('not met')
    expect(verdictOf(1.0, 0.9, [0.97, 1.03])).toBe('met')
    expect(verdictOf(0.92, 0.9, [0.88, 0.95])).toBe('undecided')
    expect(verdictOf(0.92, 0.9, undefined)).toBe('met')
  })

  it('shows each line\'s spread in the table', () => {
    const r = judge(row, lines({ rps: [1, 1, 1], cpu: [10, 10, 10] }, { rps: [1, 1, 1], cpu: [12, 13, 14] }))
    expect(formatTable([r])).toMatch(/1\.20–1\.40×/)
  })
})

/** A run of `requests` in `seconds` costing `cpuUs` µs a request. */
const run = (requests: number, seconds: number, cpuUs: number, p99Ms = 1): LoadResult =>
  ({ requests, seconds, rps: requests / seconds, p50Ms: p99Ms / 2, p99Ms, errors: 0, serverCpu: requests * cpuUs / 1e6 / seconds, cpuUsPerRequest: cpuUs })

describe('bench rounds in slices', () => {
  const settings = { durationSec: 3, rounds: 2, warmSec: 1, connections: 1, quick: false }

  it('interleaves the contenders a second at a time, the order rotating by slice and round, and sums each round', async () => {
    const calls: string[] = []
    const contender = (label: string, role: Contender['role'], cpuUs: number): Contender => ({
      label,
      role,
      sliceable: true,
      measure: async (o) => { calls.push(`${label}${o.durationSec}`); return run(1000, o.durationSec, cpuUs) }
    })
    const r = await compare(row, [contender('rqs', 'target', 20), contender('fastify', 'baseline', 19)], settings)
    // The warm-up (1 s each), then round 1: A B, B A, A B; round 2: B A, A B, B A.
    expect(calls).toEqual(['rqs1', 'fastify1', 'rqs1', 'fastify1', 'fastify1', 'rqs1', 'rqs1', 'fastify1', 'fastify1', 'rqs1', 'rqs1', 'fastify1', 'fastify1', 'rqs1'])
    expect(r.lines[0]!.cpuRounds).toEqual([20, 20])
    expect(r.lines[0]!.rounds).toEqual([1000, 1000])
    expect(r.judged).toBeCloseTo(0.95)
  })

  it('opens a fresh contender once a round, warmed by itself, and closes it after the round\'s slices', async () => {
    const events: string[] = []
    const fresh: Contender = {
      label: 'rqs',
      role: 'target',
      sliceable: true,
      measure: async () => { throw new Error('a fresh contender is measured through its session') },
      open: async () => {
        events.push('open')
        return { measure: async (o) => { events.push('run'); return run(100, o.durationSec, 10) }, close: async () => { events.push('close') } }
      }
    }
    const kept: Contender = { label: 'fastify', role: 'baseline', sliceable: true, measure: async (o) => { events.push('base'); return run(100, o.durationSec, 10) } }
    await compare(row, [fresh, kept], settings)
    expect(events).toEqual(['base', 'open', 'run', 'base', 'base', 'run', 'run', 'base', 'close', 'open', 'base', 'run', 'run', 'base', 'base', 'run', 'close'])
  })

  it('runs a round whole when a contender cannot be cut (a loop, pgbench) and in quick mode', async () => {
    const durations: number[] = []
    const c = (label: string, role: Contender['role'], sliceable: boolean): Contender => ({ label, role, sliceable, measure: async (o) => { durations.push(o.durationSec); return run(10, o.durationSec, 5) } })
    await compare(row, [c('rqs', 'target', true), c('fastify', 'baseline', false)], { ...settings, rounds: 1 })
    expect(durations).toEqual([1, 1, 3, 3])
    durations.length = 0
    await compare(row, [c('rqs', 'target', true), c('fastify', 'baseline', true)], { ...settings, rounds: 1, quick: true, maxRequests: 10 })
    expect(durations).toEqual([3, 3])
  })

  it('sums a round\'s slices: CPU per request over all their requests, the rate over all their time', () => {
    const r = combineSlices([run(1000, 1, 20, 2), run(3000, 1, 10, 4), run(2000, 1, 30, 3)])
    expect(r.requests).toBe(6000)
    expect(r.rps).toBe(2000)
    expect(r.cpuUsPerRequest).toBeCloseTo((1000 * 20 + 3000 * 10 + 2000 * 30) / 6000)
    expect(r.serverCpu).toBeCloseTo((0.02 + 0.03 + 0.06) / 3)
    expect(r.p99Ms).toBe(3)
  })
})
