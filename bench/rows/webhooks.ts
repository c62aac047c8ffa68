/**
 * The webhooks rows, one per durable store: rqs with a webhook registered
 * to a receiver on loopback (lib/receiver.ts) against the same server with
 * none, by CPU per write; then, on the server with the webhook, how fast a
 * backlog of bulk-created changes is delivered, and the time from a change
 * to its delivery while writes arrive at 1 000 a second.
 *
 * "Writes pay ≤ 5 %" is the write's own cost: the request that writes, with
 * a webhook registered, against the same without, neither counting the
 * delivery, which runs after the commit, apart from the request. The
 * receiver holds its answers during the write runs, so the dispatcher's few
 * attempts in flight wait and with them its next rounds: the server's CPU
 * over the run is the writes' (and the commit's wake-up of the dispatcher).
 * Counting the delivery into the write instead would price the receiver's
 * pace and the delivery's batching, which the other two figures report. The
 * delivery's own cost is the backlog's: 10 000 changes written while the
 * receiver holds, then, from its release, the time and the server's CPU
 * until the last is delivered (events/s, CPU µs a delivered event). Before
 * each run the previous run's deliveries are drained.
 */
import { compare, httpContender, type Contender, type Line, type RowResult, type Verdict } from '../lib/compare.js'
import { declaredSpec, type StoreKind } from '../lib/declared.js'
import type { LoadResult } from '../lib/load.js'
import { postJson } from '../lib/loops.js'
import { cpuSeconds } from '../lib/procs.js'
import { startReceiver, type Receiver } from '../lib/receiver.js'
import { noDatabase, type RowContext, type RowModule, type RowSpec } from '../lib/row.js'
import { percentile } from '../lib/stats.js'

const ITEMS = {
  collections: {
    items: { schema: { type: 'object', properties: { name: { type: 'string', maxLength: 100 }, n: { type: 'integer' } }, required: ['name', 'n'] } }
  }
}
const ITEM = { name: 'item', n: 1 }
// A long timeout (and a lease above it): attempts the receiver holds through a write run are not given up and retried.
const WEBHOOK_OPTIONS = { RQS_WEBHOOKS: 'true', RQS_WEBHOOK_ALLOW_HOSTS: '127.0.0.1', RQS_WEBHOOK_TIMEOUT_MS: '300000', RQS_WEBHOOK_LEASE_MS: '600000' }
/** How long the deliveries of one step may take before the row fails. */
const DRAIN_TIMEOUT_MS = 300_000
const WRITE_RATE = 1000
const WITH = 'rqs, a webhook registered (the write; its delivery held back)'
const WITHOUT = 'rqs, no webhook'

export function webhookRows (ctx: RowContext): RowModule {
  const { settings, quick } = ctx
  const receivers = new Map<StoreKind, Promise<Receiver>>()
  const receiverOf = async (store: StoreKind): Promise<Receiver> => {
    let r = receivers.get(store)
    if (r === undefined) {
      r = startReceiver()
      receivers.set(store, r)
      ctx.declared.cleanup(async () => { await (await r!).close() })
    }
    return await r
  }
  const recipes: RowModule['recipes'] = {}
  const rows: RowSpec[] = []
  for (const store of ['sqlite', 'postgres'] as const) {
    recipes[`webhook-on-${store}`] = async () => await declaredSpec(ctx.declared, {
      label: `rqs-webhook-on-${store}`,
      declaration: ITEMS,
      store,
      options: WEBHOOK_OPTIONS,
      setup: [{ method: 'POST', url: '/webhooks', body: { url: (await receiverOf(store)).url, events: ['items.*'] } }]
    })
    // The same server, webhooks served, none registered: the row prices the registration.
    recipes[`webhook-off-${store}`] = async () => await declaredSpec(ctx.declared, { label: `rqs-webhook-off-${store}`, declaration: ITEMS, store, options: WEBHOOK_OPTIONS })
    const id = store === 'sqlite' ? 'webhooks-sqlite' : 'webhooks-pg'
    const connections = store === 'postgres' ? 10 : settings.connections
    const title = `webhooks, ${store === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: writes and delivery`
    rows.push({
      id,
      group: 'webhooks',
      title,
      servers: [`webhook-on-${store}`, `webhook-off-${store}`],
      ...(store === 'postgres' ? { skip: noDatabase } : {}),
      run: async (s) => {
        const on = s[`webhook-on-${store}`]!
        const off = s[`webhook-off-${store}`]!
        const receiver = await receiverOf(store)
        const request = { method: 'POST', path: '/items', body: JSON.stringify(ITEM), headers: { 'content-type': 'application/json' } }
        const written = { count: 0 }
        const cost = await compare({ id, title, goal: { against: WITHOUT, min: 0.95, text: '' } }, [
          heldContender(httpContender(WITH, 'target', on, request, connections), receiver, written),
          httpContender(WITHOUT, 'baseline', off, request, connections)
        ], { ...settings, connections })
        // Writes the generator had in flight when it stopped are stored too: wait for them, then count from there.
        await receiver.waitFor(written.count, DRAIN_TIMEOUT_MS)
        await new Promise((resolve) => setTimeout(resolve, 500))
        // The delivery figures in rounds too: one paced run is one stretch of a shared host, and its p99 moves with it.
        const throughputs: Throughput[] = []
        const latencies: Latency[] = []
        for (let round = 0; round < (quick ? 1 : settings.rounds); round++) {
          const throughput = await backlogDelivery(`${on.origin}/items`, on.pid, receiver, quick ? 200 : 10_000)
          const latency = await changeToDelivery(`${on.origin}/items`, receiver, quick ? 100 : Math.round(WRITE_RATE * settings.durationSec))
          throughputs.push(throughput)
          latencies.push(latency)
          process.stderr.write(`  ${title} · delivery · round ${round + 1}: backlog ${Math.round(throughput.eventsPerSecond)} events/s; ` +
            `paced ${Math.round(latency.writesPerSecond)} writes/s, change → delivery p50 ${latency.p50Ms.toFixed(0)} ms, p99 ${latency.p99Ms.toFixed(0)} ms, max ${latency.maxMs.toFixed(0)} ms\n`)
        }
        return webhookResult(cost, medianRound(throughputs, (t) => t.eventsPerSecond), medianRound(latencies, (l) => l.p99Ms))
      }
    })
  }
  return { recipes, rows }
}

