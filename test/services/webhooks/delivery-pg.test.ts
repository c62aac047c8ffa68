import { describe, expect, it } from 'vitest'
import { POSTGRES_SKIP_REASON, SKIP_POSTGRES } from '../../stores/harness.js'
import { request, startServer } from '../../helpers/server.js'
import { makeConfig } from '../../../src/options.js'
import { openStores } from '../../../src/stores/index.js'
import { builtInDeclarations } from '../../helpers/built-ins.js'
import { everyChangeOnce, FAST, filteredDelivery, orderUnderConcurrency, register, resumesAfterRestart, retriedWithBackoff, slowAnswerHoldsNoOther } from './delivery.suite.js'
import { eventually, Receiver, validSignature } from './receiver.js'
import { freshDatabases } from '../../helpers/fresh-databases.js'

/** A fresh database per test: the dispatchers' position and queue are the database's. */
const database = freshDatabases()

describe.skipIf(SKIP_POSTGRES)(`webhooks on PostgreSQL${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  it('delivers every change once, in per-record order, with valid signatures', async () => {
    await everyChangeOnce({ store: { kind: 'postgres', url: await database() } })
  })

  it('retries 500, 500, 500 with growing delays and delivers at the fourth attempt', async () => {
    await retriedWithBackoff({ store: { kind: 'postgres', url: await database() } })
  })

  it('keeps per-record order with 16 attempts at once to a slow receiver, on kept-alive connections', async () => {
    await orderUnderConcurrency({ store: { kind: 'postgres', url: await database() } })
  }, 90_000)

  it('delivers the changes written while an answer is awaited, before that answer comes', async () => {
    await slowAnswerHoldsNoOther({ store: { kind: 'postgres', url: await database() } })
  })

  it('delivers only the changes a filter lets through: creates and replaces that match after, deletes when listed', async () => {
    await filteredDelivery({ store: { kind: 'postgres', url: await database() } })
  })

  it('resumes after a restart: nothing twice, nothing lost, pending retries kept', async () => {
    await resumesAfterRestart({ kind: 'postgres', url: await database() })
  }, 60_000) // four starts of a server on a durable store: slow on a loaded machine

  it('with two instances on one database, delivers each of 200 changes exactly once', async () => {
    const url = await database()
    const receiver = await new Receiver().listen()
    const a = await startServer({ store: { kind: 'postgres', url }, webhooks: FAST })
    const b = await startServer({ store: { kind: 'postgres', url }, webhooks: FAST })
    try {
      const { secret } = await register(a.origin, { url: receiver.url, events: ['students.created', 'addresses.*'] })
      // Writes through both instances, concurrently.
      const writes = 200
      await Promise.all(Array.from({ length: writes }, async (_, i) => {
        const origin = i % 2 === 0 ? a.origin : b.origin
        const res = await request(`${origin}/addresses`, { method: 'POST', json: { name: `N${i}`, city: 'Kiel', postalCode: '24103' } })
        expect(res.status).toBe(201)
      }))
      await eventually(() => receiver.received.length >= writes, 30_000)
      await new Promise((resolve) => setTimeout(resolve, 500))
      const ids = receiver.received.map((r) => String(r.headers['webhook-id']))
      expect(ids).toHaveLength(writes)
      expect(new Set(ids).size).toBe(writes)
      expect(receiver.events().map((e) => e.seq).sort((x, y) => x - y)).toEqual(Array.from({ length: writes }, (_, i) => i + 1))
      expect(receiver.received.every((r) => validSignature(secret, r))).toBe(true)
    } finally {
      await a.close()
      await b.close()
      await receiver.close()
    }
  }, 60_000)

  it('lets another instance take over a delivery whose lease expired (its instance died)', async () => {
    const url = await database()
    const receiver = await new Receiver().listen()
    // A's attempts all fail (however many it makes before it stops), so the delivery is left pending.
    receiver.answer(...Array.from({ length: 1_000 }, () => 503))
    const a = await startServer({ store: { kind: 'postgres', url }, webhooks: { ...FAST, retryBaseMs: 500 } })
    await register(a.origin, { url: receiver.url, events: ['students.created'] })
    expect((await request(`${a.origin}/students`, { method: 'POST', json: { firstName: 'A', lastName: 'B', age: 30 } })).status).toBe(201)
    await eventually(() => receiver.received.length >= 1)
    await a.close()
    const attemptsByA = receiver.received.length
    receiver.answerNormally()
    // A "dead" instance holds the delivery: claimed once due, never settled.
    const stores = await openStores(makeConfig({ store: { kind: 'postgres', url } }).store, undefined, builtInDeclarations())
    let claimedAt = 0
    try {
      await eventually(async () => {
        claimedAt = Date.now()
        const claimed = await stores.webhooks?.claim('dead', new Date(claimedAt), 2_000, 10) ?? []
        return claimed.length === 1
      })
    } finally { await stores.close() }
    const b = await startServer({ store: { kind: 'postgres', url }, webhooks: FAST })
    try {
      await eventually(() => receiver.delivered().length === 1)
      // Not before the lease (claimedAt + 2 s) expired.
      expect(receiver.delivered()[0]!.at - claimedAt).toBeGreaterThanOrEqual(2_000)
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(receiver.received).toHaveLength(attemptsByA + 1)
      expect(receiver.delivered()).toHaveLength(1)
    } finally {
      await b.close()
      await receiver.close()
    }
  }, 60_000)
})
