import type { ServerResponse } from 'node:http'
import type { Change, ChangeLog, ChangeSubscription } from '../../domain/index.js'
import type { ChangeFormat } from './format.js'
import { FeedSubscriber, type StartPoint } from './subscriber.js'

export interface HubOptions {
  heartbeatMs: number
  retryMs: number
  /** The messages of the collections the feed carries. */
  format: ChangeFormat
  /** Where a change that cannot be sent is reported (the server's log). */
  log?: { error: (obj: object, msg: string) => void }
}

/**
 * The one subscription of a server to its store's change log, fanned out to
 * every client of the feed: each change is formatted once and queued to the
 * clients that follow its service. One timer sends every heartbeat.
 */
export class ChangeHub {
  readonly changes: ChangeLog
  readonly #options: HubOptions
  readonly #subscribers = new Set<FeedSubscriber>()
  readonly #heartbeat: NodeJS.Timeout
  #subscription: ChangeSubscription | undefined
  #position = 0

  private constructor (changes: ChangeLog, options: HubOptions) {
    this.changes = changes
    this.#options = options
    this.#heartbeat = setInterval(() => { for (const s of this.#subscribers) s.heartbeat() }, options.heartbeatMs).unref()
  }

  static async open (changes: ChangeLog, options: HubOptions): Promise<ChangeHub> {
    const hub = new ChangeHub(changes, options)
    try {
      hub.#subscription = await changes.subscribe((change) => { hub.#deliver(change) })
    } catch (err) {
      clearInterval(hub.#heartbeat)
      throw err
    }
    // A change may have been delivered before subscribe() returned: keep the later position.
    hub.#position = Math.max(hub.#position, hub.#subscription.position)
    return hub
  }

  #deliver (change: Change): void {
    if (change.seq > this.#position) this.#position = change.seq
    // Formatting costs more than the write itself (issue 12); most of the time nobody listens.
    if (this.#subscribers.size === 0) return
    try {
      const message = this.#options.format.message(change)
      if (message === undefined) return // a collection this server does not serve (another instance's)
      for (const subscriber of this.#subscribers) subscriber.deliver(change.seq, change.service, message)
    } catch (err) {
      // A bug, not a client's doing: the store's delivery to other listeners must go on.
      this.#options.log?.error({ err, seq: change.seq }, 'change feed: could not send a change')
    }
  }

  /** The message of a change, undefined for a collection the feed does not carry. */
  message (change: Change): string | undefined {
    return this.#options.format.message(change)
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

  /** A new client, whose response has its headers written: the stream starts. */
  subscribe (res: ServerResponse, services: ReadonlySet<string>, start: StartPoint): FeedSubscriber {
    const subscriber = new FeedSubscriber(res, this, services, (s) => { this.#subscribers.delete(s) })
    this.#subscribers.add(subscriber)
    subscriber.begin(start, this.#options.retryMs)
    return subscriber
  }

  /** Ends every stream (so the server can close) and the store subscription. */
  close (): void {
    clearInterval(this.#heartbeat)
    this.#subscription?.unsubscribe()
    for (const subscriber of [...this.#subscribers]) subscriber.end()
  }
}
