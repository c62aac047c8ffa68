import { describe, expect, it } from 'vitest'
import type { Delivery } from '../../src/domain/index.js'
import { POSTGRES_SKIP_REASON, SKIP_POSTGRES } from './harness.js'
import { changes, claimsAndSettlesBatches, claimsUpToTheLimit, hook, openWebhookStore } from './webhook-queue.suite.js'
import { freshDatabases } from '../helpers/fresh-databases.js'

const database = freshDatabases()

describe.skipIf(SKIP_POSTGRES)(`the webhooks queue on PostgreSQL${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  it('claims the first pending delivery of every record key in one call, leased to one owner, and records a batch of outcomes in one', async () => {
    await claimsAndSettlesBatches({ kind: 'postgres', url: await database(), path: '' })
  })

  it('claims at most the limit, every delivery once', async () => {
    await claimsUpToTheLimit({ kind: 'postgres', url: await database(), path: '' })
  })

  it('never gives one delivery to two instances claiming batches at once (FOR UPDATE SKIP LOCKED)', async () => {
    const url = await database()
    const a = await openWebhookStore({ kind: 'postgres', url, path: '' })
    const b = await openWebhookStore({ kind: 'postgres', url, path: '' })
    try {
      await a.webhooks.create(hook('wh_0000000000000001'))
      await a.webhooks.enqueue(null, 0, [])
      await a.webhooks.enqueue(0, 600, changes('wh_0000000000000001', 600, 1))
      const byA: Delivery[] = []
      const byB: Delivery[] = []
      // Both instances claim batches of 32 at the same time until nothing is left.
      const drain = async (store: typeof a, owner: string, into: Delivery[]): Promise<void> => {
        for (let batch = await store.webhooks.claim(owner, new Date(), 60_000, 32); batch.length > 0; batch = await store.webhooks.claim(owner, new Date(), 60_000, 32)) into.push(...batch)
      }
      await Promise.all([drain(a, 'a', byA), drain(b, 'b', byB), drain(a, 'a2', byA), drain(b, 'b2', byB)])
      const ids = [...byA, ...byB].map((d) => d.id)
      expect(ids).toHaveLength(600)
      expect(new Set(ids).size).toBe(600)
    } finally {
      await a.close()
      await b.close()
    }
  }, 60_000)
})
