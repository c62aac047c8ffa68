import pg, { type Pool, type PoolClient } from 'pg'
import type { AttemptOf, AttemptOutcome, Delivery, NewDelivery, Webhook, WebhookStore } from '../../domain/index.js'
import { deliveryFromRow, stateAfter, webhookData, webhookFromData, type DeliveryRow } from '../webhook-rows.js'
import { rethrow } from './errors.js'

const DELIVERY_COLUMNS = 'webhook_id, id, seq, event, record_key, body, created_at, retry_until, state, attempts, next_at, last_attempt_at, last_status, last_error, last_duration_ms'
/** The webhooks' own connections: the dispatcher runs one statement at a time; a second serves the API meanwhile. */
const OWN_CONNECTIONS = 2

/**
 * PostgreSQL's webhooks (schema step 9), shared by every instance on the
 * database: the position moves by compare-and-set (an UPDATE … WHERE seq =
 * from, which a concurrent one waits for and then finds changed), and a claim
 * leases due deliveries with FOR UPDATE SKIP LOCKED, so two instances never
 * hold one delivery; a lease that expires (its instance died) frees it.
 *
 * Its statements run on connections of their own, opened at its first use
 * (so only when webhooks are served) with the shared pool's settings: on the
 * shared pool the dispatcher's statements waited behind every write queued
 * for a connection, and under a steady write load a round of a few
 * statements took seconds, its deliveries with it.
 */
export class PostgresWebhookStore implements WebhookStore {
  readonly #shared: Pool
  #own: Pool | undefined
  #closed = false

  constructor (pool: Pool) {
    this.#shared = pool
  }

