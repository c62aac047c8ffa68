import type { ServerResponse } from 'node:http'
import type { Authenticator, Principal } from '../../http/security/index.js'
import type { Change, ChangeLog, ChangeSubscription } from '../../domain/index.js'
import type { ChangeFormat } from './format.js'
import { StreamLimits, type StreamRefusal } from './limits.js'
import { FeedSubscriber, type PlannedEnd, type StartPoint } from './subscriber.js'
import { ReplayTurns } from './turns.js'

export interface HubOptions {
  /** The messages of the collections the feed carries. */
  format: ChangeFormat
  heartbeatMs: number
  retryMs: number
  /** Most streams open at once (Infinity: no limit). */
  maxStreams: number
  /** Most streams of one client (0: no limit). */
  maxStreamsPerClient: number
  /** How long a stream lasts (0: no limit). */
  maxStreamAgeMs: number
  /** When authentication is on: open streams are checked again when the tokens file is reloaded. */
  authenticator?: Authenticator
  /** Where a change that cannot be sent, and streams ended by a reload, are reported (the server's log). */
  log?: { error: (obj: object, msg: string) => void, info: (obj: object, msg: string) => void }
}

/** Who holds a stream: the client its limit counts (principal, else address) and the principal whose credential it needs. */
export interface StreamOwner {
  client: string
  principal?: Principal
}

/** A stream ends between 90 % and 100 % of the maximum age, so clients that connected together do not all come back together. */
const AGE_SPREAD = 0.1

/**
 * The one subscription of a server to its store's change log, fanned out to
 * every client of the feed: each change is formatted once and queued to the
 * clients that follow its service. One timer sends every heartbeat. It also
 * keeps the streams within their limits (./limits.ts), hands out replay turns
 * (./turns.ts) and ends the streams whose credential is withdrawn.
 */
export class ChangeHub {
  readonly changes: ChangeLog
  readonly #options: HubOptions
  readonly #subscribers = new Map<FeedSubscriber, StreamOwner>()
  readonly #heartbeat: NodeJS.Timeout
  readonly #limits: StreamLimits
  readonly #turns = new ReplayTurns()
  readonly #recheck = (): void => { this.#endRevoked() }
  #subscription: ChangeSubscription | undefined
  #position = 0

  private constructor (changes: ChangeLog, options: HubOptions) {
    this.changes = changes
    this.#options = options
    this.#limits = new StreamLimits(options.maxStreams, options.maxStreamsPerClient > 0 ? options.maxStreamsPerClient : Infinity)
    this.#heartbeat = setInterval(() => { for (const s of this.#subscribers.keys()) s.heartbeat() }, options.heartbeatMs).unref()
    options.authenticator?.tokenFile?.on('reloaded', this.#recheck)
  }

  static async open (changes: ChangeLog, options: HubOptions): Promise<ChangeHub> {
    const hub = new ChangeHub(changes, options)
    try {
      hub.#subscription = await changes.subscribe((change) => { hub.#deliver(change) })
    } catch (err) {
      hub.#stop()
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
      for (const subscriber of this.#subscribers.keys()) subscriber.deliver(change.seq, change.service, message)
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
    for (const subscriber of this.#subscribers.keys()) bytes += subscriber.queuedBytes
    return bytes
  }

  /** Resolves when a stream may read and send a page of backlog. */
  async turn (): Promise<void> {
    await this.#turns.next()
  }

  /**
   * Takes a stream slot for `client` before the stream starts, or says which
   * limit refuses it. Give it back with `release` if the stream does not start;
   * a stream that starts gives it back when it ends.
   */
  reserve (client: string): StreamRefusal | undefined {
    return this.#limits.take(client)
  }

  release (client: string): void {
    this.#limits.give(client)
  }

  /** A new client, holding a slot `reserve` gave it, whose response has its headers written: the stream starts. */
  subscribe (res: ServerResponse, services: ReadonlySet<string>, start: StartPoint, owner: StreamOwner): FeedSubscriber | undefined {
    // The client left while the start was read: its response has closed already, and will not say so again.
    if (res.destroyed) {
      this.#limits.give(owner.client)
      return undefined
    }
    const subscriber = new FeedSubscriber(res, this, services, (s) => {
      this.#subscribers.delete(s)
      this.#limits.give(owner.client)
    })
    this.#subscribers.set(subscriber, owner)
    subscriber.begin(start, this.#options.retryMs, this.#plannedEnd(owner.principal))
    return subscriber
  }

  /** The sooner of the stream's maximum age and its credential's expiry. */
  #plannedEnd (principal: Principal | undefined): PlannedEnd | undefined {
    const { maxStreamAgeMs } = this.#options
    const aged: PlannedEnd | undefined = maxStreamAgeMs > 0
      ? { at: Date.now() + Math.round(maxStreamAgeMs * (1 - AGE_SPREAD * Math.random())), reason: 'max-age' }
      : undefined
    const expires = principal?.expiresAt
    if (expires === undefined || (aged !== undefined && aged.at <= expires)) return aged
    return { at: expires, reason: 'expired' }
  }

  /** After a reload of the tokens file: every stream whose token is no longer accepted (removed, or its scopes changed) ends. */
  #endRevoked (): void {
    const authenticator = this.#options.authenticator
    if (authenticator === undefined) return
    let ended = 0
    for (const [subscriber, { principal }] of [...this.#subscribers]) {
      if (principal === undefined || authenticator.stillValid(principal)) continue
      subscriber.end('revoked')
      ended++
    }
    if (ended > 0) this.#options.log?.info({ streams: ended }, 'change feed: streams ended, their token was withdrawn')
  }

  #stop (): void {
    clearInterval(this.#heartbeat)
    this.#options.authenticator?.tokenFile?.off('reloaded', this.#recheck)
  }

  /** Ends every stream (so the server can close) and the store subscription. */
  close (): void {
    this.#stop()
    this.#subscription?.unsubscribe()
    for (const subscriber of [...this.#subscribers.keys()]) subscriber.end('shutdown')
  }
}
