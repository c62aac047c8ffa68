import type Database from 'better-sqlite3'
import type { AttemptOutcome, Delivery, NewDelivery, Webhook, WebhookStore } from '../../domain/index.js'
import { deliveryFromRow, stateAfter, webhookData, webhookFromData, type DeliveryRow } from '../webhook-rows.js'
import type { GroupCommit } from './group-commit.js'
import { rethrow } from './errors.js'

const DELIVERY_COLUMNS = 'webhook_id, id, seq, event, record_key, body, created_at, retry_until, state, attempts, next_at, last_attempt_at, last_status, last_error, last_duration_ms'

/**
 * SQLite's webhooks (tables of schema step 7). Writes go through the group
 * commit like the records' (one connection, one writer); reads run at once.
 * Several processes sharing the file are serialised by its write lock, so a
 * claim (read and lease in one write) gives each delivery to one of them.
 */
export class SqliteWebhookStore implements WebhookStore {
  readonly #group: GroupCommit
  readonly #insert: Database.Statement
  readonly #all: Database.Statement<[], { data: string }>
  readonly #get: Database.Statement<[string], { data: string }>
  readonly #update: Database.Statement
  readonly #delete: Database.Statement
  readonly #position: Database.Statement<[], number>
  readonly #setPosition: Database.Statement
  readonly #queue: Database.Statement
  readonly #due: Database.Statement<[number, number, number], DeliveryRow>
  readonly #lease: Database.Statement
  readonly #settle: Database.Statement
  readonly #disable: Database.Statement<[string, string]>
  readonly #recent: Database.Statement<[string, number], DeliveryRow>
  readonly #retry: Database.Statement
  readonly #prune: Database.Statement
  readonly #db: Database.Database

