/**
 * Reads a V8 .cpuprofile (node --cpu-prof) and summarises the samples taken
 * inside a time window (the measured load, not start-up): self time by
 * function and by package, and the inclusive time of named "probes" — the
 * per-request work issue 12 asks about. Times are per request (µs) when the
 * request count of the window is known.
 */
import { readFileSync } from 'node:fs'

interface CallFrame { functionName: string, url: string, lineNumber: number, columnNumber: number }
interface ProfileNode { id: number, callFrame: CallFrame, children?: number[] }
interface Profile { nodes: ProfileNode[], startTime: number, endTime: number, samples: number[], timeDeltas: number[] }

export interface Probe {
  label: string
  /** True for a frame that belongs to this probe; a sample counts once however many of its frames match. */
  match: (frame: CallFrame) => boolean
  /**
   * Leaves out samples whose stack also holds such a frame *below* (called by)
   * the matched one: e.g. a handler's time without the reply.send it calls.
   */
  exclude?: (frame: CallFrame) => boolean
}

export interface ProfileSummary {
  /** µs of samples in the window. */
  windowUs: number
  /** µs the process was busy (not idle) in the window. */
  busyUs: number
  selfByFunction: Array<{ name: string, us: number }>
  selfByCategory: Array<{ name: string, us: number }>
  probes: Array<{ name: string, us: number }>
}

/** Where a frame's code lives: a package, node core, rqs (dist/), or V8 itself. */
export function category (frame: CallFrame): string {
  const { url, functionName } = frame
  if (url === '') {
    if (functionName === '(garbage collector)') return 'V8: garbage collector'
    if (functionName === '(program)') return 'V8: (program) native, unattributed'
    if (functionName === '(idle)') return '(idle)'
    return 'generated code (fast-json-stringify, ajv, graphql-jit) or native'
  }
  if (url.startsWith('node:')) {
    if (/^node:(_http_|http$)/.test(url)) return 'node: http'
    if (/^node:(net|internal\/stream|stream|internal\/streams|_stream)/.test(url)) return 'node: net & streams'
    if (/^node:internal\/(process\/task_queues|async_hooks|timers)|^node:timers/.test(url)) return 'node: task queues & timers'
    return 'node: other core'
  }
  const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)
  if (m !== null) return m[1]!
  const d = /\/(dist|src)\/(.+)$/.exec(url)
  if (d !== null) return `rqs: ${d[2]}`
  return url.replace(/^file:\/\/.*\/(bench\/)/, '$1')
}

function frameName (frame: CallFrame): string {
  const where = frame.url === '' ? '' : ` ${frame.url.replace(/^file:\/\/.*?\/(node_modules\/|dist\/|src\/|bench\/)/, '$1')}:${frame.lineNumber + 1}`
  return `${frame.functionName === '' ? '(anonymous)' : frame.functionName}${where}`
}

export function summarise (file: string, window: { startUs: number, endUs: number }, probes: Probe[]): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)

  const self = new Map<number, number>()
  let t = profile.startTime
  let windowUs = 0
  let idleUs = 0
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0
    if (t < window.startUs || t > window.endUs) continue
    // A sample stands for the time until the next one.
    const dt = profile.timeDeltas[i + 1] ?? 0
    const id = profile.samples[i]!
    windowUs += dt
    self.set(id, (self.get(id) ?? 0) + dt)
    if (byId.get(id)?.callFrame.functionName === '(idle)') idleUs += dt
  }

  const fnSelf = new Map<string, number>()
  const catSelf = new Map<string, number>()
  const probeUs = new Map<string, number>(probes.map((p) => [p.label, 0]))
  for (const [id, us] of self) {
    const frame = byId.get(id)!.callFrame
    fnSelf.set(frameName(frame), (fnSelf.get(frameName(frame)) ?? 0) + us)
    catSelf.set(category(frame), (catSelf.get(category(frame)) ?? 0) + us)
    // Inclusive: walk up the stack once (leaf first), crediting each probe at most once per sample,
    // unless a frame it excludes was met before (deeper than) its first matching frame.
    const hit = new Set<string>()
    const excluded = new Set<string>()
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const f = byId.get(n)!.callFrame
      for (const p of probes) {
        if (hit.has(p.label) || excluded.has(p.label)) continue
        if (p.match(f)) hit.add(p.label)
        else if (p.exclude?.(f) === true) excluded.add(p.label)
      }
    }
    for (const label of hit) probeUs.set(label, probeUs.get(label)! + us)
  }
  const sorted = (m: Map<string, number>): Array<{ name: string, us: number }> =>
    [...m].map(([name, us]) => ({ name, us })).sort((a, b) => b.us - a.us)
  return {
    windowUs,
    busyUs: windowUs - idleUs,
    selfByFunction: sorted(fnSelf),
    selfByCategory: sorted(catSelf),
    probes: probes.map((p) => ({ name: p.label, us: probeUs.get(p.label)! }))
  }
}

