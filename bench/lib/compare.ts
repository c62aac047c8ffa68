/**
 * Rate rows: every contender (the target, rqs, and its baselines) is
 * measured in alternating rounds — A B C, B C A, C A B … — after a warm-up,
 * and reported by the median of its rounds. The ratio of a baseline line is
 * the target's median rate divided by that baseline's; its CPU ratio is the
 * baseline's server CPU per request divided by the target's.
 *
 * A row is judged by the CPU ratio whenever both sides have one: on a shared
 * 2-core machine rates move by ±30 % between rounds (the other core's work
 * steals the server's), while the CPU a request costs barely moves. Each
 * round pairs the contenders measured in it, so a row also has a spread: the
 * least and greatest of its rounds' ratios. When that spread is wider than
 * the distance between the judged ratio and the target, the run cannot tell
 * met from not met, and says "undecided" (bench/README.md, "How it judges").
 *
 * The host's other work comes and goes over seconds, and it slows the CPU a
 * request costs too (a shared core's caches): two contenders measured one
 * after the other for 5 s each meet different weather. So a round of HTTP
 * contenders is cut into slices of a second, interleaved — A B, B A, A B … —
 * and each contender's slices are summed: both sides of a round's ratio meet
 * the same weather.
 */
import { load, type LoadOptions, type LoadRequest, type LoadResult } from './load.js'
import { startServer, type RunningServer, type ServerSpec } from './procs.js'
import { median } from './stats.js'

export interface Settings {
  durationSec: number
  rounds: number
  warmSec: number
  connections: number
  /** Quick mode: each run stops after this many responses. */
  maxRequests?: number
  quick: boolean
}

export interface Contender {
  label: string
  role: 'target' | 'baseline'
  /** One bounded run. */
  measure: (opts: LoadOptions) => Promise<LoadResult>
  /** Fails unless the contender answers as it must (run once before measuring). */
  check?: () => Promise<void>
  /**
   * A fresh process each round: opens it (started, checked, warmed) for the round's runs, which go to
   * the session's `measure`. The row's warm-up skips such a contender.
   */
  open?: () => Promise<Session>
  /** Its runs may be cut into slices of about a second, interleaved with the other contenders' (a run of the generator). */
  sliceable?: boolean
}

/** A contender's process for one round. */
export interface Session {
  measure: (opts: LoadOptions) => Promise<LoadResult>
  close: () => Promise<void>
}

/** A slice of a round, in seconds: the shortest run the generator takes (wrk counts whole seconds). */
export const SLICE_SEC = 1

export interface Line {
  label: string
  role: 'target' | 'baseline'
  rps?: number
  p99Ms?: number
  serverCpu?: number
  /** Median server CPU µs per request. */
  cpuUsPerRequest?: number
  generatorCpu?: number
  errors?: number
  /** Target rate ÷ this baseline's rate. */
  ratio?: number
  /** This baseline's CPU per request ÷ the target's: the ratio the rates would have if both had a whole core. */
  cpuRatio?: number
  /** Each round's rate, in order. */
  rounds?: number[]
  /** Each round's server CPU µs per request, in order. */
  cpuRounds?: number[]
  /** The least and greatest of the rounds' ratios against the target, on the row's basis (a baseline line). */
  spread?: [number, number]
  note?: string
}

/** What a row's verdict rests on: CPU per request (steady) or, without CPU figures on both sides, the rate. */
export type Basis = 'cpu' | 'rate'

/** `undecided`: the rounds' spread is wider than the judged ratio's distance to the target. */
export type Verdict = 'met' | 'not met' | 'undecided'

export interface RowResult {
  id: string
  title: string
  /** The issue's target for this row, in words. */
  goal?: string
  /** The same target as a number: rqs's rate ÷ the `against` line's must reach `min`. */
  target?: { against: string, min: number }
  /** Whether the target was met; left out when the run is undecided. */
  met?: boolean
  verdict?: Verdict
  /** The figure the target is judged by. */
  basis?: Basis
  /** The ratio the verdict rests on (the `against` line's CPU ratio, or its rate ratio). */
  judged?: number
  skipped?: string
  note?: string
  lines: Line[]
  figures?: Record<string, number | string>
}

export interface Goal {
  /** Label of the baseline the ratio is taken against. */
  against: string
  min: number
  text: string
}

/** What a contender's one answer must be: undefined when it is right, else what is wrong. */
export type AnswerCheck = (status: number, body: string, headers: Headers) => string | undefined

