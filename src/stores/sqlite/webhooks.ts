import type Database from 'better-sqlite3'
import type { AttemptOf, AttemptOutcome, Delivery, NewDelivery, Webhook, WebhookStore } from '../../domain/index.js'
import { deliveryFromRow, stateAfter, webhookData, webhookFromData, type DeliveryRow } from '../webhook-rows.js'
import type { GroupCommit, WriteOptions } from './group-commit.js'
import { rethrow } from './errors.js'

const DELIVERY_COLUMNS = 'webhook_id, id, seq, event, record_key, body, created_at, retry_until, state, attempts, next_at, last_attempt_at, last_status, last_error, last_duration_ms'

/**
 * Leases and attempt outcomes commit without waiting for the disk (as on
 * PostgreSQL, synchronous_commit = off): one lost to a crash of the machine
 * only means its delivery is attempted again, at least once still holds; a
 * sync each cost a claim and a write of outcomes ≈ 3 ms of the event loop.
 * Webhooks and outcomes that disable a webhook wait for it.
 */
const LEASE_OR_OUTCOME: WriteOptions = { durable: false }

/**
 * Deliveries queued with the position's move commit without waiting for the
 * disk too: the changes they were made from are in the change log, synced
 * before them (WAL frames reach the disk in order), so a crash that loses
 * the queueing loses the position's move with it, and the next start queues
 * the same changes again from the log (at least once). Only the first
 * position, set before any change is read, waits for the disk.
 */
const QUEUED_FROM_THE_LOG: WriteOptions = { durable: false }

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
  readonly #claim: Database.Statement<[string, number, number, number, number], DeliveryRow>
  readonly #lease: Database.Statement
  readonly #settle: Database.Statement<[string, string], { webhook_id: string, id: string }>
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
    // Leases, in one statement, the first pending delivery of each key, if due and not leased, of enabled webhooks.
    // Walked in the due index's order (next_at, then rowid: the order queued, which is the changes' order), so the
    // LIMIT stops the walk: ordered by seq, or read by webhook (the `+` keeps SQLite off the primary key), it read
    // and sorted every pending delivery a claim, 20 ms a claim of 256 with 10 000 pending. Per-key order is the
    // NOT EXISTS's, whatever the order of the walk.
    this.#claim = db.prepare(`UPDATE rqs_webhook_deliveries SET leased_by = ?, lease_until = ?
      WHERE (webhook_id, id) IN (SELECT d.webhook_id, d.id FROM rqs_webhook_deliveries d
        WHERE d.state = 'pending' AND d.next_at <= ? AND d.lease_until <= ?
          AND +d.webhook_id IN (SELECT id FROM rqs_webhooks WHERE enabled = 1)
          AND NOT EXISTS (SELECT 1 FROM rqs_webhook_deliveries e WHERE e.state = 'pending' AND e.webhook_id = d.webhook_id AND e.record_key = d.record_key AND e.seq < d.seq)
        ORDER BY d.next_at, d.rowid LIMIT ?)
      RETURNING ${DELIVERY_COLUMNS}`)
    this.#lease = db.prepare('UPDATE rqs_webhook_deliveries SET leased_by = ?, lease_until = ? WHERE webhook_id = ? AND id = ?')
    // Every attempt of a batch, given as one JSON array, in one statement; returns those whose lease was still held.
    this.#settle = db.prepare<[string, string], { webhook_id: string, id: string }>(`UPDATE rqs_webhook_deliveries AS d SET state = a.state, attempts = d.attempts + 1,
      next_at = a.next_at, last_attempt_at = a.at, last_status = a.status, last_error = a.error, last_duration_ms = a.duration_ms, leased_by = NULL, lease_until = 0
      FROM (SELECT value ->> 0 AS webhook_id, value ->> 1 AS id, value ->> 2 AS state, value ->> 3 AS next_at, value ->> 4 AS at,
        value ->> 5 AS status, value ->> 6 AS error, value ->> 7 AS duration_ms FROM json_each(?)) AS a
      WHERE d.webhook_id = a.webhook_id AND d.id = a.id AND d.leased_by = ? AND d.state = 'pending'
      RETURNING webhook_id, id`)
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
    // The first position waits for the disk; a later move need not (QUEUED_FROM_THE_LOG).
    return await this.#group.run(() => run(), from === null ? undefined : QUEUED_FROM_THE_LOG)
  }

  async record (delivery: NewDelivery, outcome: AttemptOutcome): Promise<void> {
    const owner = 'record'
    const run = this.#db.transaction(() => {
      this.#queue.run(queued(delivery))
      this.#lease.run(owner, 0, delivery.webhookId, delivery.id)
      this.#apply(owner, [{ webhookId: delivery.webhookId, id: delivery.id, outcome }])
    })
    await this.#group.run(() => run())
  }

  async claim (owner: string, now: Date, leaseMs: number, limit: number): Promise<Delivery[]> {
    const t = now.getTime()
    const rows = await this.#group.run(() => this.#claim.all(owner, t + leaseMs, t, t, limit), LEASE_OR_OUTCOME)
    return rows.map(deliveryFromRow).sort((a, b) => a.seq - b.seq)
  }

  async settle (owner: string, attempts: readonly AttemptOf[]): Promise<void> {
    if (attempts.length === 0) return
    const run = this.#db.transaction(() => { this.#apply(owner, attempts) })
    // An outcome that disables its webhook waits for the disk, as a change of the webhook does.
    await this.#group.run(() => run(), attempts.some((a) => a.outcome.disable !== undefined) ? undefined : LEASE_OR_OUTCOME)
  }

  #apply (owner: string, attempts: readonly AttemptOf[]): void {
    const rows = attempts.map(({ webhookId, id, outcome }) => [
      webhookId, id, stateAfter(outcome), outcome.delivered ? null : outcome.nextAt?.getTime() ?? null, outcome.at.getTime(),
      outcome.status, outcome.error, Math.round(outcome.durationMs)
    ])
    const settled = this.#settle.all(JSON.stringify(rows), owner)
    if (attempts.every((a) => a.outcome.disable === undefined)) return
    const recorded = new Set(settled.map((r) => `${r.webhook_id} ${r.id}`))
    for (const { webhookId, id, outcome } of attempts) {
      if (outcome.disable === undefined || !recorded.has(`${webhookId} ${id}`)) continue
      const row = this.#get.get(webhookId)
      if (row === undefined) continue
      const webhook = webhookFromData(row.data)
      this.#disable.run(webhookData({ ...webhook, enabled: false, disabledReason: outcome.disable, updatedAt: outcome.at }), webhookId)
    }
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
