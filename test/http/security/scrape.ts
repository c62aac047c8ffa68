import { expect } from 'vitest'
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format'
import { request, type RunningServer } from '../../helpers/server.js'
import { bearer } from './helpers.js'

/** Every sample line: a metric name, optional labels, a number (Prometheus reads NaN and Inf in any case; prom-client writes "Nan"). */
const SAMPLE_LINE = /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? (-?[0-9.e+-]+|[+-]?[Ii][Nn][Ff]|[Nn][Aa][Nn])( \d+)?$/

/** Reading /metrics in the metrics tests: every line checked, then parsed. */
interface Scrape { families: PrometheusFamily[], text: string }

export async function scrape (server: RunningServer, token?: string): Promise<PrometheusFamily[]> {
  return (await scrapeText(server, token)).families
}

export async function scrapeText (server: RunningServer, token?: string): Promise<Scrape> {
  const res = await request(`${server.origin}/metrics`, { headers: token === undefined ? {} : bearer(token) })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
  for (const line of res.text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue
    expect(line).toMatch(SAMPLE_LINE)
  }
  return { families: parsePrometheusTextFormat(res.text), text: res.text }
}

/** A sample read straight from the text (the parser drops the labels of histogram series). */
export function sampleOf (text: string, name: string, labels: Record<string, string>): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1))
}

export function family (families: PrometheusFamily[], name: string): PrometheusFamily {
  const found = families.find((f) => f.name === name)
  if (found === undefined) throw new Error(`no metric ${name}`)
  return found
}

/** The value of the sample whose labels include `labels` (0 when there is none yet). */
export function valueOf (families: PrometheusFamily[], name: string, labels: Record<string, string> = {}): number {
  const sample = family(families, name).metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
  return sample === undefined ? 0 : Number(sample.value ?? sample.count)
}