/** The summary as Markdown: shares of busy time, and µs per request. */
export function formatSummary (title: string, s: ProfileSummary, requests: number, top = 25): string {
  const share = (us: number): string => `${((us / s.busyUs) * 100).toFixed(1)}%`
  const perRequest = (us: number): string => requests > 0 ? (us / requests).toFixed(2) : '–'
  const rows = (items: Array<{ name: string, us: number }>): string[] => items.map((i) => `| ${i.name.replace(/\|/g, '\\|')} | ${share(i.us)} | ${perRequest(i.us)} |`)
  return [
    `### ${title}`,
    '',
    `${requests} requests in the window; CPU busy ${(s.busyUs / 1000).toFixed(0)} ms of ${(s.windowUs / 1000).toFixed(0)} ms ` +
      `(${requests > 0 ? (s.busyUs / requests).toFixed(1) : '–'} µs of CPU a request, by the profiler's samples).`,
    '',
    '| where per-request time goes (inclusive) | share of busy | µs / request |',
    '|---|---:|---:|',
    ...rows(s.probes),
    '',
    '| self time by package | share of busy | µs / request |',
    '|---|---:|---:|',
    ...rows(s.selfByCategory.filter((c) => c.name !== '(idle)').slice(0, 15)),
    '',
    `| top ${top} functions by self time | share of busy | µs / request |`,
    '|---|---:|---:|',
    ...rows(s.selfByFunction.filter((c) => !c.name.startsWith('(idle)')).slice(0, top)),
    ''
  ].join('\n')
}

/**
 * Two profiles of the same request side by side, rqs and Fastify with
 * nothing added, per probe and per package (µs a request): the difference is
 * what rqs's own features cost beyond the framework. Probe rows that are zero
 * on both sides are left out.
 */
export function formatBeyond (title: string, rqs: { summary: ProfileSummary, requests: number }, fastify: { summary: ProfileSummary, requests: number }): string {
  const per = (us: number | undefined, requests: number): number => requests > 0 ? (us ?? 0) / requests : 0
  const table = (a: Array<{ name: string, us: number }>, b: Array<{ name: string, us: number }>): string[] => {
    const names = [...new Set([...a.map((x) => x.name), ...b.map((x) => x.name)])].filter((n) => n !== '(idle)')
    return names
      .map((name) => {
        const r = per(a.find((x) => x.name === name)?.us, rqs.requests)
        const f = per(b.find((x) => x.name === name)?.us, fastify.requests)
        return { name, r, f, d: r - f }
      })
      .filter((row) => row.r >= 0.005 || row.f >= 0.005)
      .map((row) => `| ${row.name.replace(/\|/g, '\\|')} | ${row.r.toFixed(2)} | ${row.f.toFixed(2)} | ${row.d >= 0 ? '+' : ''}${row.d.toFixed(2)} |`)
  }
  const total = (x: { summary: ProfileSummary, requests: number }): number => per(x.summary.busyUs, x.requests)
  return [
    `### ${title}`,
    '',
    `CPU a request, by the profiler's samples: rqs ${total(rqs).toFixed(1)} µs, Fastify with nothing added ${total(fastify).toFixed(1)} µs ` +
      `(+${(total(rqs) - total(fastify)).toFixed(1)} µs). Same machine, same load generator, one after the other.`,
    '',
    '| step (inclusive) | rqs µs | Fastify µs | rqs pays |',
    '|---|---:|---:|---:|',
    ...table(rqs.summary.probes, fastify.summary.probes),
    '',
    '| self time by package | rqs µs | Fastify µs | rqs pays |',
    '|---|---:|---:|---:|',
    ...table(rqs.summary.selfByCategory.slice(0, 25), fastify.summary.selfByCategory.slice(0, 25)),
    ''
  ].join('\n')
}
