import { randomBytes } from 'node:crypto'
import type { AttemptOf, AttemptOutcome, Change, ChangeKind, ChangeLog, ChangeSubscription, Delivery, NewDelivery, Webhook, WebhookStore } from '../../domain/index.js'
import type { CollectionModel } from '../../records/index.js'
import type { ChangeFormat } from '../events/format.js'
import type { WebhooksConfig } from './config.js'
import { changeBody, matches, PING_EVENT, pingBody } from './events.js'
import { HookFilters } from './filters.js'
import { Connections, post, type AttemptResult } from './send.js'
import { SigningKeys } from './signing.js'
import { cachedLookup, parseTarget, resolveTarget, TargetRefused, type Lookup } from './targets.js'
import type { ByName } from '../collections/served-now.js'

/** Changes read from the log at once. */
const PAGE = 500
/** Changes the feed told of kept for the next round at most: past it (rounds failing, the store down) the log is read instead. */
const FED_MAX = 10 * PAGE
/** Deliveries claimed and not yet attempted at most, per slot of the concurrency (a claim is made when half are left). */
const CLAIM_PER_SLOT = 16
/** How long outcomes gather before they are written while attempts are left. */
const OUTCOMES_WAIT_MS = 50
/** How often settled deliveries older than the history are deleted. */
const PRUNE_EVERY_MS = 60_000
/**
 * How soon after a change no webhook asks for the position moves past it:
 * one round for all such changes of that time, rather than a round a write
 * (a webhook on one collection no longer costs every other collection's
 * writes), and soon enough that the memory store's ring (10 000 changes)
 * still holds them.
 */
const CATCH_UP_MS = 50
/**
 * The least time from the start of one round to the start of the next: at a
 * steady write rate the changes of those milliseconds share one queueing,
 * one claim and one write of outcomes (a few hundred µs of CPU each on
 * SQLite, whatever their size) rather than pay them every change or two.
 * The first change after a quiet spell still wakes a round at once.
 */
const ROUND_GAP_MS = 10

export interface DispatcherMetrics {
  /** One attempt: `delivered`, `retry` (failed, tried again later) or `failed` (for good). */
  countWebhookAttempt: (outcome: 'delivered' | 'retry' | 'failed', seconds: number) => void
}

export interface DispatcherOptions {
  store: WebhookStore
  changes: ChangeLog
  format: ChangeFormat
  /** Each collection's query model: what the webhooks' filters are read against. */
  models: ByName<CollectionModel>
  config: WebhooksConfig
  log: { warn: (obj: object, msg: string) => void, error: (obj: object, msg: string) => void }
  metrics?: DispatcherMetrics
  /** How the receivers' host names are resolved (tests); by default the system's, cached for a few seconds. */
  lookup?: Lookup
}

/**
 * Delivers the change log to the webhooks, one per server. Two steps, each
 * safe with several instances on one database:
 * 1. fan-out: reads the changes after the stored position and queues one
 *    delivery per change and matching webhook, moving the position in the
 *    same write (compare-and-set: when another instance moved it first, this
 *    one reads again);
 * 2. delivery: claims due deliveries in one statement (a lease, so one
 *    instance at a time attempts each, and per record key only the first
 *    pending one, so a record's go out one at a time, in order), POSTs them
 *    signed, up to `concurrency` at once per webhook on kept-alive
 *    connections, and records outcomes (next try or the end) many to a
 *    write; claims, attempts and writes of outcomes overlap, none waits for
 *    a whole batch.
 * It runs when the log says something changed and every `pollMs` (retries
 * coming due, other instances' changes). Writes never wait for it: it only
 * reads the log they write.
 */