  get #pool (): Pool {
    if (this.#closed) return this.#shared
    if (this.#own === undefined) {
      const options = (this.#shared as Pool & { options: pg.PoolConfig }).options
      const own = new pg.Pool({ ...options, max: OWN_CONNECTIONS, application_name: `${options.application_name ?? 'rqs'}-webhooks` })
      // As on the shared pool: a connection that dies is dropped (and its next query fails), never an uncaught 'error'.
      own.on('error', () => {})
      own.on('connect', (client) => { client.on('error', () => {}) })
      this.#own = own
    }
    return this.#own
  }

  /** Closes the webhooks' own connections (the stores close). */
  async close (): Promise<void> {
    this.#closed = true
    const own = this.#own
    this.#own = undefined
    await own?.end()
  }

  async #query<R extends object = Record<string, unknown>> (text: string, values: unknown[] = []): Promise<{ rows: R[], rowCount: number }> {
    try {
      const result = await this.#pool.query(text, values)
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 }
    } catch (err) { return rethrow(err) }
  }

  /**
   * `work` in a transaction. `lazy`: its commit does not wait for the WAL to
   * reach the disk (synchronous_commit off, for this transaction only): for a
   * lease or an attempt's outcome, whose loss in a crash of the database only
   * means a delivery is attempted again (at least once), never a change left
   * undelivered; a commit that waits costs a disk sync (milliseconds on many
   * disks) between a change and its delivery.
   */
  async #transaction<R> (work: (client: PoolClient) => Promise<R>, lazy = false): Promise<R> {
    let client: PoolClient
    try { client = await this.#pool.connect() } catch (err) { return rethrow(err) }
    try {
      await client.query(lazy ? 'BEGIN; SET LOCAL synchronous_commit TO off' : 'BEGIN')
      const result = await work(client)
      await client.query('COMMIT')
      client.release()
      return result
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {})
      client.release()
      return rethrow(err)
    }
  }

  async create (webhook: Webhook): Promise<void> {
    await this.#query('INSERT INTO rqs_webhooks (id, enabled, data) VALUES ($1, $2, $3)', [webhook.id, webhook.enabled, webhookData(webhook)])
  }

  async list (): Promise<Webhook[]> {
    return (await this.#query<{ data: object }>('SELECT data FROM rqs_webhooks ORDER BY id')).rows.map((r) => webhookFromData(r.data))
  }

  async get (id: string): Promise<Webhook | undefined> {
    const row = (await this.#query<{ data: object }>('SELECT data FROM rqs_webhooks WHERE id = $1', [id])).rows[0]
    return row === undefined ? undefined : webhookFromData(row.data)
  }

  async update (webhook: Webhook): Promise<boolean> {
    return (await this.#query('UPDATE rqs_webhooks SET enabled = $1, data = $2 WHERE id = $3', [webhook.enabled, webhookData(webhook), webhook.id])).rowCount > 0
  }

  async delete (id: string): Promise<boolean> {
    return (await this.#query('DELETE FROM rqs_webhooks WHERE id = $1', [id])).rowCount > 0
  }

  async position (): Promise<number | null> {
    const row = (await this.#query<{ seq: bigint }>('SELECT seq FROM rqs_webhook_position WHERE singleton')).rows[0]
    return row === undefined ? null : Number(row.seq)
  }

  async enqueue (from: number | null, to: number, deliveries: readonly NewDelivery[]): Promise<boolean> {
    if (from === null) {
      return await this.#transaction(async (client) => {
        const moved = await client.query('INSERT INTO rqs_webhook_position (singleton, seq) VALUES (true, $1) ON CONFLICT DO NOTHING', [to])
        if ((moved.rowCount ?? 0) === 0) return false
        if (deliveries.length > 0) await insert(client, deliveries)
        return true
      })
    }
    // One statement, so one round trip (and one wait for a pooled connection) a round: the position moves by
    // compare-and-set and the deliveries are queued only when it moved, atomically (a statement is a transaction).
    const { rows } = await this.#query<{ moved: boolean }>(`WITH moved AS (UPDATE rqs_webhook_position SET seq = $9 WHERE singleton AND seq = $10 RETURNING seq),
      queued AS (${INSERT_DELIVERIES} WHERE EXISTS (SELECT 1 FROM moved) ON CONFLICT DO NOTHING)
      SELECT EXISTS (SELECT 1 FROM moved) AS moved`, [...deliveryArrays(deliveries), to, from])
    return rows[0]?.moved === true
  }

  async record (delivery: NewDelivery, outcome: AttemptOutcome): Promise<void> {
    const owner = 'record'
    await this.#transaction(async (client) => {
      await insert(client, [delivery])
      await client.query('UPDATE rqs_webhook_deliveries SET leased_by = $1 WHERE webhook_id = $2 AND id = $3', [owner, delivery.webhookId, delivery.id])
      await settleAll(client, owner, [{ webhookId: delivery.webhookId, id: delivery.id, outcome }])
    })
  }

  async claim (owner: string, now: Date, leaseMs: number, limit: number): Promise<Delivery[]> {
    const t = now.getTime()
    // The first pending delivery of each key, due and not leased, of an enabled webhook; rows another
    // instance is claiming right now are skipped (and rechecked, lease included, once it committed).
    const rows = await this.#transaction(async (client) => (await client.query<DeliveryRow>(`
      WITH due AS (
        SELECT d.webhook_id, d.id FROM rqs_webhook_deliveries d
        WHERE d.state = 'pending' AND d.next_at <= $1 AND d.lease_until <= $1
          AND d.webhook_id IN (SELECT id FROM rqs_webhooks WHERE enabled)
          AND NOT EXISTS (SELECT 1 FROM rqs_webhook_deliveries e WHERE e.state = 'pending' AND e.webhook_id = d.webhook_id AND e.record_key = d.record_key AND e.seq < d.seq)
        ORDER BY d.next_at, d.seq
        LIMIT $3
        FOR UPDATE OF d SKIP LOCKED
      )
      UPDATE rqs_webhook_deliveries u SET leased_by = $4, lease_until = $2
      FROM due WHERE u.webhook_id = due.webhook_id AND u.id = due.id
      RETURNING ${DELIVERY_COLUMNS.split(', ').map((c) => `u.${c}`).join(', ')}`, [t, t + leaseMs, limit, owner])).rows, true)
    return rows.map(deliveryFromRow).sort((a, b) => a.seq - b.seq)
  }

  async settle (owner: string, attempts: readonly AttemptOf[]): Promise<void> {
    if (attempts.length === 0) return
    // Not waiting for the disk: lost in a crash, the attempts are made again. Disabling a webhook (rare) waits.
    const lazy = attempts.every((a) => a.outcome.disable === undefined)
    await this.#transaction(async (client) => { await settleAll(client, owner, attempts) }, lazy)
  }

  async deliveries (webhookId: string, limit: number): Promise<Delivery[]> {
    const { rows } = await this.#query<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM rqs_webhook_deliveries WHERE webhook_id = $1 ORDER BY n DESC LIMIT $2`, [webhookId, limit])
    return rows.map(deliveryFromRow)
  }

  async retry (webhookId: string, id: string, now: Date, retryUntil: Date): Promise<boolean> {
    // The lease stays: a delivery being attempted right now is not attempted twice at once.
    return (await this.#query("UPDATE rqs_webhook_deliveries SET state = 'pending', next_at = $1, retry_until = $2 WHERE webhook_id = $3 AND id = $4",
      [now.getTime(), retryUntil.getTime(), webhookId, id])).rowCount > 0
  }

  async prune (before: Date): Promise<void> {
    await this.#query("DELETE FROM rqs_webhook_deliveries WHERE state <> 'pending' AND created_at < $1", [before.getTime()])
  }
}

