import type { AttemptOf, AttemptOutcome, Delivery, NewDelivery, Webhook, WebhookStore } from '../../domain/index.js'

interface Held extends Delivery {
  leasedBy: string | null
  leaseUntil: number
}

/**
 * The memory store's webhooks: lost with the process, deliveries pending or
 * not (docs/webhooks.md says so). One instance only, but the same contract:
 * leases, per-key order.
 */
export class MemoryWebhookStore implements WebhookStore {
  readonly #webhooks = new Map<string, Webhook>()
  /** Per webhook, its deliveries in the order they were queued. */
  readonly #deliveries = new Map<string, Map<string, Held>>()
  /** Per webhook, its pending deliveries: what a claim looks at, however long the history. */
  readonly #pending = new Map<string, Map<string, Held>>()
  #position: number | null = null

  async create (webhook: Webhook): Promise<void> {
    this.#webhooks.set(webhook.id, { ...webhook })
    this.#deliveries.set(webhook.id, new Map())
    this.#pending.set(webhook.id, new Map())
  }

  async list (): Promise<Webhook[]> {
    // By id, as the SQL stores list them.
    return [...this.#webhooks.values()].sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0).map((w) => ({ ...w }))
  }

  async get (id: string): Promise<Webhook | undefined> {
    const found = this.#webhooks.get(id)
    return found === undefined ? undefined : { ...found }
  }

  async update (webhook: Webhook): Promise<boolean> {
    if (!this.#webhooks.has(webhook.id)) return false
    this.#webhooks.set(webhook.id, { ...webhook })
    return true
  }

  async delete (id: string): Promise<boolean> {
    this.#deliveries.delete(id)
    this.#pending.delete(id)
    return this.#webhooks.delete(id)
  }

  async position (): Promise<number | null> {
    return this.#position
  }

  async enqueue (from: number | null, to: number, deliveries: readonly NewDelivery[]): Promise<boolean> {
    if (this.#position !== from) return false
    for (const d of deliveries) {
      const queue = this.#deliveries.get(d.webhookId)
      if (queue === undefined || queue.has(d.id)) continue
      const held: Held = { ...d, state: 'pending', attempts: 0, nextAt: d.createdAt, lastAttemptAt: null, lastStatus: null, lastError: null, lastDurationMs: null, leasedBy: null, leaseUntil: 0 }
      queue.set(d.id, held)
      this.#pending.get(d.webhookId)?.set(d.id, held)
    }
    this.#position = to
    return true
  }

  async record (delivery: NewDelivery, outcome: AttemptOutcome): Promise<void> {
    const queue = this.#deliveries.get(delivery.webhookId)
    if (queue === undefined) return
    const held: Held = { ...delivery, state: 'pending', attempts: 0, nextAt: null, lastAttemptAt: null, lastStatus: null, lastError: null, lastDurationMs: null, leasedBy: null, leaseUntil: 0 }
    queue.set(delivery.id, held)
    this.#apply(delivery.webhookId, held, outcome)
  }

  async claim (owner: string, now: Date, leaseMs: number, limit: number): Promise<Delivery[]> {
    const claimed: Delivery[] = []
    const t = now.getTime()
    for (const [webhookId, pending] of this.#pending) {
      if (this.#webhooks.get(webhookId)?.enabled !== true) continue
      const blocked = new Set<string>()
      // In sequence order (a retried delivery is pending again among later ones).
      for (const d of [...pending.values()].sort((x, y) => x.seq - y.seq)) {
        if (claimed.length >= limit) return claimed
        if (d.state !== 'pending') continue
        // The first pending delivery of a key blocks the later ones, due or not.
        if (blocked.has(d.recordKey)) continue
        blocked.add(d.recordKey)
        if (d.nextAt === null || d.nextAt.getTime() > t || d.leaseUntil > t) continue
        d.leasedBy = owner
        d.leaseUntil = t + leaseMs
        claimed.push(publicOf(d))
      }
    }
    return claimed
  }

  async settle (owner: string, attempts: readonly AttemptOf[]): Promise<void> {
    for (const { webhookId, id, outcome } of attempts) {
      const d = this.#deliveries.get(webhookId)?.get(id)
      if (d === undefined || d.leasedBy !== owner || d.state !== 'pending') continue
      this.#apply(webhookId, d, outcome)
    }
  }

  #apply (webhookId: string, d: Held, outcome: AttemptOutcome): void {
    d.attempts++
    d.lastAttemptAt = outcome.at
    d.lastStatus = outcome.status
    d.lastError = outcome.error
    d.lastDurationMs = outcome.durationMs
    d.state = outcome.delivered ? 'delivered' : outcome.nextAt === null ? 'failed' : 'pending'
    d.nextAt = d.state === 'pending' ? outcome.nextAt : null
    d.leasedBy = null
    d.leaseUntil = 0
    if (d.state !== 'pending') this.#pending.get(webhookId)?.delete(d.id)
    const webhook = this.#webhooks.get(webhookId)
    if (outcome.disable !== undefined && webhook !== undefined) {
      this.#webhooks.set(webhookId, { ...webhook, enabled: false, disabledReason: outcome.disable, updatedAt: outcome.at })
    }
  }

  async deliveries (webhookId: string, limit: number): Promise<Delivery[]> {
    const queue = this.#deliveries.get(webhookId)
    if (queue === undefined) return []
    return [...queue.values()].reverse().slice(0, limit).map(publicOf)
  }

  async retry (webhookId: string, id: string, now: Date, retryUntil: Date): Promise<boolean> {
    const d = this.#deliveries.get(webhookId)?.get(id)
    if (d === undefined) return false
    // The lease stays: a delivery being attempted right now is not attempted twice at once.
    d.state = 'pending'
    d.nextAt = now
    d.retryUntil = retryUntil
    this.#pending.get(webhookId)?.set(id, d)
    return true
  }

  async prune (before: Date): Promise<void> {
    for (const queue of this.#deliveries.values()) {
      for (const [id, d] of queue) if (d.state !== 'pending' && d.createdAt < before) queue.delete(id)
    }
  }
}

function publicOf ({ leasedBy: _owner, leaseUntil: _until, ...delivery }: Held): Delivery {
  return { ...delivery }
}