/** A contender that loads one server with one request. */
export function httpContender (label: string, role: Contender['role'], server: RunningServer, request: LoadRequest, connections: number, check?: AnswerCheck): Contender {
  return {
    label,
    role,
    sliceable: true,
    measure: async (opts) => await load(server.origin, request, { ...opts, connections }, server.pid),
    check: async () => {
      const res = await fetch(`${server.origin}${request.path}`, { method: request.method, body: request.body, headers: request.headers })
      const body = await res.text()
      const problem = check?.(res.status, body, res.headers) ?? (res.status >= 400 ? `status ${res.status}` : undefined)
      if (problem !== undefined) throw new Error(`${label} ${request.method} ${request.path}: ${problem}: ${body.slice(0, 300)}`)
    }
  }
}

/**
 * Like httpContender, but each round opens a server of its own from `spec` (started, checked, warmed
 * for `warmSec`), measures it in that round's slices and stops it. What a request costs a process is
 * settled early in its life and kept: two processes of the same server may differ by a quarter for as
 * long as they live (bench/README.md, "One process is one draw"). A contender run in one process per
 * round makes the rounds' spread show that, and the median is over processes, not over the rounds of
 * one. `measure` alone (outside compare) opens, measures once and stops.
 */
export function freshHttpContender (label: string, role: Contender['role'], spec: () => Promise<ServerSpec>, request: LoadRequest, connections: number, warmSec: number, check?: AnswerCheck): Contender {
  const open = async (): Promise<Session> => {
    const server = await startServer(await spec())
    try {
      await httpContender(label, role, server, request, connections, check).check!()
      if (warmSec > 0) await load(server.origin, request, { connections, durationSec: warmSec }, server.pid)
    } catch (err) {
      await server.stop()
      throw err
    }
    return {
      measure: async (opts) => await load(server.origin, request, { ...opts, connections }, server.pid),
      close: async () => { await server.stop() }
    }
  }
  return {
    label,
    role,
    sliceable: true,
    open,
    measure: async (opts) => {
      const session = await open()
      try { return await session.measure(opts) } finally { await session.close() }
    }
  }
}

export async function compare (row: { id: string, title: string, goal?: Goal }, contenders: Contender[], settings: Settings): Promise<RowResult> {
  const runs = new Map<string, LoadResult[]>(contenders.map((c) => [c.label, []]))
  for (const c of contenders) await c.check?.()
  if (!settings.quick) {
    for (const c of contenders) if (c.open === undefined) await c.measure({ connections: settings.connections, durationSec: settings.warmSec })
  }
  const slices = !settings.quick && contenders.every((c) => c.sliceable === true) ? Math.max(1, Math.round(settings.durationSec / SLICE_SEC)) : 1
  for (let round = 0; round < settings.rounds; round++) {
    const sessions: Session[] = []
    try {
      for (const c of contenders) sessions.push(c.open === undefined ? { measure: c.measure, close: async () => {} } : await c.open())
      const parts = contenders.map((): LoadResult[] => [])
      // Slice s of round r starts with contender r + s: each contender is first, middle and last alike.
      for (let slice = 0; slice < slices; slice++) {
        for (let i = 0; i < contenders.length; i++) {
          const k = (i + round + slice) % contenders.length
          parts[k]!.push(await sessions[k]!.measure({ connections: settings.connections, durationSec: settings.durationSec / slices, maxRequests: settings.maxRequests }))
        }
      }
      contenders.forEach((c, k) => {
        const r = combineSlices(parts[k]!)
        runs.get(c.label)!.push(r)
        process.stderr.write(`  ${row.title} · ${c.label} · round ${round + 1}${slices > 1 ? ` (${slices} slices)` : ''}: ${Math.round(r.rps)} req/s, p99 ${r.p99Ms.toFixed(2)} ms` +
          `${r.serverCpu === undefined ? '' : `, server CPU ${Math.round(r.serverCpu * 100)}% (${r.cpuUsPerRequest?.toFixed(1) ?? '–'} µs a request)`}${r.generatorCpu === undefined ? '' : `, generator CPU ${Math.round(r.generatorCpu * 100)}%`}\n`)
      })
    } finally {
      for (const s of sessions) await s.close()
    }
  }
  const lines: Line[] = contenders.map((c) => {
    const rs = runs.get(c.label)!
    const generatorCpus = rs.map((r) => r.generatorCpu).filter((v): v is number => v !== undefined)
    const serverCpus = rs.map((r) => r.serverCpu).filter((v): v is number => v !== undefined)
    const perRequest = rs.map((r) => r.cpuUsPerRequest).filter((v): v is number => v !== undefined)
    return {
      label: c.label,
      role: c.role,
      rps: median(rs.map((r) => r.rps)),
      p99Ms: median(rs.map((r) => r.p99Ms)),
      serverCpu: serverCpus.length > 0 ? median(serverCpus) : undefined,
      cpuUsPerRequest: perRequest.length > 0 ? median(perRequest) : undefined,
      generatorCpu: generatorCpus.length > 0 ? median(generatorCpus) : undefined,
      errors: rs.reduce((n, r) => n + r.errors, 0),
      rounds: rs.map((r) => Math.round(r.rps)),
      cpuRounds: perRequest.length === rs.length ? perRequest : undefined
    }
  })
  return judge(row, lines)
}