export class Dispatcher {
  readonly #o: DispatcherOptions
  /** Who holds a lease: this instance, for this run. */
  readonly #owner = `i_${randomBytes(6).toString('hex')}`
  readonly #allowHosts: ReadonlySet<string>
  readonly #filters: HookFilters
  readonly #keys = new SigningKeys()
  readonly #connections: Connections
  /** The receivers' addresses, resolved at most once per host every few seconds; each attempt still checks them. */
  readonly #lookup: Lookup
  #subscription: ChangeSubscription | undefined
  /**
   * The changes the feed told this instance of that some enabled webhook may
   * ask for, in order, not yet passed by the position: every such change
   * after `#fedAfter` up to the last one here. A round whose position is at
   * or after `#fedAfter` takes its changes from here rather than reading the
   * log (two statements less a round, and on PostgreSQL two waits less
   * behind the writes for a pooled connection). The others are passed over
   * and not kept: held until the next round, up to CATCH_UP_MS, they were
   * carried into the old generation by the hundred at every scavenge.
   */
  #fed: Change[] = []
  #fedAfter = Number.POSITIVE_INFINITY
  /** The last change the feed told of: every change up to it is committed and numbered. */
  #fedLatest = 0
  /**
   * The events (collection, then kinds) passed over since the position last
   * passed them all, and the last change passed over. The patterns that
   * passed them may be stale (another instance sharing the store added or
   * changed a webhook): a round whose listed webhooks ask for one of them
   * reads the log rather than `#fed` up to that change.
   */
  readonly #passed = new Map<string, Set<ChangeKind>>()
  #passedTo = 0
  /** Rounds read the log, not `#fed`, until the position reaches this: changes up to it may have been passed over wrongly. */
  #readLogTo = 0
  #timer: NodeJS.Timeout | undefined
  #running: Promise<void> | undefined
  #again = false
  #stopped = false
  #prunedAt = 0
  /** The enabled webhooks' event patterns as the last round listed them; null until then, or after this instance changed a webhook (every change wakes). */
  #patterns: ReadonlyArray<readonly string[]> | null = null
  /** Per collection, per kind of change, whether some pattern above asks for it. */
  readonly #wanted = new Map<string, Record<ChangeKind, boolean>>()
  #catchUp: NodeJS.Timeout | undefined
  /** When the last round started (performance.now()), and the wait for the next one's turn (ROUND_GAP_MS). */
  #roundStarted = Number.NEGATIVE_INFINITY
  #gapTimer: NodeJS.Timeout | undefined
  /**
   * The position as this instance last read or moved it: a round reads it
   * only when unknown. Another instance moving it makes this one's
   * compare-and-set fail, after which it is read again; until then this one
   * may read changes another queued already, at no other cost.
   */
  #position: number | null = null
  /** The enabled webhooks as this round's fan-out listed them: its deliveries' first claim uses them rather than list again. */
  #roundHooks: Webhook[] | undefined
  /** Per webhook, the claimed deliveries not yet attempted, in order, and how many of its attempts are under way. */
  readonly #queues = new Map<string, HookQueue>()
  /** Deliveries claimed whose attempt has not ended yet. */
  #held = 0
  /** Told when an attempt ends: a claim waiting for room goes on. */
  #freed: (() => void) | undefined
  readonly #workers = new Set<Promise<void>>()
  /** Outcomes not yet recorded, and the write recording the ones before them. */
  #outcomes: Array<AttemptOf & { hook: Webhook }> = []
  #recording: Promise<void> | undefined
  #outcomesTimer: NodeJS.Timeout | undefined

