/** The run's one table (Markdown, on stdout) and its JSON record (bench/results/latest.json). */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { RowResult } from './compare.js'
import { BENCH_DIR } from './procs.js'

const int = (v: number | undefined): string => v === undefined || !Number.isFinite(v) ? '–' : String(Math.round(v))
const fixed = (v: number | undefined, d = 2): string => v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(d)
const pct = (v: number | undefined): string => v === undefined || !Number.isFinite(v) ? '–' : `${Math.round(v * 100)}%`

export function formatTable (rows: RowResult[]): string {
  const header = ['row', 'server', 'req/s', 'p99 ms', 'server CPU', 'CPU µs/req', 'rqs ÷ this', 'by CPU/req', 'spread', 'target', 'met']
  const lines: string[][] = []
  for (const row of rows) {
    if (row.skipped !== undefined) {
      lines.push([row.title, `skipped: ${row.skipped}`, '', '', '', '', '', '', '', row.goal ?? '', ''])
      continue
    }
    row.lines.forEach((l, i) => {
      lines.push([
        i === 0 ? row.title : '',
        l.note === undefined ? l.label : `${l.label}: ${l.note}`,
        int(l.rps),
        fixed(l.p99Ms),
        pct(l.serverCpu),
        fixed(l.cpuUsPerRequest, 1),
        l.ratio === undefined ? '' : `${fixed(l.ratio)}×`,
        l.cpuRatio === undefined ? '' : `${fixed(l.cpuRatio)}×`,
        l.spread === undefined ? '' : `${fixed(l.spread[0])}–${fixed(l.spread[1])}×`,
        i === 0 ? row.goal ?? '' : '',
        i === 0 ? verdictCell(row) : ''
      ])
    })
  }
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)))
  const fmt = (cells: string[]): string => '| ' + cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ') + ' |'
  return [fmt(header), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...lines.map(fmt)].join('\n')
}

/** `yes`/`NO`/`undecided`, and what it rests on (CPU per request, or the rate when a side has no CPU figure). */
function verdictCell (row: RowResult): string {
  if (row.verdict !== undefined) return `${row.verdict === 'met' ? 'yes' : row.verdict === 'not met' ? 'NO' : 'undecided'} (${row.basis === 'cpu' ? 'by CPU' : 'by rate'})`
  return row.met === undefined ? '' : row.met ? 'yes' : 'NO'
}

export function writeResults (meta: Record<string, unknown>, rows: RowResult[], name = 'latest.json'): string {
  const dir = join(BENCH_DIR, 'results')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, name)
  writeFileSync(file, JSON.stringify({ meta, rows }, null, 2) + '\n')
  return file
}
