import { expect } from 'vitest'
import type { AttemptOutcome, Delivery, NewDelivery, Webhook, WebhookStore } from '../../src/domain/index.js'
import type { ConfigOverrides } from '../../src/options.js'
import { makeConfig } from '../../src/options.js'
import { openStores } from '../../src/stores/index.js'
import { builtInDeclarations } from '../helpers/built-ins.js'

/**
 * The webhooks' queue as every store keeps it: a batch claimed in one call
 * (the first pending delivery of each record key, leased to one owner), and
 * a batch of outcomes recorded in one call.
 */

export type StoreConfig = ConfigOverrides['store']

export async function openWebhookStore (store: StoreConfig): Promise<{ webhooks: WebhookStore, close: () => Promise<void> }> {
  const stores = await openStores(makeConfig({ store }).store, undefined, builtInDeclarations())
  if (stores.webhooks === undefined) throw new Error('no webhook store')
  return { webhooks: stores.webhooks, close: async () => { await stores.close() } }
}

export function hook (id: string): Webhook {
  const now = new Date()
  return { id, url: 'http://127.0.0.1:9/hook', events: ['*.*'], description: '', filter: null, enabled: true, disabledReason: null, secret: 'whsec_AAAA', previousSecret: null, previousSecretUntil: null, afterSeq: 0, createdAt: now, updatedAt: now }
}

/** `keys` records with `perKey` changes each, interleaved: seq 1 is key 0's first, seq 2 key 1's first, … */
export function changes (webhookId: string, keys: number, perKey: number, createdAt = new Date(Date.now() - 1_000)): NewDelivery[] {
  return Array.from({ length: keys * perKey }, (_, i) => ({
    webhookId, id: `c${i + 1}`, seq: i + 1, event: 'items.updated', recordKey: `items/${i % keys}`, body: `{"seq":${i + 1}}`, createdAt, retryUntil: new Date(createdAt.getTime() + 86_400_000)
  }))
}

const delivered = (at = new Date()): AttemptOutcome => ({ at, status: 204, error: null, durationMs: 3, delivered: true, nextAt: null })
const LEASE = 60_000

/** A batch is the first pending delivery of every key, in sequence order; a second owner gets none of it; outcomes go in in one call. */
export async function claimsAndSettlesBatches (store: StoreConfig): Promise<void> {
  const { webhooks, close } = await openWebhookStore(store)
  try {
    await webhooks.create(hook('wh_0000000000000001'))
    expect(await webhooks.enqueue(null, 0, [])).toBe(true)
    expect(await webhooks.enqueue(0, 90, changes('wh_0000000000000001', 30, 3))).toBe(true)
    const first = await webhooks.claim('a', new Date(), LEASE, 1_000)
    expect(first.map((d) => d.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1))
    expect(await webhooks.claim('b', new Date(), LEASE, 1_000)).toEqual([])
    // Another owner's outcomes change nothing: the lease is a's.
    await webhooks.settle('b', first.map((d) => ({ webhookId: d.webhookId, id: d.id, outcome: delivered() })))
    expect(await webhooks.claim('a', new Date(), LEASE, 1_000)).toEqual([])
    // All but the first key's delivered; that one fails and is due again later: it blocks its key.
    const later = new Date(Date.now() + 3_600_000)
    await webhooks.settle('a', first.map((d, i) => ({ webhookId: d.webhookId, id: d.id, outcome: i === 0 ? { ...delivered(), status: 500, delivered: false, nextAt: later } : delivered() })))
    const second = await webhooks.claim('b', new Date(), LEASE, 1_000)
    expect(second.map((d) => d.seq)).toEqual(Array.from({ length: 29 }, (_, i) => i + 32))
    const recorded = new Map((await webhooks.deliveries('wh_0000000000000001', 1_000)).map((d) => [d.seq, d]))
    expect(recorded.get(1)).toMatchObject({ state: 'pending', attempts: 1, lastStatus: 500, nextAt: later })
    expect(recorded.get(2)).toMatchObject({ state: 'delivered', attempts: 1, lastStatus: 204, nextAt: null })
    expect(recorded.get(31)).toMatchObject({ state: 'pending', attempts: 0 })
    await webhooks.settle('b', second.map((d) => ({ webhookId: d.webhookId, id: d.id, outcome: delivered() })))
    // The retry comes due: the first key's failed one is claimed again (its later ones still wait behind it), with the other keys' third.
    const third = await webhooks.claim('a', new Date(later.getTime() + 1), LEASE, 1_000)
    expect(third.map((d) => d.seq)).toEqual([1, ...Array.from({ length: 29 }, (_, i) => i + 62)])
    // A batch whose outcome disables the webhook: no more claims.
    await webhooks.settle('a', [{ webhookId: third[0]!.webhookId, id: third[0]!.id, outcome: { ...delivered(), status: 500, delivered: false, nextAt: null, disable: 'failed for good' } }])
    expect(await webhooks.get('wh_0000000000000001')).toMatchObject({ enabled: false, disabledReason: 'failed for good' })
    expect(await webhooks.claim('c', new Date(later.getTime() + LEASE * 2), LEASE, 1_000)).toEqual([])
  } finally { await close() }
}

/** A claim takes at most `limit`, the earliest first, across webhooks. */
export async function claimsUpToTheLimit (store: StoreConfig): Promise<void> {
  const { webhooks, close } = await openWebhookStore(store)
  try {
    await webhooks.create(hook('wh_0000000000000001'))
    await webhooks.create(hook('wh_0000000000000002'))
    await webhooks.enqueue(null, 0, [])
    await webhooks.enqueue(0, 40, [...changes('wh_0000000000000001', 40, 1), ...changes('wh_0000000000000002', 40, 1)])
    const claimed: Delivery[] = []
    for (let batch = await webhooks.claim('a', new Date(), LEASE, 16); batch.length > 0; batch = await webhooks.claim('a', new Date(), LEASE, 16)) {
      expect(batch.length).toBeLessThanOrEqual(16)
      claimed.push(...batch)
    }
    expect(claimed).toHaveLength(80)
    expect(new Set(claimed.map((d) => `${d.webhookId} ${d.id}`)).size).toBe(80)
  } finally { await close() }
}