  constructor (db: Database.Database, group: GroupCommit) {
    this.#db = db
    this.#group = group
    this.#insert = db.prepare('INSERT INTO rqs_webhooks (id, enabled, data) VALUES (?, ?, ?)')
    this.#all = db.prepare('SELECT data FROM rqs_webhooks ORDER BY id')
    this.#get = db.prepare('SELECT data FROM rqs_webhooks WHERE id = ?')
    this.#update = db.prepare('UPDATE rqs_webhooks SET enabled = ?, data = ? WHERE id = ?')
    this.#delete = db.prepare('DELETE FROM rqs_webhooks WHERE id = ?')
    this.#position = db.prepare<[], number>('SELECT seq FROM rqs_webhook_position WHERE singleton = 1').pluck()
    this.#setPosition = db.prepare('INSERT INTO rqs_webhook_position (singleton, seq) VALUES (1, ?) ON CONFLICT (singleton) DO UPDATE SET seq = excluded.seq')
    this.#queue = db.prepare(`INSERT INTO rqs_webhook_deliveries (${DELIVERY_COLUMNS})
      VALUES (@webhookId, @id, @seq, @event, @recordKey, @body, @createdAt, @retryUntil, @state, @attempts, @nextAt, @lastAttemptAt, @lastStatus, @lastError, @lastDurationMs)
      ON CONFLICT DO NOTHING`)
    // The first pending delivery of each key, if due and not leased, of enabled webhooks.
    this.#due = db.prepare(`SELECT ${DELIVERY_COLUMNS} FROM rqs_webhook_deliveries d
      WHERE d.state = 'pending' AND d.next_at <= ? AND d.lease_until <= ?
        AND d.webhook_id IN (SELECT id FROM rqs_webhooks WHERE enabled = 1)
        AND NOT EXISTS (SELECT 1 FROM rqs_webhook_deliveries e WHERE e.state = 'pending' AND e.webhook_id = d.webhook_id AND e.record_key = d.record_key AND e.seq < d.seq)
      ORDER BY d.next_at, d.seq LIMIT ?`)
    this.#lease = db.prepare('UPDATE rqs_webhook_deliveries SET leased_by = ?, lease_until = ? WHERE webhook_id = ? AND id = ?')
    this.#settle = db.prepare(`UPDATE rqs_webhook_deliveries SET state = @state, attempts = attempts + 1, next_at = @nextAt, last_attempt_at = @at,
      last_status = @status, last_error = @error, last_duration_ms = @durationMs, leased_by = NULL, lease_until = 0
      WHERE webhook_id = @webhookId AND id = @id AND leased_by = @owner AND state = 'pending'`)
    this.#disable = db.prepare<[string, string]>('UPDATE rqs_webhooks SET enabled = 0, data = ? WHERE id = ?')
    this.#recent = db.prepare(`SELECT ${DELIVERY_COLUMNS} FROM rqs_webhook_deliveries WHERE webhook_id = ? ORDER BY rowid DESC LIMIT ?`)
    // The lease stays: a delivery being attempted right now is not attempted twice at once.
    this.#retry = db.prepare("UPDATE rqs_webhook_deliveries SET state = 'pending', next_at = ?, retry_until = ? WHERE webhook_id = ? AND id = ?")
    this.#prune = db.prepare("DELETE FROM rqs_webhook_deliveries WHERE state <> 'pending' AND created_at < ?")
  }

  async create (webhook: Webhook): Promise<void> {
    await this.#group.run(() => this.#insert.run(webhook.id, webhook.enabled ? 1 : 0, webhookData(webhook)))
  }

  async list (): Promise<Webhook[]> {
    try { return this.#all.all().map((r) => webhookFromData(r.data)) } catch (err) { return rethrow(err) }
  }

  async get (id: string): Promise<Webhook | undefined> {
    try {
      const row = this.#get.get(id)
      return row === undefined ? undefined : webhookFromData(row.data)
    } catch (err) { return rethrow(err) }
  }

  async update (webhook: Webhook): Promise<boolean> {
    return await this.#group.run(() => this.#update.run(webhook.enabled ? 1 : 0, webhookData(webhook), webhook.id).changes > 0)
  }

  async delete (id: string): Promise<boolean> {
    return await this.#group.run(() => this.#delete.run(id).changes > 0)
  }

  async position (): Promise<number | null> {
    try { return this.#position.get() ?? null } catch (err) { return rethrow(err) }
  }

  async enqueue (from: number | null, to: number, deliveries: readonly NewDelivery[]): Promise<boolean> {
    const run = this.#db.transaction(() => {
      if ((this.#position.get() ?? null) !== from) return false
      for (const d of deliveries) this.#queue.run(queued(d))
      this.#setPosition.run(to)
      return true
    })
    return await this.#group.run(() => run())
  }

  async record (delivery: NewDelivery, outcome: AttemptOutcome): Promise<void> {
    const owner = 'record'
    const run = this.#db.transaction(() => {
      this.#queue.run(queued(delivery))
      this.#lease.run(owner, 0, delivery.webhookId, delivery.id)
      this.#apply(delivery.webhookId, delivery.id, owner, outcome)
    })
    await this.#group.run(() => run())
  }

  async claim (owner: string, now: Date, leaseMs: number, limit: number): Promise<Delivery[]> {
    const t = now.getTime()
    const run = this.#db.transaction(() => {
      const rows = this.#due.all(t, t, limit)
      for (const row of rows) this.#lease.run(owner, t + leaseMs, row.webhook_id, row.id)
      return rows.map(deliveryFromRow)
    })
    return await this.#group.run(() => run())
  }

  async settle (webhookId: string, id: string, owner: string, outcome: AttemptOutcome): Promise<void> {
    const run = this.#db.transaction(() => { this.#apply(webhookId, id, owner, outcome) })
    await this.#group.run(() => run())
  }

  #apply (webhookId: string, id: string, owner: string, outcome: AttemptOutcome): void {
    const settled = this.#settle.run({
      state: stateAfter(outcome),
      nextAt: outcome.delivered ? null : outcome.nextAt?.getTime() ?? null,
      at: outcome.at.getTime(),
      status: outcome.status,
      error: outcome.error,
      durationMs: Math.round(outcome.durationMs),
      webhookId,
      id,
      owner
    })
    if (settled.changes === 0 || outcome.disable === undefined) return
    const row = this.#get.get(webhookId)
    if (row === undefined) return
    const webhook = webhookFromData(row.data)
    this.#disable.run(webhookData({ ...webhook, enabled: false, disabledReason: outcome.disable, updatedAt: outcome.at }), webhookId)
  }

  async deliveries (webhookId: string, limit: number): Promise<Delivery[]> {
    try { return this.#recent.all(webhookId, limit).map(deliveryFromRow) } catch (err) { return rethrow(err) }
  }

  async retry (webhookId: string, id: string, now: Date, retryUntil: Date): Promise<boolean> {
    return await this.#group.run(() => this.#retry.run(now.getTime(), retryUntil.getTime(), webhookId, id).changes > 0)
  }

  async prune (before: Date): Promise<void> {
    await this.#group.run(() => this.#prune.run(before.getTime()))
  }
}

/** The row of a delivery as queued: pending, due when created. */
function queued (d: NewDelivery): Record<string, unknown> {
  return {
    webhookId: d.webhookId,
    id: d.id,
    seq: d.seq,
    event: d.event,
    recordKey: d.recordKey,
    body: d.body,
    createdAt: d.createdAt.getTime(),
    retryUntil: d.retryUntil.getTime(),
    state: 'pending',
    attempts: 0,
    nextAt: d.createdAt.getTime(),
    lastAttemptAt: null,
    lastStatus: null,
    lastError: null,
    lastDurationMs: null
  }
}
