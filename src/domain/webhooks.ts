/**
 * Webhooks as the stores keep them (issue 34): the subscriptions, the
 * dispatcher's position in the change log, and the queue of deliveries. The
 * delivery itself (HTTP, signatures, backoff) is the webhooks service's; a
 * store only keeps state and hands each due delivery to one instance at a
 * time (a lease).
 */

/** One subscription: where to POST which events, signed with its secret. */
export interface Webhook {
  /** `wh_` and 16 hex digits. */
  id: string
  url: string
  /** Patterns `<collection>.<kind>`, either part may be `*`. */
  events: string[]
  description: string
  /** A filter expression on the record; kept, not yet applied (the filter language is another issue's). */
  filter: string | null
  enabled: boolean
  /** Why the dispatcher disabled it; null when enabled or disabled by hand. */
  disabledReason: string | null
  /** `whsec_` and base64 of 32 random bytes: the HMAC key. */
  secret: string
  /** The secret before the last rotation, still signing until `previousSecretUntil`. */
  previousSecret: string | null
  previousSecretUntil: Date | null
  /** Changes up to this sequence number happened before it existed: not delivered. */
  afterSeq: number
  createdAt: Date
  updatedAt: Date
}

export type DeliveryState = 'pending' | 'delivered' | 'failed'

/** A new delivery of one event to one webhook. */
export interface NewDelivery {
  webhookId: string
  /** Unique within its webhook: `c<seq>` for a change, `p<random>` for a ping. */
  id: string
  /** The change's sequence number; 0 for a ping. */
  seq: number
  /** `books.created`, … or `webhook.ping`. */
  event: string
  /** `<collection>/<id>`: deliveries of one key go out in sequence order, one at a time. */
  recordKey: string
  /** The JSON body, signed and sent as is at every attempt. */
  body: string
  createdAt: Date
  /** When its retries stop: a failure after this is final. */
  retryUntil: Date
}

/** A delivery with what its attempts did. */
export interface Delivery extends NewDelivery {
  state: DeliveryState
  attempts: number
  /** When it is due (pending), else null. */
  nextAt: Date | null
  lastAttemptAt: Date | null
  /** The receiver's HTTP status; null when none came (timeout, refused connection, refused address). */
  lastStatus: number | null
  lastError: string | null
  lastDurationMs: number | null
}

/** What one attempt did, as the dispatcher records it. */
export interface AttemptOutcome {
  at: Date
  status: number | null
  error: string | null
  durationMs: number
  /** A 2xx: delivered. */
  delivered: boolean
  /** When to try again; null with `delivered` false: failed for good. */
  nextAt: Date | null
  /** Set when this failure disables the webhook: why. */
  disable?: string
}

/** An attempt of one delivery, to record. */
export interface AttemptOf {
  webhookId: string
  id: string
  outcome: AttemptOutcome
}

/**
 * Where a store keeps webhooks. PostgreSQL shares it between instances: the
 * position moves by compare-and-set, and a claimed delivery is leased to one
 * instance until it settles or the lease expires.
 */
export interface WebhookStore {
  create: (webhook: Webhook) => Promise<void>
  /** Every webhook, by id. */
  list: () => Promise<Webhook[]>
  get: (id: string) => Promise<Webhook | undefined>
  /** Replaces the stored webhook of that id; false when there is none. */
  update: (webhook: Webhook) => Promise<boolean>
  /** Deletes a webhook and its deliveries; false when there is none. */
  delete: (id: string) => Promise<boolean>
  /** The last change the dispatchers have queued deliveries for; null before the first. */
  position: () => Promise<number | null>
  /**
   * Queues `deliveries` (ignoring any already queued) and moves the position
   * from `from` to `to`, together; false, with nothing done, when the position
   * is no longer `from` (another instance moved it).
   */
  enqueue: (from: number | null, to: number, deliveries: readonly NewDelivery[]) => Promise<boolean>
  /** Stores a delivery that was attempted at once (a ping) with its outcome. */
  record: (delivery: NewDelivery, outcome: AttemptOutcome) => Promise<void>
  /**
   * Leases up to `limit` due deliveries of enabled webhooks to `owner` until
   * `now + leaseMs`: pending, due, not leased (or the lease expired), and no
   * earlier pending delivery of the same webhook and record key.
   */
  claim: (owner: string, now: Date, leaseMs: number, limit: number) => Promise<Delivery[]>
  /**
   * Records the attempts of deliveries `owner` holds and releases their
   * leases, in one write (nothing for one whose lease was lost).
   */
  settle: (owner: string, attempts: readonly AttemptOf[]) => Promise<void>
  /** A webhook's deliveries, newest first. */
  deliveries: (webhookId: string, limit: number) => Promise<Delivery[]>
  /** Makes a delivery pending again, due `now`, retried until `retryUntil` (a lease held stays held); false when there is none. */
  retry: (webhookId: string, id: string, now: Date, retryUntil: Date) => Promise<boolean>
  /** Deletes delivered and failed deliveries created before `before`. */
  prune: (before: Date) => Promise<void>
}
