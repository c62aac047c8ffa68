import { expect } from 'vitest'
import type { ConfigOverrides } from '../../../src/options.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { eventually, Receiver, validSignature } from './receiver.js'

const V2 = { accept: 'application/vnd.rqs.v2+json' }

/** Fast retries, a quick poll: the schedule is the production one scaled down. */
export const FAST: ConfigOverrides['webhooks'] = { enabled: true, allowHosts: ['127.0.0.1'], retryBaseMs: 100, retryMaxMs: 2_000, pollMs: 25, timeoutMs: 2_000 }

export async function register (origin: string, body: Record<string, unknown>): Promise<{ id: string, secret: string }> {
  const res = await request(`${origin}/webhooks`, { method: 'POST', json: body })
  expect(res.status, res.text).toBe(201)
  return res.body
}

/** Writes students: N creates, then a replace of each, then a delete of every other one. Returns the number of changes. */
export async function writeStudents (origin: string, n: number): Promise<number> {
  const ids: number[] = []
  for (let i = 0; i < n; i++) {
    const res = await request(`${origin}/students`, { method: 'POST', json: { firstName: `F${i}`, lastName: 'L', age: 20 } })
    expect(res.status).toBe(201)
    ids.push(res.body.body.id)
  }
  await Promise.all(ids.map(async (id, i) => {
    const res = await request(`${origin}/students/${id}`, { method: 'PUT', headers: V2, json: { firstName: `F${i}`, lastName: 'M', age: 21 } })
    expect(res.status, res.text).toBe(200)
  }))
  let deletes = 0
  for (const id of ids.filter((_, i) => i % 2 === 0)) {
    const res = await request(`${origin}/students/${id}`, { method: 'DELETE' })
    expect(res.status, res.text).toBe(200)
    deletes++
  }
  return n * 2 + deletes
}

/** Every change once, in per-record order, signed (issue 34, "done when", first item). */
export async function everyChangeOnce (overrides: ConfigOverrides, n = 40): Promise<void> {
  const receiver = await new Receiver().listen()
  const server = await startServer({ ...overrides, webhooks: FAST })
  try {
    const { secret } = await register(server.origin, { url: receiver.url, events: ['students.*'], description: 'all students' })
    const changes = await writeStudents(server.origin, n)
    await eventually(() => receiver.received.length >= changes)
    // Nothing more arrives: every change once.
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(receiver.received).toHaveLength(changes)
    const events = receiver.events()
    expect(events.map((e) => e.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: changes }, (_, i) => i + 1))
    // Per record, in sequence order, created first.
    const byRecord = new Map<unknown, Array<{ seq: number, type: string }>>()
    for (const e of events) byRecord.set(e.data.id, [...byRecord.get(e.data.id) ?? [], e])
    for (const list of byRecord.values()) {
      expect(list.map((e) => e.seq)).toEqual([...list.map((e) => e.seq)].sort((a, b) => a - b))
      expect(list[0]?.type).toBe('students.created')
    }
    for (const r of receiver.received) {
      expect(validSignature(secret, r)).toBe(true)
      expect(r.headers['webhook-id']).toMatch(/^msg_wh_[0-9a-f]{16}_c\d+$/)
      expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60)
      expect(r.headers['content-type']).toBe('application/json')
    }
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(changes)
  } finally {
    await server.close()
    await receiver.close()
  }
}

/** 500, 500, 500 then 200: delivered at the fourth attempt, each wait longer than the one before. */
export async function retriedWithBackoff (overrides: ConfigOverrides): Promise<void> {
  const receiver = await new Receiver().listen()
  // Waits of 240–300, 480–600 and 960–1 200 ms: apart by more than a loaded machine's delays.
  const server = await startServer({ ...overrides, webhooks: { ...FAST, retryBaseMs: 300 } })
  try {
    const { id } = await register(server.origin, { url: receiver.url, events: ['students.created'] })
    receiver.answer(500, 500, 500)
    expect((await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'A', lastName: 'B', age: 30 } })).status).toBe(201)
    await eventually(() => receiver.received.length >= 4)
    const times = receiver.received.map((r) => r.at)
    const waits = times.slice(1).map((t, i) => t - (times[i] as number))
    expect(waits[1]).toBeGreaterThan(waits[0] as number)
    expect(waits[2]).toBeGreaterThan(waits[1] as number)
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1)
    await eventually(async () => (await request(`${server.origin}/webhooks/${id}/deliveries`)).body.deliveries[0]?.state === 'delivered')
    const [delivery] = (await request(`${server.origin}/webhooks/${id}/deliveries`)).body.deliveries
    expect(delivery).toMatchObject({ event: 'students.created', seq: 1, state: 'delivered', attempts: 4, status: 200, nextAttemptAt: null })
    expect(delivery.durationMs).toBeGreaterThanOrEqual(0)
  } finally {
    await server.close()
    await receiver.close()
  }
}