/**
 * One round of a contender from its slices: requests, time, errors and CPU summed (CPU per request is
 * the slices' CPU over their requests), the latencies and the generator's share as the slices' median
 * (a slice's p99 is of its own requests; the round's cannot be had from them).
 */
export function combineSlices (parts: readonly LoadResult[]): LoadResult {
  if (parts.length === 1) return parts[0]!
  const requests = parts.reduce((n, p) => n + p.requests, 0)
  const seconds = parts.reduce((n, p) => n + p.seconds, 0)
  const cpuKnown = parts.every((p) => p.cpuUsPerRequest !== undefined)
  const cpuSeconds = cpuKnown ? parts.reduce((n, p) => n + p.cpuUsPerRequest! * p.requests / 1e6, 0) : Number.NaN
  const shares = parts.every((p) => p.serverCpu !== undefined) ? parts.reduce((n, p) => n + p.serverCpu! * p.seconds, 0) / seconds : undefined
  const generator = parts.map((p) => p.generatorCpu).filter((v): v is number => v !== undefined)
  return {
    requests,
    seconds,
    rps: requests / seconds,
    p50Ms: median(parts.map((p) => p.p50Ms)),
    p99Ms: median(parts.map((p) => p.p99Ms)),
    errors: parts.reduce((n, p) => n + p.errors, 0),
    serverCpu: shares,
    cpuUsPerRequest: cpuKnown && requests > 0 ? cpuSeconds * 1e6 / requests : undefined,
    generatorCpu: generator.length > 0 ? median(generator) : undefined
  }
}

/** Ratios, spreads and the verdict of a row from its lines (each with its rounds in the same order). */
export function judge (row: { id: string, title: string, goal?: Goal }, lines: Line[]): RowResult {
  const target = lines.find((l) => l.role === 'target')
  for (const l of lines) {
    if (l.role !== 'baseline' || target === undefined) continue
    if (target.rps !== undefined && l.rps !== undefined) l.ratio = target.rps / l.rps
    if (target.cpuUsPerRequest !== undefined && l.cpuUsPerRequest !== undefined) l.cpuRatio = l.cpuUsPerRequest / target.cpuUsPerRequest
    const perRound = roundRatios(target, l)
    if (perRound.length > 0) l.spread = [Math.min(...perRound), Math.max(...perRound)]
  }
  const result: RowResult = { id: row.id, title: row.title, lines }
  if (row.goal !== undefined) {
    const against = lines.find((l) => l.label === row.goal!.against)
    result.goal = row.goal.text
    result.target = { against: row.goal.against, min: row.goal.min }
    const basis: Basis = against?.cpuRatio !== undefined && Number.isFinite(against.cpuRatio) ? 'cpu' : 'rate'
    const judged = basis === 'cpu' ? against?.cpuRatio : against?.ratio
    if (against !== undefined && judged !== undefined && Number.isFinite(judged)) {
      result.basis = basis
      result.judged = judged
      result.verdict = verdictOf(judged, row.goal.min, against.spread)
      if (result.verdict !== 'undecided') result.met = result.verdict === 'met'
    }
  }
  return result
}

/** Round by round, the target's ratio to a baseline on the row's basis (CPU when both have it in every round). */
function roundRatios (target: Line, baseline: Line): number[] {
  const t = target.cpuRounds
  const b = baseline.cpuRounds
  if (t !== undefined && b !== undefined && t.length === b.length && t.length > 0) return t.map((v, i) => b[i]! / v).filter(Number.isFinite)
  const tr = target.rounds
  const br = baseline.rounds
  if (tr !== undefined && br !== undefined && tr.length === br.length) return tr.map((v, i) => v / br[i]!).filter(Number.isFinite)
  return []
}

/**
 * Met or not met when the run can tell: the rounds' spread (max − min) must be
 * no wider than the judged ratio's margin to the target; otherwise undecided.
 */
export function verdictOf (judged: number, min: number, spread: [number, number] | undefined): Verdict {
  const width = spread === undefined ? 0 : spread[1] - spread[0]
  if (width > Math.abs(judged - min)) return 'undecided'
  return judged >= min ? 'met' : 'not met'
}