/**
 * A load run on the server with the webhook while the receiver holds its
 * answers: the run's CPU is its writes'. The run's deliveries follow it,
 * uncounted, and are in before it returns.
 */
function heldContender (inner: Contender, receiver: Receiver, written: { count: number }): Contender {
  return {
    ...inner,
    measure: async (opts) => {
      await receiver.waitFor(written.count, DRAIN_TIMEOUT_MS)
      written.count = Math.max(written.count, receiver.count())
      receiver.hold()
      let r: LoadResult
      try {
        r = await inner.measure(opts)
      } finally { receiver.release() }
      written.count += r.requests - r.errors
      // Delivered before the next run (a slice of the other server, measured interleaved with this one's) starts.
      await receiver.waitFor(written.count, DRAIN_TIMEOUT_MS)
      return r
    }
  }
}

/**
 * `cpuUsPerEvent`: the server's CPU from the receiver's release until the last delivery, per event (the delivery alone).
 * `rounds`: each round's events a second, when there were several (this one is their median).
 */
export interface Throughput { events: number, seconds: number, eventsPerSecond: number, serverCpu?: number, cpuUsPerEvent?: number, rounds?: number[] }

/** The round whose `key` is the median (the lower middle of an even count), with every round's `key` beside it. */
export function medianRound<T extends { rounds?: number[] }> (runs: readonly T[], key: (run: T) => number): T {
  const sorted = [...runs].sort((a, b) => key(a) - key(b))
  return { ...sorted[Math.floor((sorted.length - 1) / 2)]!, rounds: runs.map(key) }
}

/** Met when every round meets `ok`, not met when none does, else undecided. */
function roundsVerdict (value: number, rounds: number[] | undefined, ok: (v: number) => boolean): Verdict {
  const all = rounds ?? [value]
  if (all.every(ok)) return 'met'
  return all.some(ok) ? 'undecided' : 'not met'
}

function spreadText (rounds: number[] | undefined, digits = 0): string {
  if (rounds === undefined || rounds.length < 2) return ''
  return ` (rounds ${Math.min(...rounds).toFixed(digits)}–${Math.max(...rounds).toFixed(digits)})`
}

/**
 * A backlog: bulk-creates `n` items (1 000 a request) while the receiver
 * holds, then times their delivery from its release until it has every one.
 */
async function backlogDelivery (url: string, pid: number, receiver: Receiver, n: number): Promise<Throughput> {
  const start = receiver.count()
  receiver.hold()
  try {
    for (let done = 0; done < n; done += 1000) {
      await postJson(url, Array.from({ length: Math.min(1000, n - done) }, (_, i) => ({ name: 'bulk', n: done + i })))
    }
  } catch (err) { receiver.release(); throw err }
  const cpu0 = cpuSeconds(pid)
  const t0 = performance.now()
  receiver.release()
  await receiver.waitFor(start + n, DRAIN_TIMEOUT_MS)
  const seconds = (receiver.arrivalOf(start + n) - t0) / 1000
  const cpu = cpuSeconds(pid) - cpu0
  return { events: n, seconds, eventsPerSecond: n / seconds, serverCpu: cpu / seconds, cpuUsPerEvent: cpu * 1e6 / n }
}