/**
 * An answer that takes long holds back no other record's delivery: the
 * changes written while it is awaited are claimed and delivered meanwhile
 * (the dispatcher used to wait for a batch's every answer before its next
 * claim, so one slow receiver answer delayed every change behind it).
 */
export async function slowAnswerHoldsNoOther (overrides: ConfigOverrides): Promise<void> {
  const receiver = await new Receiver().listen()
  // A timeout far above the test's length: the held attempt is not given up and retried meanwhile.
  const server = await startServer({ ...overrides, webhooks: { ...FAST, timeoutMs: 60_000 } })
  const create = async (firstName: string): Promise<void> => {
    expect((await request(`${server.origin}/students`, { method: 'POST', json: { firstName, lastName: 'L', age: 20 } })).status).toBe(201)
  }
  try {
    const { id } = await register(server.origin, { url: receiver.url, events: ['students.created'] })
    receiver.holdNext()
    await create('Held')
    await eventually(() => receiver.received.length === 1)
    await create('Second')
    await create('Third')
    // Delivered while the first attempt still waits for its answer.
    await eventually(() => receiver.received.length === 3)
    expect(receiver.events().map((e) => e.seq)).toEqual([1, 2, 3])
    const pending = (await request(`${server.origin}/webhooks/${id}/deliveries`)).body.deliveries.find((d: { seq: number }) => d.seq === 1)
    expect(pending).toMatchObject({ state: 'pending', attempts: 0 })
    receiver.releaseHeld()
    await eventually(async () => (await request(`${server.origin}/webhooks/${id}/deliveries`)).body.deliveries.every((d: { state: string }) => d.state === 'delivered'))
    expect(receiver.received).toHaveLength(3)
  } finally {
    receiver.releaseHeld()
    await server.close()
    await receiver.close()
  }
}

export type { RunningServer }

/**
 * A restart resumes where delivery stopped: what was delivered is not sent
 * again, changes written while no dispatcher ran are delivered, and a
 * pending retry survives (a durable store: SQLite, PostgreSQL).
 */
export async function resumesAfterRestart (store: ConfigOverrides['store']): Promise<void> {
  const receiver = await new Receiver().listen()
  const create = async (origin: string, n: number): Promise<void> => {
    for (let i = 0; i < n; i++) expect((await request(`${origin}/students`, { method: 'POST', json: { firstName: `F${i}`, lastName: 'L', age: 20 } })).status).toBe(201)
  }
  let server = await startServer({ store, webhooks: FAST })
  try {
    await register(server.origin, { url: receiver.url, events: ['students.*'] })
    await create(server.origin, 3)
    await eventually(() => receiver.delivered().length >= 3)
    await server.close()

    // Written while no dispatcher runs.
    server = await startServer({ store, webhooks: { enabled: false } })
    await create(server.origin, 3)
    await server.close()

    // Each of those fails once; the retry is due after the server stopped.
    receiver.answer(503, 503, 503)
    server = await startServer({ store, webhooks: { ...FAST, retryBaseMs: 1_500 } })
    await eventually(() => receiver.received.length >= 6)
    await server.close()

    server = await startServer({ store, webhooks: FAST })
    await eventually(() => receiver.delivered().length >= 6)
    await new Promise((resolve) => setTimeout(resolve, 300))
    const delivered = receiver.delivered().map((r) => JSON.parse(r.body).seq as number).sort((a, b) => a - b)
    expect(delivered).toEqual([1, 2, 3, 4, 5, 6])
    expect(receiver.received.filter((r) => r.status === 503).map((r) => JSON.parse(r.body).seq as number).sort()).toEqual([4, 5, 6])
  } finally {
    await server.close()
    await receiver.close()
  }
}

