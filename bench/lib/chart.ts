/**
 * The run's ratios as one SVG chart (bench/results/<name>.svg, beside the
 * JSON): one bar per rate row, rqs's median rate ÷ the baseline its target is
 * taken against (or, for a row without a target, its first baseline), drawn
 * from 1× (the same speed) on a log₂ scale so that 0.5× and 2× are as long,
 * with the target marked. Rows that are not a ratio (RSS, the large list) are
 * listed under the chart with their goal. Hand-written SVG text: no
 * dependency, and it renders the same in a browser and on GitHub.
 */
import type { RowResult } from './compare.js'

/** A row's one ratio: rqs ÷ `against`, and the least the row's target asks for, if it has one. */
export interface Headline {
  id: string
  title: string
  against: string
  ratio: number
  min?: number
  met?: boolean
  /** The rounds' spread of the ratio, when the run recorded it. */
  spread?: [number, number]
  /** The rounds could not tell met from not met. */
  undecided?: boolean
  /** The ratio is of CPU per request rather than of rates. */
  byCpu?: boolean
}

/**
 * The ratio a row is judged by. Rows written since the chart was added carry
 * their target (`row.target`); older records (a committed latest.json) only
 * its words, "≥ 0.90× bare", whose number is taken against the first baseline.
 */
export function headline (row: RowResult): Headline | undefined {
  if (row.skipped !== undefined) return undefined
  const against = row.target?.against ?? row.lines.find((l) => l.role === 'baseline' && l.ratio !== undefined)?.label
  const line = row.lines.find((l) => l.label === against)
  // A row judged by CPU per request is drawn by that ratio; older records and rows without CPU by the rate.
  const byCpu = row.basis === 'cpu' && line?.cpuRatio !== undefined
  const ratio = byCpu ? line.cpuRatio : line?.ratio
  if (against === undefined || ratio === undefined || !Number.isFinite(ratio) || ratio <= 0) return undefined
  const words = row.goal === undefined ? undefined : /≥\s*([\d.]+)\s*×/.exec(row.goal)?.[1]
  const min = row.target?.min ?? (words === undefined ? undefined : Number(words))
  const h: Headline = { id: row.id, title: row.title, against, ratio, min, met: row.met }
  if (byCpu) h.byCpu = true
  if (line?.spread !== undefined && row.verdict !== undefined) h.spread = line.spread
  if (row.verdict === 'undecided') h.undecided = true
  return h
}

export interface ChartMeta {
  date?: string
  commit?: string
  node?: string
  generator?: string
  quick?: boolean
}

/** Ratios above this are drawn to the chart's edge, broken, with their value beside them. */
const CAP = 8
const COLOURS = { met: '#2e7d32', missed: '#c62828', undecided: '#ef6c00', none: '#78909c', ink: '#1f2328', faint: '#6e7781', grid: '#d0d7de' }
const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"'

const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
const times = (v: number): string => `${v >= 10 ? v.toFixed(1) : v.toFixed(2)}×`
/** ¼×, ½×, 1×, 2× … for the axis. */
const tickLabel = (v: number): string => `${v === 0.25 ? '¼' : v === 0.5 ? '½' : String(v)}×`

