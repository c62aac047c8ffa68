import type { ServerResponse } from 'node:http'
import type { StreamOwner, StreamRefusal, StreamRegistry, StreamSlot } from '../../http/streams/index.js'
import type { Change, ChangeLog, ChangeSubscription } from '../../domain/index.js'
import type { ChangeAccess, ChangeFilter } from '../../records/index.js'
import type { ChangeFormat } from './format.js'
import { FeedSubscriber, type PlannedEnd, type StartPoint } from './subscriber.js'
import { ReplayTurns } from './turns.js'

export interface HubOptions {
  /** The messages of the collections the feed carries. */
  format: ChangeFormat
  heartbeatMs: number
  retryMs: number
  /** How long a stream lasts (0: no limit). */
  maxStreamAgeMs: number
  /**
   * The server's long-lived streams (src/http/streams): the budget a stream
   * takes its slot from, shared with GraphQL subscriptions, and what ends a
   * stream whose token is withdrawn or expires.
   */
  registry: StreamRegistry
  /** Where a change that cannot be sent is reported (the server's log). */
  log?: { error: (obj: object, msg: string) => void }
}

export type { StreamOwner }

/** A stream ends between 90 % and 100 % of the maximum age, so clients that connected together do not all come back together. */
const AGE_SPREAD = 0.1

/**
 * The one subscription of a server to its store's change log, fanned out to
 * every client of the feed, open only while there are clients (a server
 * nobody follows reads nothing of the log): each change is formatted once and queued to the
 * clients that follow its service. One timer sends every heartbeat. It also
 * takes each stream's slot from the server's stream registry (the budget
 * shared with GraphQL subscriptions, which also ends a stream whose
 * credential goes) and hands out replay turns (./turns.ts).
 */
export class ChangeHub {
  readonly changes: ChangeLog
  readonly #options: HubOptions
  readonly #subscribers = new Set<FeedSubscriber>()
  readonly #heartbeat: NodeJS.Timeout
  readonly #turns = new ReplayTurns()
  /** The hub's subscription to the store's change log: open while a stream holds it (see hold). */
  #subscription: Promise<ChangeSubscription> | undefined
  /** Streams starting or open: the subscription is kept while there is one. */
  #holds = 0
  #position = 0

  private constructor (changes: ChangeLog, options: HubOptions) {
    this.changes = changes
    this.#options = options
    this.#heartbeat = setInterval(() => { for (const s of this.#subscribers) s.heartbeat() }, options.heartbeatMs).unref()
  }

  /** A hub that subscribes to `changes` only while it has streams to feed (a server nobody follows reads no change). */
  static async open (changes: ChangeLog, options: HubOptions): Promise<ChangeHub> {
    return new ChangeHub(changes, options)
  }

  /** How many streams hold the store subscription (starting or open). */
  get holds (): number {
    return this.#holds
  }

  /**
   * Holds the store subscription for a stream about to start: subscribes
   * with the first, and resolves once the hub's position is the store's, so
   * that a start point read after it is covered by the live changes. The
   * stream lets go when it ends; call `letGo` when it does not start.
   */
  async hold (): Promise<void> {
    this.#holds++
    const subscription = this.#subscription ??= this.changes.subscribe((change) => {
      if (this.#subscription === subscription) this.#deliver(change)
    })
    try {
      // A change may have been delivered before subscribe() returned: keep the later position.
      this.#position = Math.max(this.#position, (await subscription).position)
    } catch (err) {
      if (this.#subscription === subscription) this.#subscription = undefined
      this.letGo()
      throw err
    }
  }

  /** A stream ended or did not start: the last one to go ends the store subscription. */
  letGo (): void {
    this.#holds--
    if (this.#holds > 0) return
    const subscription = this.#subscription
    this.#subscription = undefined
    void subscription?.then((s) => { s.unsubscribe() }, () => {})
  }

  #deliver (change: Change): void {
    if (change.seq > this.#position) this.#position = change.seq
    // Formatting costs more than the write itself (issue 12); most of the time nobody listens.
    if (this.#subscribers.size === 0) return
    try {
      const message = this.#options.format.message(change)
      if (message === undefined) return // a collection this server does not serve (another instance's)
      for (const subscriber of this.#subscribers) subscriber.deliver(change, message)
    } catch (err) {
      // A bug, not a client's doing: the store's delivery to other listeners must go on.
      this.#options.log?.error({ err, seq: change.seq }, 'change feed: could not send a change')
    }
  }

  /** The message of a change, undefined for a collection the feed does not carry. */
  message (change: Change): string | undefined {
    return this.#options.format.message(change)
  }

  /** The JSON of a change's `data:` line, undefined for a collection the feed does not carry. */
  data (change: Change): string | undefined {
    return this.#options.format.data(change)
  }

  /** The last sequence number the store delivered. */
  get position (): number {
    return this.#position
  }

  /** How many clients are connected. */
  get subscribers (): number {
    return this.#subscribers.size
  }

  /** Bytes queued for all clients and not yet taken by their connections. */
  get queuedBytes (): number {
    let bytes = 0
    for (const subscriber of this.#subscribers) bytes += subscriber.queuedBytes
    return bytes
  }

  /** Resolves when a stream may read and send a page of backlog. */
  async turn (): Promise<void> {
    await this.#turns.next()
  }

  /**
   * Takes a stream slot for `owner` from the server's stream budget before
   * the stream starts, or says which limit refuses it. Give it back with
   * `slot.release()` if the stream does not start; a stream that starts
   * gives it back when it ends.
   */
  reserve (owner: StreamOwner): StreamSlot | StreamRefusal {
    return this.#options.registry.reserve('events', owner)
  }

  /**
   * A new client, holding a slot `reserve` gave it and a hold (`hold`),
   * whose response has its headers written: the stream starts.
   */
  subscribe (res: ServerResponse, services: ReadonlySet<string>, start: StartPoint, slot: StreamSlot, filter?: ChangeFilter, access?: ReadonlyMap<string, ChangeAccess>): FeedSubscriber | undefined {
    // The client left while the start was read: its response has closed already, and will not say so again.
    if (res.destroyed) {
      slot.release()
      this.letGo()
      return undefined
    }
    const subscriber = new FeedSubscriber(res, this, services, (s) => {
      this.#subscribers.delete(s)
      slot.release()
      this.letGo()
    }, filter, access)
    this.#subscribers.add(subscriber)
    // Its token withdrawn (a reload of the tokens file) or its JWT expired: `event: end` says which.
    slot.attach((reason) => { subscriber.end(reason) })
    subscriber.begin(start, this.#options.retryMs, this.#plannedEnd())
    return subscriber
  }

  /** The stream's maximum age (its credential's expiry is the registry's to watch). */
  #plannedEnd (): PlannedEnd | undefined {
    const { maxStreamAgeMs } = this.#options
    return maxStreamAgeMs > 0
      ? { at: Date.now() + Math.round(maxStreamAgeMs * (1 - AGE_SPREAD * Math.random())), reason: 'max-age' }
      : undefined
  }

  /** Ends every stream (so the server can close), and with the last the store subscription. */
  close (): void {
    clearInterval(this.#heartbeat)
    for (const subscriber of [...this.#subscribers]) subscriber.end('shutdown')
  }
}