/**
 * Filters (issue 34 item 1): a create or replace is delivered when the record
 * after it matches; a delete only to a webhook that lists `students.deleted`
 * itself. Two webhooks on one receiver, told apart by their webhook-id.
 */
export async function filteredDelivery (overrides: ConfigOverrides): Promise<void> {
  const receiver = await new Receiver().listen()
  const server = await startServer({ ...overrides, webhooks: FAST })
  try {
    const star = await register(server.origin, { url: receiver.url, events: ['students.*'], filter: 'age >= 30' })
    const listed = await register(server.origin, { url: receiver.url, events: ['students.created', 'students.replaced', 'students.deleted'], filter: 'age >= 30 && lastName ~ \'love\'' })
    const all = await register(server.origin, { url: receiver.url, events: ['students.*'] })
    const create = async (age: number): Promise<number> => {
      const res = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'A', lastName: 'Lovelace', age } })
      expect(res.status).toBe(201)
      return res.body.body.id
    }
    const young = await create(20)
    const old = await create(40)
    for (const [id, age] of [[young, 35], [old, 25]] as const) {
      expect((await request(`${server.origin}/students/${id}`, { method: 'PUT', headers: V2, json: { firstName: 'A', lastName: 'Lovelace', age } })).status).toBe(200)
    }
    for (const id of [young, old]) expect((await request(`${server.origin}/students/${id}`, { method: 'DELETE' })).status).toBe(200)
    const of = (hook: { id: string }): string[] => receiver.received
      .filter((r) => String(r.headers['webhook-id']).startsWith(`msg_${hook.id}_`))
      .map((r) => JSON.parse(r.body) as { type: string, data: { id: number } })
      .map((e) => `${e.type} ${e.data.id === young ? 'young' : 'old'}`)
    // The unfiltered webhook gets all six; by then the filtered ones had theirs queued (one fan-out, in order).
    await eventually(() => of(all).length >= 6)
    await eventually(() => of(star).length >= 2 && of(listed).length >= 4)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(of(star).sort()).toEqual(['students.created old', 'students.replaced young'])
    expect(of(listed).sort()).toEqual(['students.created old', 'students.deleted old', 'students.deleted young', 'students.replaced young'])
    expect(of(all)).toHaveLength(6)
  } finally {
    await server.close()
    await receiver.close()
  }
}

/**
 * Per-record order under concurrency: 24 records changed six times each, in
 * rounds of concurrent writes, delivered 16 at a time to a receiver whose
 * answers take a random while (so attempts overlap and end out of order);
 * each record's events still arrive in sequence order, over kept-alive
 * connections (never more open at once than the concurrency).
 */
export async function orderUnderConcurrency (overrides: ConfigOverrides): Promise<void> {
  const receiver = await new Receiver().listen()
  receiver.answerSlowly(20)
  const server = await startServer({ ...overrides, webhooks: { ...FAST, concurrency: 16 } })
  try {
    await register(server.origin, { url: receiver.url, events: ['students.*'] })
    const ids: number[] = []
    for (let i = 0; i < 24; i++) {
      const res = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: `F${i}`, lastName: 'L', age: 20 } })
      expect(res.status).toBe(201)
      ids.push(res.body.body.id)
    }
    for (let round = 1; round <= 5; round++) {
      await Promise.all(ids.map(async (id, i) => {
        const res = await request(`${server.origin}/students/${id}`, { method: 'PUT', headers: V2, json: { firstName: `F${i}`, lastName: `R${round}`, age: 20 + round } })
        expect(res.status, res.text).toBe(200)
      }))
    }
    const changes = ids.length * 6
    await eventually(() => receiver.received.length >= changes, 60_000)
    const byRecord = new Map<unknown, number[]>()
    for (const e of receiver.events()) byRecord.set(e.data.id, [...byRecord.get(e.data.id) ?? [], e.seq])
    expect(byRecord.size).toBe(ids.length)
    for (const seqs of byRecord.values()) {
      expect(seqs).toHaveLength(6)
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
    }
    // Concurrent attempts, up to the bound, on connections that were reused.
    expect(receiver.peaks.inFlight).toBeGreaterThan(1)
    expect(receiver.peaks.inFlight).toBeLessThanOrEqual(16)
    expect(receiver.peaks.openConnections).toBeLessThanOrEqual(16)
    expect(receiver.peaks.connections).toBeLessThan(changes / 2)
  } finally {
    await server.close()
    await receiver.close()
  }
}
