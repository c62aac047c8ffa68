import { describe, expect, it } from 'vitest'
import { headline, ratioChart } from '../../bench/lib/chart.js'
import type { Line, RowResult } from '../../bench/lib/compare.js'

/** The chart `npm run bench` draws (bench/lib/chart.ts): one bar per rate row, against its target. */

const line = (label: string, ratio?: number): Line => ({ label, role: ratio === undefined ? 'target' : 'baseline', rps: 1000, ratio })

const get: RowResult = {
  id: 'get-student',
  title: 'GET /students/{id}',
  goal: '≥ 0.90× bare',
  target: { against: 'node:http (same bytes)', min: 0.9 },
  met: false,
  lines: [line('rqs (default config)'), line('fastify, nothing added', 0.75), line('node:http (same bytes)', 0.68)]
}
const list: RowResult = {
  id: 'list', title: 'GET /students holding 10,000', goal: '≥ 5× express', target: { against: 'express 5', min: 5 }, met: true,
  lines: [line('rqs (default config)'), line('express 5', 32.4)]
}
const address: RowResult = { id: 'get-address', title: 'GET /addresses/{id}', lines: [line('rqs (default config)'), line('node:http (same bytes)', 0.61)] }
const rss: RowResult = {
  id: 'rss', title: 'memory store holding 1,000,000 students', goal: '≤ 200 MB RSS', met: false,
  lines: [{ label: 'rqs (default config)', role: 'target', note: 'RSS 309 MB, heap 125 MB after GC' }]
}
const skipped: RowResult = { id: 'pg-get', title: 'PostgreSQL GET /students/{id}, 10 clients', skipped: 'DATABASE_URL is not set', lines: [] }

/** Every element closed, in order: the SVG is well-formed XML (no stray `<` or `&` from a title). */
function wellFormed (svg: string): boolean {
  const open: string[] = []
  for (const [, close, name, selfClose] of svg.matchAll(/<(\/?)([a-zA-Z]+)[^<>]*?(\/?)>/g)) {
    if (selfClose === '/') continue
    if (close === '/') { if (open.pop() !== name) return false } else open.push(name!)
  }
  const text = svg.replace(/<[^<>]*>/g, '')
  return open.length === 0 && !/[<>]/.test(text) && !/&(?!amp;|lt;|gt;|quot;)/.test(text)
}

const bars = (svg: string): string[] => [...svg.matchAll(/<rect [^>]*height="18" fill="(#[0-9a-f]{6})"\/>/g)].map((m) => m[1]!)
const marks = (svg: string): number => [...svg.matchAll(/<rect [^>]*width="4" height="28"/g)].length

describe('bench chart', () => {
  it('judges a row by the baseline its target names, not by the first baseline', () => {
    expect(headline(get)).toEqual({ id: 'get-student', title: 'GET /students/{id}', against: 'node:http (same bytes)', ratio: 0.68, min: 0.9, met: false })
  })

  it('reads a record written before targets were numbers: the first baseline and the number in the goal\'s words', () => {
    const old: RowResult = { ...get, target: undefined, lines: [line('rqs (default config)'), line('node:http (same bytes)', 0.68), line('fastify alone', 0.81)] }
    expect(headline(old)).toMatchObject({ against: 'node:http (same bytes)', ratio: 0.68, min: 0.9 })
  })

  it('has no bar for a skipped row or one that is not a ratio', () => {
    expect(headline(skipped)).toBeUndefined()
    expect(headline(rss)).toBeUndefined()
  })

  it('draws one bar per rate row, coloured by its target, with each target marked', () => {
    const svg = ratioChart({ commit: 'abc1234', date: '2026-11-26T08:57:29.845Z' }, [get, address, list, rss, skipped])
    expect(wellFormed(svg)).toBe(true)
    expect(bars(svg)).toEqual(['#c62828', '#78909c', '#2e7d32']) // not met, no target, met
    expect(marks(svg)).toBe(2)
    expect(svg).toContain('0.68×</tspan> · target ≥ 0.9×: not met')
    expect(svg).toContain('÷ node:http (same bytes)')
    expect(svg).toContain('commit abc1234')
  })

  it('breaks a bar far beyond the others at the edge and still prints its value', () => {
    const svg = ratioChart({}, [get, list])
    expect(svg).toContain('32.4×</tspan>')
    expect(svg).toMatch(/<path d="M[\d.]+ \d+ l8 -26/)
    expect(svg).toContain('>8×</text>') // the axis stops at 8×, not at 64×
    expect(svg).not.toContain('>16×</text>')
  })

  it('lists the rows that are not ratios, and the skipped ones, in words', () => {
    const svg = ratioChart({}, [get, rss, skipped])
    expect(svg).toContain('memory store holding 1,000,000 students: ≤ 200 MB RSS, not met (RSS 309 MB, heap 125 MB after GC)')
    expect(svg).toContain('PostgreSQL GET /students/{id}, 10 clients, skipped: DATABASE_URL is not set')
  })

  it('says so on a quick run, and escapes what it prints', () => {
    const svg = ratioChart({ quick: true }, [{ ...address, title: 'GET /a?x=1&y=<2>' }])
    expect(wellFormed(svg)).toBe(true)
    expect(svg).toContain('QUICK RUN')
    expect(svg).toContain('GET /a?x=1&amp;y=&lt;2&gt;')
  })
})
