/**
 * Draws a results file's ratios again as SVG, beside it (bench/lib/chart.ts):
 * `npm run bench` does this itself; this is for a record written before, or
 * after changing the chart.
 *
 *   npx tsx bench/chart.ts                          # bench/results/latest.json → latest.svg
 *   npx tsx bench/chart.ts bench/results/quick.json
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ratioChart, type ChartMeta } from './lib/chart.js'
import type { RowResult } from './lib/compare.js'
import { BENCH_DIR } from './lib/procs.js'

const file = process.argv[2] ?? join(BENCH_DIR, 'results', 'latest.json')
const record = JSON.parse(readFileSync(file, 'utf8')) as { meta: ChartMeta, rows: RowResult[] }
const svg = file.replace(/\.json$/, '') + '.svg'
writeFileSync(svg, ratioChart(record.meta, record.rows))
console.log(`drawn to ${svg}`)
