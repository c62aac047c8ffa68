import { afterEach, describe, expect, it } from 'vitest'
import { startReceiver, type Receiver } from '../../bench/lib/receiver.js'
import { judge, type Line } from '../../bench/lib/compare.js'
import { medianRound, webhookResult, type Latency } from '../../bench/rows/webhooks.js'

/**
 * The webhooks rows' receiver (bench/lib/receiver.ts), on a real listening
 * socket, and how the row's three parts make one verdict (bench/rows/webhooks.ts).
 */
describe('the webhook receiver', () => {
  let receiver: Receiver | undefined
  afterEach(async () => { await receiver?.close() })

  it('answers 204, counts deliveries and times each from its change', async () => {
    receiver = await startReceiver()
    const at = new Date(Date.now() - 50).toISOString()
    for (let i = 0; i < 3; i++) {
      const res = await fetch(receiver.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'items.created', seq: i, data: { id: i, at } }) })
      expect(res.status).toBe(204)
    }
    await receiver.waitFor(3, 1000)
    expect(receiver.count()).toBe(3)
    const latencies = receiver.latenciesSince(1)
    expect(latencies).toHaveLength(2)
    for (const ms of latencies) expect(ms).toBeGreaterThanOrEqual(40)
    expect(receiver.arrivalOf(3)).toBeGreaterThanOrEqual(receiver.arrivalOf(1))
  })

  it('holds its answers until released: a held delivery has not arrived', async () => {
    receiver = await startReceiver()
    receiver.hold()
    let answered = false
    const res = fetch(receiver.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'items.created', seq: 1, data: { id: 1 } }) })
      .then((r) => { answered = true; return r })
    for (let tries = 0; receiver.waiting() < 1; tries++) {
      expect(tries).toBeLessThan(1_000)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(receiver.count()).toBe(0)
    expect(answered).toBe(false)
    receiver.release()
    expect((await res).status).toBe(204)
    expect(receiver.count()).toBe(1)
    expect(receiver.waiting()).toBe(0)
  })

  it('fails a wait that the deliveries do not fill in time', async () => {
    receiver = await startReceiver()
    await expect(receiver.waitFor(1, 50)).rejects.toThrow(/got 0 deliveries within 50 ms, expected 1/)
  })
})

describe('the webhooks row verdict', () => {
  /** The write-cost comparison: rqs with a webhook against without, by CPU per write. */
  const cost = (withUs: number[], withoutUs: number[]): ReturnType<typeof judge> => {
    const line = (label: string, role: Line['role'], cpu: number[]): Line => ({ label, role, rps: 1000, rounds: cpu.map(() => 1000), cpuUsPerRequest: [...cpu].sort((a, b) => a - b)[Math.floor(cpu.length / 2)], cpuRounds: cpu })
    return judge({ id: 'webhooks-sqlite', title: 'webhooks', goal: { against: 'without', min: 0.95, text: '' } }, [line('with', 'target', withUs), line('without', 'baseline', withoutUs)])
  }
  const fast = { events: 10_000, seconds: 4, eventsPerSecond: 2500 }
  const prompt = { writes: 2000, writesPerSecond: 1000, p50Ms: 20, p99Ms: 300, maxMs: 400 }

  it('is met when the write cost, the delivery rate and the p99 all are', () => {
    const r = webhookResult(cost([102, 101, 103], [100, 100, 100]), fast, prompt)
    expect(r.verdict).toBe('met')
    expect(r.met).toBe(true)
    expect(r.figures?.eventsPerSecond).toBe(2500)
    expect(r.lines.map((l) => l.label)).toEqual(['with', 'without', 'delivery of a backlog', 'change → delivery'])
  })

  it('is not met when delivery is too slow or too late, and says which', () => {
    const slow = webhookResult(cost([102, 101, 103], [100, 100, 100]), { ...fast, eventsPerSecond: 800 }, { ...prompt, p99Ms: 1500 })
    expect(slow.verdict).toBe('not met')
    expect(slow.met).toBe(false)
    expect(slow.note).toBe('not met: delivery below 2 000 events/s; p99 above 1 s')
  })

  it('judges the delivery figures by their rounds: met in every round, in none, or undecided between', () => {
    const rounds = webhookResult(cost([102, 101, 103], [100, 100, 100]), { ...fast, rounds: [2500, 2100, 3000] }, { ...prompt, rounds: [300, 700, 900] })
    expect(rounds.verdict).toBe('met')
    const mixed = webhookResult(cost([102, 101, 103], [100, 100, 100]), { ...fast, rounds: [2500, 2100, 3000] }, { ...prompt, p99Ms: 900, rounds: [300, 900, 2600] })
    expect(mixed.verdict).toBe('undecided')
    expect(mixed.met).toBeUndefined()
    expect(mixed.note).toBe('undecided: the p99 met in some rounds only')
    expect(mixed.lines.find((l) => l.label === 'change → delivery')?.note).toMatch(/p99 900 ms \(rounds 300–2600\)/)
    const none = webhookResult(cost([102, 101, 103], [100, 100, 100]), { ...fast, eventsPerSecond: 1500, rounds: [1500, 1200, 1900] }, prompt)
    expect(none.verdict).toBe('not met')
    expect(none.note).toBe('not met: delivery below 2 000 events/s')
  })

  it('takes the median round of the delivery figures, every round beside it', () => {
    const runs: Latency[] = [{ ...prompt, p99Ms: 900 }, { ...prompt, p99Ms: 100 }, { ...prompt, p99Ms: 400 }]
    expect(medianRound(runs, (l) => l.p99Ms)).toEqual({ ...prompt, p99Ms: 400, rounds: [900, 100, 400] })
  })

  it('stays undecided when only the write cost cannot be told', () => {
    const r = webhookResult(cost([100, 130, 104], [100, 100, 100]), fast, prompt)
    expect(r.verdict).toBe('undecided')
    expect(r.met).toBeUndefined()
    expect(r.note).toBe('delivery met; the write cost undecided')
  })
})
