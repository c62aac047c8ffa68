import type { Delivery, DeliveryState, Webhook } from '../domain/index.js'
/**
 * What the SQL stores share about webhooks: a webhook is kept as JSON beside
 * its id (only `enabled` has a column, for the claim), a delivery as a row.
 */

/** The JSON of a webhook's data column. */
export function webhookData (webhook: Webhook): string {
  return JSON.stringify(webhook)
}

/** A webhook as its data column holds it: the dates are ISO strings. */
type WebhookData = Omit<Webhook, 'createdAt' | 'updatedAt' | 'previousSecretUntil'> & { createdAt: string, updatedAt: string, previousSecretUntil: string | null }

/** A webhook from its data column: JSON text (SQLite) or the value the driver parsed (PostgreSQL's jsonb). */
export function webhookFromData (data: string | object): Webhook {
  const raw = (typeof data === 'string' ? JSON.parse(data) : data) as WebhookData
  return {
    ...raw,
    previousSecretUntil: raw.previousSecretUntil === null ? null : new Date(raw.previousSecretUntil),
    createdAt: new Date(raw.createdAt),
    updatedAt: new Date(raw.updatedAt)
  }
}

/** A delivery row, times in ms since the epoch, as both drivers read it. */
export interface DeliveryRow {
  webhook_id: string
  id: string
  seq: number | string | bigint
  event: string
  record_key: string
  body: string
  created_at: number | string | bigint
  retry_until: number | string | bigint
  state: string
  attempts: number
  next_at: number | string | bigint | null
  last_attempt_at: number | string | bigint | null
  last_status: number | null
  last_error: string | null
  last_duration_ms: number | null
}

const time = (ms: number | string | bigint): Date => new Date(Number(ms))
const maybeTime = (ms: number | string | bigint | null): Date | null => ms === null ? null : time(ms)

export function deliveryFromRow (row: DeliveryRow): Delivery {
  return {
    webhookId: row.webhook_id,
    id: row.id,
    seq: Number(row.seq),
    event: row.event,
    recordKey: row.record_key,
    body: row.body,
    createdAt: time(row.created_at),
    retryUntil: time(row.retry_until),
    state: row.state as DeliveryState,
    attempts: Number(row.attempts),
    nextAt: maybeTime(row.next_at),
    lastAttemptAt: maybeTime(row.last_attempt_at),
    lastStatus: row.last_status,
    lastError: row.last_error,
    lastDurationMs: row.last_duration_ms
  }
}

/** The state an attempt leaves a delivery in. */
export function stateAfter (outcome: { delivered: boolean, nextAt: Date | null }): DeliveryState {
  return outcome.delivered ? 'delivered' : outcome.nextAt === null ? 'failed' : 'pending'
}
