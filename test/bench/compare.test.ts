import { describe, expect, it } from 'vitest'
import { judge, verdictOf, type Line } from '../../bench/lib/compare.js'
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