/** `rounds`: each round's p99, when there were several (this one is their median). */
export interface Latency { writes: number, writesPerSecond: number, p50Ms: number, p99Ms: number, maxMs: number, rounds?: number[] }

/** `n` single POSTs paced at WRITE_RATE a second (at most 256 in flight); each change's time to its delivery. */
async function changeToDelivery (url: string, receiver: Receiver, n: number): Promise<Latency> {
  const mark = receiver.count()
  const pending = new Set<Promise<unknown>>()
  let sent = 0
  const t0 = performance.now()
  while (sent < n) {
    const due = Math.min(n, Math.floor((performance.now() - t0) / 1000 * WRITE_RATE) + 1)
    while (sent < due && pending.size < 256) {
      const p: Promise<unknown> = postJson(url, { name: 'paced', n: sent++ }).finally(() => pending.delete(p))
      pending.add(p)
    }
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  await Promise.all(pending)
  const writesPerSecond = n / ((performance.now() - t0) / 1000)
  await receiver.waitFor(mark + n, DRAIN_TIMEOUT_MS)
  const ms = receiver.latenciesSince(mark).filter(Number.isFinite)
  return { writes: n, writesPerSecond, p50Ms: percentile(ms, 50), p99Ms: percentile(ms, 99), maxMs: Math.max(...ms) }
}

/** The cost row with the delivery figures beside it; met when all three parts are. */
export function webhookResult (cost: RowResult, throughput: Throughput, latency: Latency): RowResult {
  const fast = roundsVerdict(throughput.eventsPerSecond, throughput.rounds, (v) => v >= 2000)
  const prompt = roundsVerdict(latency.p99Ms, latency.rounds, (v) => v <= 1000)
  const lines: Line[] = [
    ...cost.lines,
    { label: 'delivery of a backlog', role: 'target', rps: throughput.eventsPerSecond, serverCpu: throughput.serverCpu, cpuUsPerRequest: throughput.cpuUsPerEvent, note: `${throughput.events.toLocaleString('en')} bulk-created changes, held, then delivered in ${throughput.seconds.toFixed(2)} s (events/s${spreadText(throughput.rounds)}; the server's CPU a delivered change)` },
    { label: 'change → delivery', role: 'target', rps: latency.writesPerSecond, p99Ms: latency.p99Ms, note: `${latency.writes.toLocaleString('en')} single POSTs paced at ${WRITE_RATE}/s (req/s: the rate reached): p50 ${latency.p50Ms.toFixed(0)} ms, p99 ${latency.p99Ms.toFixed(0)} ms${spreadText(latency.rounds)}, max ${latency.maxMs.toFixed(0)} ms` }
  ]
  const result: RowResult = {
    ...cost,
    goal: '≥ 2 000 events/s; p99 ≤ 1 s at 1 000 writes/s; writes ≤ 5 % dearer (≥ 0.95×)',
    lines,
    figures: {
      eventsPerSecond: throughput.eventsPerSecond,
      deliveryCpuUsPerEvent: throughput.cpuUsPerEvent ?? Number.NaN,
      pacedWritesPerSecond: latency.writesPerSecond,
      changeToDeliveryP50Ms: latency.p50Ms,
      changeToDeliveryP99Ms: latency.p99Ms,
      changeToDeliveryMaxMs: latency.maxMs,
      writeCostRatio: cost.judged ?? Number.NaN
    }
  }
  const misses = [...(fast === 'not met' ? ['delivery below 2 000 events/s'] : []), ...(prompt === 'not met' ? ['p99 above 1 s'] : [])]
  if (cost.verdict === 'not met') misses.push('writes more than 5 % dearer')
  const untold = [...(fast === 'undecided' ? ['the delivery rate'] : []), ...(prompt === 'undecided' ? ['the p99'] : [])]
  if (misses.length > 0) {
    result.verdict = 'not met'
    result.met = false
    result.note = `not met: ${misses.join('; ')}`
  } else if (untold.length > 0) {
    result.verdict = 'undecided'
    delete result.met
    result.note = `undecided: ${untold.join(' and ')} met in some rounds only${cost.verdict === 'undecided' ? '; the write cost undecided' : ''}`
  } else {
    result.note = cost.verdict === 'undecided' ? 'delivery met; the write cost undecided' : undefined
  }
  return result
}