export function ratioChart (meta: ChartMeta, rows: RowResult[]): string {
  const bars = rows.map(headline).filter((h): h is Headline => h !== undefined)
  // The rows with a goal that is not a ratio (RSS, the large list) and the skipped ones, in words.
  const others = rows.filter((r) => headline(r) === undefined && (r.goal !== undefined || r.skipped !== undefined))

  // Whole powers of two around every ratio and target, at least ½× … 2×. A ratio above CAP (the
  // list row's ≈ 30× Express) would squeeze the rest to the left: its bar ends in a break at the edge.
  const values = bars.flatMap((b) => b.min === undefined ? [b.ratio] : [b.ratio, b.min])
  const lo = 2 ** Math.floor(Math.log2(Math.min(0.5, ...values) / 1.05))
  const hi = 2 ** Math.ceil(Math.log2(Math.max(2, ...values.map((v) => Math.min(v * 1.05, CAP)))))

  const width = 1000
  const labelWidth = 300
  const valueWidth = 230
  const plotLeft = labelWidth
  const plotRight = width - valueWidth
  const x = (v: number): number => plotLeft + (plotRight - plotLeft) * (Math.log2(Math.min(v, hi)) - Math.log2(lo)) / (Math.log2(hi) - Math.log2(lo))
  const rowHeight = 40
  const top = 78
  const plotBottom = top + bars.length * rowHeight
  const height = plotBottom + 44 + others.length * 20 + 16

  const out: string[] = []
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="title" ${FONT} font-size="13">`)
  const heading = 'rqs ÷ baseline, one bar per row: by server CPU per request where both sides have it, else by median requests per second'
  out.push(`<title id="title">${escape(heading)}</title>`)
  out.push(`<rect width="${width}" height="${height}" fill="#ffffff"/>`)
  out.push(`<text x="16" y="26" font-size="16" font-weight="600" fill="${COLOURS.ink}">${escape(heading)}</text>`)
  const about = [
    meta.quick === true ? 'QUICK RUN: tiny bounded runs, the figures mean nothing' : undefined,
    meta.date === undefined ? undefined : meta.date.slice(0, 16).replace('T', ' ') + ' UTC',
    meta.commit === undefined ? undefined : `commit ${meta.commit}`,
    meta.node, meta.generator
  ].filter((s): s is string => s !== undefined).join(' · ')
  out.push(`<text x="16" y="46" fill="${meta.quick === true ? COLOURS.missed : COLOURS.faint}">${escape(about)}</text>`)
  out.push(`<text x="16" y="64" fill="${COLOURS.faint}">${escape('Bars grow from 1× (as fast as the baseline), log scale. ▮ target: the bar must reach it. Green: met, red: not met, orange: undecided (the rounds spread across the target), grey: no target. ├┤ the rounds\' spread.')}</text>`)

  // Grid: one line per power of two, 1× solid.
  for (let v = lo; v <= hi; v *= 2) {
    out.push(`<line x1="${x(v).toFixed(1)}" y1="${top - 6}" x2="${x(v).toFixed(1)}" y2="${plotBottom}" stroke="${v === 1 ? COLOURS.ink : COLOURS.grid}" stroke-width="1"${v === 1 ? '' : ' stroke-dasharray="3 3"'}/>`)
    out.push(`<text x="${x(v).toFixed(1)}" y="${plotBottom + 16}" text-anchor="middle" fill="${COLOURS.faint}">${tickLabel(v)}</text>`)
  }

  bars.forEach((b, i) => {
    const y = top + i * rowHeight
    const colour = b.min === undefined ? COLOURS.none : b.undecided === true ? COLOURS.undecided : b.met === true || (b.met === undefined && b.ratio >= b.min) ? COLOURS.met : COLOURS.missed
    const from = x(1)
    const to = x(b.ratio)
    out.push(`<g><title>${escape(`${b.title}: rqs ÷ ${b.against} = ${times(b.ratio)}${b.byCpu === true ? ' by CPU per request' : ''}${b.spread === undefined ? '' : ` (rounds ${times(b.spread[0])}–${times(b.spread[1])})`}${b.min === undefined ? '' : `, target ≥ ${b.min}×`}`)}</title>`)
    out.push(`<text x="16" y="${y + 14}" fill="${COLOURS.ink}">${escape(b.title)}</text>`)
    out.push(`<text x="16" y="${y + 29}" font-size="11" fill="${COLOURS.faint}">${escape(`÷ ${b.against}`)}</text>`)
    out.push(`<rect x="${Math.min(from, to).toFixed(1)}" y="${y + 6}" width="${Math.max(1, Math.abs(to - from)).toFixed(1)}" height="18" fill="${colour}"/>`)
    if (b.ratio > hi) {
      // The break: two white slashes across the bar's end.
      const e = to - 14
      out.push(`<path d="M${e.toFixed(1)} ${y + 28} l8 -26 M${(e + 6).toFixed(1)} ${y + 28} l8 -26" stroke="#ffffff" stroke-width="3"/>`)
    }
    if (b.spread !== undefined) {
      // The rounds' spread: a thin whisker across the bar's end.
      const [s0, s1] = [x(Math.max(b.spread[0], lo)), x(b.spread[1])]
      out.push(`<path d="M${s0.toFixed(1)} ${y + 15} H${s1.toFixed(1)} M${s0.toFixed(1)} ${y + 10} v10 M${s1.toFixed(1)} ${y + 10} v10" stroke="${COLOURS.ink}" stroke-width="1.5" fill="none"/>`)
    }
    if (b.min !== undefined) {
      const t = x(b.min).toFixed(1)
      out.push(`<rect x="${(Number(t) - 2).toFixed(1)}" y="${y + 1}" width="4" height="28" fill="${COLOURS.ink}"/>`)
    }
    const verdict = b.min === undefined ? '' : ` · target ≥ ${b.min}×${b.undecided === true ? ': undecided' : b.met === undefined ? '' : b.met ? ': met' : ': not met'}${b.byCpu === true ? ' (CPU)' : ''}`
    out.push(`<text x="${plotRight + 10}" y="${y + 20}" fill="${COLOURS.ink}"><tspan font-weight="600">${times(b.ratio)}</tspan>${escape(verdict)}</text>`)
    out.push('</g>')
  })

  let y = plotBottom + 40
  for (const r of others) {
    const state = r.skipped !== undefined ? `skipped: ${r.skipped}` : r.met === undefined ? 'not measured' : r.met ? 'met' : 'not met'
    // A short note (the RSS row's) fits on the line; the large list's long one stays in the table.
    const note = r.lines[0]?.note
    const words = `${r.title}${r.goal === undefined ? '' : `: ${r.goal}`}, ${state}${note === undefined || note.length > 90 ? '' : ` (${note})`}`
    out.push(`<text x="16" y="${y}" fill="${r.skipped !== undefined || r.met === undefined ? COLOURS.faint : r.met ? COLOURS.met : COLOURS.missed}">${escape(words)}</text>`)
    y += 20
  }
  out.push('</svg>')
  return out.join('\n') + '\n'
}