  constructor (options: DispatcherOptions) {
    this.#o = options
    this.#allowHosts = new Set(options.config.allowHosts.map((h) => h.toLowerCase()))
    this.#connections = new Connections(options.config.concurrency)
    this.#lookup = options.lookup ?? cachedLookup()
    this.#filters = new HookFilters(options.models, (hook, reason) => {
      options.log.warn({ webhook: hook.id, filter: hook.filter, reason }, 'webhooks: a filter no longer reads against its collection: no changes are delivered to this webhook')
    })
  }

  async start (): Promise<void> {
    // First run on this database: webhooks get the changes from now on. Settled before the server takes a
    // request, so a change written after the start is never passed over by a first round that ran late.
    const { store, changes } = this.#o
    if (await store.position() === null) await store.enqueue(null, (await changes.window()).latest, [])
    this.#subscription = await this.#o.changes.subscribe((change) => { this.#changed(change) }, {
      passes: (seq, collection, kind) => this.#passes(seq, collection, kind)
    })
    this.#fedAfter = this.#subscription.position
    this.#fedLatest = Math.max(this.#fedLatest, this.#subscription.position)
    this.#timer = setInterval(() => { this.wake() }, this.#o.config.pollMs).unref()
    this.wake()
  }

  /** Runs a round now, or once more after the one under way. */
  wake (): void {
    if (this.#stopped) return
    if (this.#running !== undefined) { this.#again = true; return }
    const gap = this.#roundStarted + ROUND_GAP_MS - performance.now()
    if (gap > 0) { this.#gapTimer ??= setTimeout(() => { this.#gapTimer = undefined; this.wake() }, gap).unref(); return }
    this.#running = this.#rounds().finally(() => { this.#running = undefined })
  }

  /** A webhook was created, changed or deleted through this instance: every change wakes until the next round lists them again. */
  hooksChanged (): void {
    this.#patterns = null
    this.#wanted.clear()
    this.#roundHooks = undefined
    this.wake()
  }

  /** How many changes the feed told of are kept for the next round (tests). */
  get fedHeld (): number {
    return this.#fed.length
  }

  /** A change some webhook may ask for is kept and wakes a round now (see `#passes` for the others). */
  #changed (change: Change): void {
    if (this.#passes(change.seq, change.service, change.kind)) return
    if (this.#fed.length >= FED_MAX) { this.#fed = []; this.#fedAfter = this.#fedLatest }
    this.#fed.push(change)
    this.#fedLatest = change.seq
    this.wake()
  }

  /**
   * True for a change no enabled webhook asks for: it is not kept, only
   * noted, and a round soon after moves the position past it, shared with
   * the others. The memory log asks before it makes the change at all.
   */
  #passes (seq: number, collection: string, kind: ChangeKind): boolean {
    if (this.#asked(collection, kind)) return false
    this.#fedLatest = seq
    this.#passedTo = seq
    let kinds = this.#passed.get(collection)
    if (kinds === undefined) this.#passed.set(collection, kinds = new Set())
    kinds.add(kind)
    this.#catchUp ??= setTimeout(() => { this.#catchUp = undefined; this.wake() }, CATCH_UP_MS).unref()
    return true
  }

  #asked (collection: string, kind: ChangeKind): boolean {
    const patterns = this.#patterns
    if (patterns === null) return true
    let wanted = this.#wanted.get(collection)
    if (wanted === undefined) {
      const asks = (k: ChangeKind): boolean => patterns.some((p) => matches(p, `${collection}.${k}`))
      wanted = { created: asks('created'), replaced: asks('replaced'), deleted: asks('deleted') }
      this.#wanted.set(collection, wanted)
    }
    return wanted[kind]
  }

  /**
   * A round listed the enabled webhooks, its position at `from`: their
   * patterns decide from now on. When they ask for an event passed over
   * after `from` (by older patterns), the log is read up to the last change
   * passed over, which `#fed` may lack.
   */
  #listed (hooks: readonly Webhook[], from: number): void {
    this.#patterns = hooks.map((w) => w.events)
    this.#wanted.clear()
    if (this.#passedTo <= from) { this.#passed.clear(); return }
    for (const [collection, kinds] of this.#passed) {
      for (const kind of kinds) {
        if (!this.#asked(collection, kind)) continue
        this.#readLogTo = Math.max(this.#readLogTo, this.#passedTo)
        this.#passed.clear()
        return
      }
    }
  }

  async stop (): Promise<void> {
    this.#stopped = true
    clearInterval(this.#timer)
    clearTimeout(this.#catchUp)
    clearTimeout(this.#gapTimer)
    this.#subscription?.unsubscribe()
    await this.#running
    await this.#drain()
    this.#connections.close()
  }

  async #rounds (): Promise<void> {
    do {
      this.#roundStarted = performance.now()
      this.#again = false
      this.#roundHooks = undefined
      try {
        await this.#fanOut()
        await this.#deliverDue()
        await this.#prune()
      } catch (err) {
        // The store is unavailable, most likely: the next wake-up tries again.
        this.#o.log.error({ err }, 'webhooks: dispatch failed')
      }
      const gap = this.#roundStarted + ROUND_GAP_MS - performance.now()
      if (this.#again && !this.#stopped && gap > 0) await new Promise((resolve) => setTimeout(resolve, gap))
    } while (this.#again && !this.#stopped)
  }

  /** Queues the deliveries of every change after the position. */
  async #fanOut (): Promise<void> {
    const { store, changes, format } = this.#o
    while (!this.#stopped) {
      const from = this.#position ??= await store.position()
      // What the feed told of is committed and numbered: as good as the log's window, and the log's own changes.
      const fed = from !== null && from >= this.#fedAfter
      const { oldest, latest } = fed ? { oldest: 0, latest: this.#fedLatest } : await changes.window()
      // First run on this database: webhooks get the changes from now on.
      if (from === null) { await this.#enqueue(null, latest, []); continue }
      if (latest <= from) return
      const all = await store.list()
      this.#roundHooks = all
      const hooks = all.filter((w) => w.enabled)
      this.#listed(hooks, from)
      this.#filters.keepOnly(new Set(hooks.map((w) => w.id)))
      if (hooks.length === 0) { await this.#enqueue(from, latest, []); return }
      if (from < oldest - 1) this.#o.log.warn({ from, oldest }, 'webhooks: changes were pruned from the log before they were delivered')
      // Up to the window read before the webhooks: one registered since has afterSeq >= latest, so none of
      // these is its, and the later changes are read with it in the list next time round.
      const fromFed = fed && from >= this.#readLogTo
      const batch = (fromFed ? this.#fedAfterSeq(from) : await changes.since(from, PAGE)).filter((c) => c.seq <= latest)
      // Fewer than a page: every change up to `latest` was read, or (from `#fed`) passed over as no webhook's.
      const to = batch.length < PAGE ? latest : batch.at(-1)?.seq
      if (to === undefined) return
      const deliveries: NewDelivery[] = []
      const now = new Date()
      for (const change of batch) {
        const event = `${change.service}.${change.kind}`
        let body: string | undefined
        for (const hook of hooks) {
          if (change.seq <= hook.afterSeq || !matches(hook.events, event) || !this.#filters.passes(hook, change)) continue
          body ??= changeBody(format, change)
          if (body === undefined) break // a collection this server does not serve
          deliveries.push({ webhookId: hook.id, id: `c${change.seq}`, seq: change.seq, event, recordKey: `${change.service}/${String(change.id)}`, body, createdAt: now, retryUntil: new Date(now.getTime() + this.#o.config.retryPeriodMs) })
        }
      }
      // false: another instance queued these first; read the position again.
      const moved = await this.#enqueue(from, to, deliveries)
      // Not kept until the next round: a quiet server holds none of its changes.
      if (moved) this.#dropFed(to)
      if (moved && batch.length < PAGE) return
    }
  }

  /** Up to a page of the changes the feed told of after `from`; those up to `from` are dropped, passed for good. */
  #fedAfterSeq (from: number): Change[] {
    this.#dropFed(from)
    return this.#fed.slice(0, PAGE)
  }

  /** Drops the changes the feed told of up to `to`, which the position has passed. */
  #dropFed (to: number): void {
    const passed = this.#fed.findIndex((c) => c.seq > to)
    if (passed === -1) this.#fed = []
    else if (passed > 0) this.#fed = this.#fed.slice(passed)
    this.#fedAfter = Math.max(this.#fedAfter, to)
  }

  /** Moves the position from `from` to `to` with the deliveries; when another instance moved it first, it is read again next. */
  async #enqueue (from: number | null, to: number, deliveries: readonly NewDelivery[]): Promise<boolean> {
    this.#position = null
    const moved = await this.#o.store.enqueue(from, to, deliveries)
    if (moved) this.#position = to
    return moved
  }

  /**
   * Claims due deliveries while there are, and hands them to the webhooks'
   * workers; returns once a claim finds fewer than it asked for, the attempts
   * going on meanwhile. No barrier a batch: a claim is made as soon as half
   * the claimed deliveries were attempted, and outcomes are recorded as they
   * come, so the attempts never stop for a claim, a write of outcomes, or the
   * batch's slowest answer (those waits, a round at a time, made deliveries
   * lag by seconds while writes kept the event loop busy).
   */
  async #deliverDue (): Promise<void> {
    const { store, config } = this.#o
    const limit = config.concurrency * CLAIM_PER_SLOT
    while (!this.#stopped) {
      if (this.#held > limit / 2) { await new Promise<void>((resolve) => { this.#freed = resolve }); continue }
      const want = limit - this.#held
      const claimed = await store.claim(this.#owner, new Date(), config.leaseMs, want)
      if (claimed.length === 0) return
      const hooks = new Map((this.#roundHooks ?? await store.list()).map((w) => [w.id, w]))
      this.#roundHooks = undefined
      for (const delivery of claimed) {
        const hook = hooks.get(delivery.webhookId)
        if (hook === undefined) continue
        let queue = this.#queues.get(hook.id)
        if (queue === undefined) this.#queues.set(hook.id, queue = { items: [], active: 0 })
        queue.items.push({ hook, delivery })
        this.#held++
      }
      for (const [webhookId, queue] of this.#queues) {
        // Per webhook, `concurrency` attempts at once; a claim holds one delivery per record key (the next of a key
        // is claimed only once this one's outcome is recorded), so order is kept.
        while (queue.active < config.concurrency && queue.active < queue.items.length) {
          queue.active++
          const worker: Promise<void> = this.#work(webhookId, queue).finally(() => this.#workers.delete(worker))
          this.#workers.add(worker)
        }
      }
      if (claimed.length < want) return
    }
  }

  /** One of a webhook's workers: attempts its queued deliveries, one at a time, until none is left. */
  async #work (webhookId: string, queue: HookQueue): Promise<void> {
    for (let next = queue.items.shift(); next !== undefined; next = queue.items.shift()) {
      const { hook, delivery } = next
      // Awaited first: `this.#outcomes.push(… await …)` would push to the array read before the await, since recorded.
      const outcome = await this.#attemptQueued(hook, delivery)
      this.#outcomes.push({ webhookId, id: delivery.id, outcome, hook })
      this.#held--
      this.#recordOutcomes()
      const freed = this.#freed
      this.#freed = undefined
      freed?.()
      // The answer's connection goes back to the pool first: the next attempt reuses it rather than open another.
      await new Promise((resolve) => setImmediate(resolve))
    }
    queue.active--
    if (queue.active === 0 && queue.items.length === 0 && this.#queues.get(webhookId) === queue) this.#queues.delete(webhookId)
  }

  /**
   * Records the outcomes gathered so far in one write, unless one is under
   * way (those after it gather for the next). While attempts are left it
   * waits for half a claim's worth or OUTCOMES_WAIT_MS: a write a few outcomes
   * cost a durable commit each (on SQLite a disk sync on the event loop);
   * an outcome not yet written holds back only its record's next delivery.
   */
  #recordOutcomes (): void {
    if (this.#recording !== undefined || this.#outcomes.length === 0) return
    if (this.#held > 0 && this.#outcomes.length < this.#o.config.concurrency * CLAIM_PER_SLOT / 2) {
      this.#outcomesTimer ??= setTimeout(() => { this.#outcomesTimer = undefined; this.#recordOutcomes() }, OUTCOMES_WAIT_MS)
      return
    }
    clearTimeout(this.#outcomesTimer)
    this.#outcomesTimer = undefined
    const settled = this.#outcomes
    this.#outcomes = []
    this.#recording = this.#record(settled).catch(() => {}).finally(() => {
      this.#recording = undefined
      this.#recordOutcomes()
    })
  }

  /** The attempts under way finish and their outcomes are recorded (the server stops). */
  async #drain (): Promise<void> {
    while (this.#workers.size > 0 || this.#recording !== undefined) {
      await Promise.all([...this.#workers])
      await this.#recording
    }
  }

  /** Records outcomes in one write; counts and logs them. */
  async #record (settled: ReadonlyArray<AttemptOf & { hook: Webhook }>): Promise<void> {
    try {
      await this.#o.store.settle(this.#owner, settled.map(({ webhookId, id, outcome }) => ({ webhookId, id, outcome })))
    } catch (err) {
      // Not recorded: the leases expire and the deliveries are attempted again (at least once).
      this.#o.log.error({ err, deliveries: settled.length }, 'webhooks: could not record attempts')
    }
    for (const { outcome, hook } of settled) {
      this.#o.metrics?.countWebhookAttempt(outcome.delivered ? 'delivered' : outcome.nextAt === null ? 'failed' : 'retry', outcome.durationMs / 1000)
      if (outcome.disable !== undefined) this.#o.log.warn({ webhook: hook.id, reason: outcome.disable }, 'webhooks: webhook disabled')
    }
  }

  /** Attempts a claimed delivery: what to record of it. */
  async #attemptQueued (hook: Webhook, delivery: Delivery): Promise<AttemptOutcome> {
    let result: AttemptResult
    try {
      result = await this.attempt(hook, delivery)
    } catch (err) {
      // A bug or an unexpected failure: an attempt that failed, so the rest of the batch goes on.
      this.#o.log.error({ err, webhook: hook.id, delivery: delivery.id }, 'webhooks: attempt failed unexpectedly')
      result = { status: null, error: 'internal error', durationMs: 0 }
    }
    const at = new Date()
    const delivered = isSuccess(result.status)
    let nextAt: Date | null = null
    let disable: string | undefined
    if (!delivered) {
      const due = new Date(at.getTime() + this.#delay(delivery.attempts + 1))
      if (due <= delivery.retryUntil) nextAt = due
      else disable = `a delivery (${delivery.event}, ${delivery.id}) failed for ${Math.round((at.getTime() - delivery.createdAt.getTime()) / 1000)} s, ${delivery.attempts + 1} attempts; last: ${result.status ?? result.error ?? 'no answer'}`
    }
    const outcome: AttemptOutcome = { at, status: result.status, error: result.error, durationMs: result.durationMs, delivered, nextAt }
    if (disable !== undefined) outcome.disable = disable
    return outcome
  }

  /**
   * One signed POST of a delivery to its webhook's URL, after checking where
   * the URL points now (the check of the registration may be stale).
   */
  async attempt (hook: Webhook, delivery: Pick<NewDelivery, 'webhookId' | 'id' | 'body'>): Promise<AttemptResult> {
    const started = performance.now()
    let url: URL
    let target
    try {
      url = parseTarget(hook.url)
      target = await resolveTarget(url, this.#allowHosts, this.#lookup)
    } catch (err) {
      if (!(err instanceof TargetRefused)) throw err
      return { status: null, error: err.message, durationMs: performance.now() - started }
    }
    const now = Date.now()
    const secrets = [hook.secret]
    if (hook.previousSecret !== null && hook.previousSecretUntil !== null && hook.previousSecretUntil.getTime() > now) secrets.push(hook.previousSecret)
    const headers = this.#keys.headers(secrets, messageId(delivery), Math.floor(now / 1000), delivery.body)
    return await post(url, target, headers, delivery.body, this.#o.config.timeoutMs, this.#connections.agentFor(url, target))
  }

  /** Sends a test ping at once and keeps it among the webhook's deliveries. */
  async ping (hook: Webhook): Promise<NewDelivery & AttemptOutcome> {
    const now = new Date()
    const delivery: NewDelivery = { webhookId: hook.id, id: `p${randomBytes(6).toString('hex')}`, seq: 0, event: PING_EVENT, recordKey: `ping/${hook.id}`, body: pingBody(hook.id, now), createdAt: now, retryUntil: now }
    const result = await this.attempt(hook, delivery)
    const outcome: AttemptOutcome = { at: new Date(), status: result.status, error: result.error, durationMs: result.durationMs, delivered: isSuccess(result.status), nextAt: null }
    await this.#o.store.record(delivery, outcome)
    this.#o.metrics?.countWebhookAttempt(outcome.delivered ? 'delivered' : 'failed', result.durationMs / 1000)
    return { ...delivery, ...outcome }
  }

  /** The wait before attempt `n + 1`: base × 2^(n-1), at most the maximum, less up to 20 % (jitter). */
  #delay (n: number): number {
    const { retryBaseMs, retryMaxMs } = this.#o.config
    const full = Math.min(retryMaxMs, retryBaseMs * 2 ** Math.min(n - 1, 40))
    return Math.round(full * (0.8 + 0.2 * Math.random()))
  }

  async #prune (): Promise<void> {
    const now = Date.now()
    if (now - this.#prunedAt < PRUNE_EVERY_MS) return
    this.#prunedAt = now
    await this.#o.store.prune(new Date(now - this.#o.config.historyMs))
  }
}

interface HookQueue {
  items: Array<{ hook: Webhook, delivery: Delivery }>
  active: number
}

function isSuccess (status: number | null): boolean {
  return status !== null && status >= 200 && status < 300
}

/** The `webhook-id` of a delivery: the same at every attempt, so a receiver can drop a repeat. */
export function messageId (delivery: Pick<NewDelivery, 'webhookId' | 'id'>): string {
  return `msg_${delivery.webhookId}_${delivery.id}`
}