/** Deliveries from eight arrays ($1 … $8, in deliveryArrays' order), queued pending, due when created. */
const INSERT_DELIVERIES = `INSERT INTO rqs_webhook_deliveries (webhook_id, id, seq, event, record_key, body, created_at, retry_until, state, next_at)
    SELECT w, i, s, e, k, b, c, r, 'pending', c FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[]) AS t (w, i, s, e, k, b, c, r)`

function deliveryArrays (deliveries: readonly NewDelivery[]): unknown[] {
  return [
    deliveries.map((d) => d.webhookId), deliveries.map((d) => d.id), deliveries.map((d) => d.seq), deliveries.map((d) => d.event),
    deliveries.map((d) => d.recordKey), deliveries.map((d) => d.body), deliveries.map((d) => d.createdAt.getTime()), deliveries.map((d) => d.retryUntil.getTime())
  ]
}

/** Queues deliveries (pending, due when created); one already queued is left as it is. */
async function insert (client: PoolClient, deliveries: readonly NewDelivery[]): Promise<void> {
  await client.query(`${INSERT_DELIVERIES} ON CONFLICT DO NOTHING`, deliveryArrays(deliveries))
}

/**
 * Records attempts on deliveries `owner` holds, in one multi-row UPDATE;
 * disables the webhooks whose attempt (recorded, its lease still held) says so.
 */
async function settleAll (client: Pick<PoolClient, 'query'>, owner: string, attempts: readonly AttemptOf[]): Promise<void> {
  let settled: { rows: Array<{ webhook_id: string, id: string }> }
  try {
    settled = await client.query(`UPDATE rqs_webhook_deliveries d SET state = a.state, attempts = d.attempts + 1, next_at = a.next_at, last_attempt_at = a.at,
      last_status = a.status, last_error = a.error, last_duration_ms = a.duration_ms, leased_by = NULL, lease_until = 0
      FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::int[], $7::text[], $8::int[]) AS a (webhook_id, id, state, next_at, at, status, error, duration_ms)
      WHERE d.webhook_id = a.webhook_id AND d.id = a.id AND d.leased_by = $9 AND d.state = 'pending'
      RETURNING d.webhook_id, d.id`, [
      attempts.map((a) => a.webhookId), attempts.map((a) => a.id), attempts.map((a) => stateAfter(a.outcome)),
      attempts.map((a) => a.outcome.delivered ? null : a.outcome.nextAt?.getTime() ?? null), attempts.map((a) => a.outcome.at.getTime()),
      attempts.map((a) => a.outcome.status), attempts.map((a) => a.outcome.error), attempts.map((a) => Math.round(a.outcome.durationMs)), owner
    ])
  } catch (err) { return rethrow(err) }
  const recorded = new Set(settled.rows.map((r) => `${r.webhook_id} ${r.id}`))
  for (const { webhookId, id, outcome } of attempts) {
    if (outcome.disable === undefined || !recorded.has(`${webhookId} ${id}`)) continue
    await client.query(`UPDATE rqs_webhooks SET enabled = false,
      data = data || jsonb_build_object('enabled', false, 'disabledReason', $1::text, 'updatedAt', $2::text) WHERE id = $3`, [outcome.disable, outcome.at.toISOString(), webhookId])
  }
}
