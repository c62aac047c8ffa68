import type { ServerResponse } from 'node:http'
import type { Change, ChangeLog } from '../../domain/index.js'
import type { ChangeAccess, ChangeFilter } from '../../records/index.js'
import { endMessage, HEARTBEAT, readyMessage, resetMessage, retryMessage, type EndReason } from './format.js'

/** Most changes one catch-up read takes from the store. */
const CATCH_UP_PAGE = 200
/** The longest delay setTimeout takes; a later end is re-armed when it fires. */
const MAX_TIMER_MS = 2 ** 31 - 1

/** Where a new stream starts. */
export type StartPoint =
  /**
   * The changes after `latest`, the newest change the store held when the stream was asked for: a
   * change this server's hub learns of later (SQLite and PostgreSQL tell it after a poll or a
   * notification) but that was written before is not sent as live.
   */
  | { kind: 'live', latest: number }
  /** Every change after `after` first (Last-Event-ID). */
  | { kind: 'resume', after: number }
  /** The client's position is lost: `event: reset` first. */
  | { kind: 'reset' }

/** What a subscriber needs from the hub: the store's log, the last change the hub delivered, turns to replay. */
export interface ChangeSource {
  readonly changes: ChangeLog
  readonly position: number
  /** Resolves when this stream may read and send a page of backlog (./turns.ts). */
  turn: () => Promise<void>
  /** The message of a change; undefined for a collection the feed does not carry. */
  message: (change: Change) => string | undefined
}

/** When the server ends a stream by itself, and why (its age, its credential's expiry). */
export interface PlannedEnd {
  /** ms since the epoch */
  at: number
  reason: EndReason
}

/**
 * - starting: not yet writing (the response is being prepared)
 * - catching-up: reading changes from the store; live changes are left to that read
 * - live: each change the hub delivers is queued at once
 * - paused: (live) the connection's buffer is full; when it drains, a catch-up follows
 * - closed
 */
type State = 'starting' | 'catching-up' | 'live' | 'paused' | 'closed'

/**
 * One client of the change feed: its position (the last sequence number it
 * has been sent or skipped) and the response it writes to.
 *
 * Memory stays bounded for slow clients by back-pressure rather than by
 * dropping them: once the connection's buffer is full (a write returns
 * false) the subscriber stops taking live changes, and when the buffer has
 * drained it reads what it missed from the store, by position, as a resuming
 * client does. A change is never skipped silently: a gap in the numbers the
 * hub delivers, or one in what the store still holds, leads to a catch-up or
 * to `event: reset`. A catch-up reads one page per turn (./turns.ts) and
 * waits for the connection to drain before it writes more.
 *
 * The server ends a stream by itself at its planned end (its maximum age, its
 * JWT's expiry) or when the hub finds its credential revoked, with a last
 * `event: end` saying why.
 */
export class FeedSubscriber {
  readonly #res: ServerResponse
  readonly #source: ChangeSource
  readonly #services: ReadonlySet<string>
  readonly #onClose: (subscriber: FeedSubscriber) => void
  readonly #filter: ChangeFilter | undefined
  /** Per collection with rules: what its caller may see of its changes (docs/rules.md). */
  readonly #access: ReadonlyMap<string, ChangeAccess> | undefined
  #state: State = 'starting'
  #cursor = 0
  #announced = false
  #endTimer: NodeJS.Timeout | undefined

  constructor (res: ServerResponse, source: ChangeSource, services: ReadonlySet<string>, onClose: (subscriber: FeedSubscriber) => void, filter?: ChangeFilter, access?: ReadonlyMap<string, ChangeAccess>) {
    this.#res = res
    this.#source = source
    this.#services = services
    this.#onClose = onClose
    this.#filter = filter
    this.#access = access
    res.on('drain', () => { if (this.#state === 'paused') void this.#catchUp() })
    // The client went away (or the response was ended): nothing more to do for it.
    res.once('close', () => { this.#close() })
    // A client that half-closes its connection has gone too (an EventSource never does). The server
    // keeps half-open connections so that requests like `printf … | nc` get their answer
    // (src/http/timeouts.ts), which would leave a stream open until a heartbeat failed.
    // It may have done so already, while the stream's start was read.
    if (res.socket?.readableEnded === true) res.destroy()
    else res.socket?.once('end', () => { res.destroy() })
  }

  get state (): State {
    return this.#state
  }

  /** Bytes written and not yet taken by the connection. */
  get queuedBytes (): number {
    return this.#res.writableLength
  }

  /** Starts the stream: the retry hint, then, by `start`, a catch-up or a reset, then `event: ready` and the live changes; it ends by itself at `end`. */
  begin (start: StartPoint, retryMs: number, end?: PlannedEnd): void {
    if (end !== undefined) this.#planEnd(end)
    this.#push(retryMessage(retryMs))
    if (start.kind === 'resume') {
      this.#cursor = start.after
      void this.#catchUp()
      return
    }
    this.#cursor = start.kind === 'live' ? Math.max(this.#source.position, start.latest) : this.#source.position
    if (start.kind === 'reset') this.#push(resetMessage(this.#cursor))
    this.#goLive()
  }

  /** A change the hub delivers (with its message, formatted once for everyone). */
  deliver (change: Change, message: string): void {
    const seq = change.seq
    if (this.#state !== 'live' || seq <= this.#cursor) return
    // A change before this one never reached us (the hub or the memory ring lost it): ask the store.
    if (seq > this.#cursor + 1) { void this.#catchUp(); return }
    this.#cursor = seq
    const own = this.#messageOf(change, message)
    if (own !== undefined && !this.#push(own)) this.#state = 'paused'
  }

  /**
   * The message this stream sends for a change, or undefined when it sends
   * none: one of its services, passing its filter, in its caller's view
   * (each change is asked once, in order: the filter and the access follow
   * records). `shared` is the message formatted once for every stream, sent
   * when the caller sees the change as it is.
   */
  #messageOf (change: Change, shared?: string): string | undefined {
    if (!this.#services.has(change.service)) return undefined
    const access = this.#access?.get(change.service)
    const seen = access === undefined ? change : access.seen(change)
    // The filter tests the record as the caller sees it: a hidden field never decides what the stream carries.
    const passes = this.#filter === undefined || this.#filter.passes(seen ?? { ...change, record: null })
    if (!passes || seen === undefined) return undefined
    return seen === change && shared !== undefined ? shared : this.#source.message(seen)
  }

  heartbeat (): void {
    if (this.#state === 'live' && !this.#push(HEARTBEAT)) this.#state = 'paused'
  }

  /** Ends the stream, with `event: end` saying why when there is a reason the client should know. */
  end (reason?: EndReason): void {
    if (this.#state === 'closed') return
    if (reason !== undefined) this.#push(endMessage(reason))
    this.#res.end()
    this.#close()
  }

  #close (): void {
    if (this.#state === 'closed') return
    this.#state = 'closed'
    clearTimeout(this.#endTimer)
    this.#onClose(this)
  }

  #planEnd (end: PlannedEnd): void {
    const wait = end.at - Date.now()
    this.#endTimer = setTimeout(() => {
      if (Date.now() >= end.at) this.end(end.reason)
      else this.#planEnd(end) // further away than one timer reaches
    }, Math.max(0, Math.min(wait, MAX_TIMER_MS))).unref()
  }

  /** Writes `text`; false when the connection's buffer is full (it is buffered all the same). */
  #push (text: string): boolean {
    return this.#res.write(text)
  }

  #goLive (): void {
    if (!this.#announced) {
      this.#announced = true
      if (!this.#push(readyMessage(this.#cursor))) { this.#state = 'paused'; return }
    }
    this.#state = 'live'
  }

  /** Sends what the store holds after the cursor, a page a turn, until it has caught up with the hub. */
  async #catchUp (): Promise<void> {
    if (this.#state === 'closed' || this.#state === 'catching-up') return
    this.#state = 'catching-up'
    try {
      for (;;) {
        await this.#source.turn()
        if (this.#state !== 'catching-up') return
        const behind = this.#source.position > this.#cursor
        const changes = await this.#source.changes.since(this.#cursor, CATCH_UP_PAGE)
        if (this.#state !== 'catching-up') return
        const first = changes[0]
        // Numbers have no gaps, and the store keeps an unbroken run: a missing next number was pruned.
        if (first === undefined ? behind && (await this.#source.changes.window()).oldest > this.#cursor + 1 : first.seq > this.#cursor + 1) {
          if (this.#state !== 'catching-up') return
          this.#cursor = first === undefined ? this.#source.position : first.seq - 1
          if (!await this.#send(resetMessage(this.#cursor))) return
          continue
        }
        // Messages go out in pieces that fill what the connection's buffer has room for: few writes
        // while the client reads, and no more than the buffer and one message queued when it does not.
        let piece = ''
        let bytes = 0
        for (const change of changes) {
          this.#cursor = change.seq
          const message = this.#messageOf(change)
          if (message === undefined) continue
          piece += message
          bytes += Buffer.byteLength(message)
          if (bytes >= this.#room()) {
            if (!await this.#send(piece)) return
            piece = ''
            bytes = 0
          }
        }
        if (piece !== '' && !await this.#send(piece)) return
        if (changes.length === CATCH_UP_PAGE || this.#source.position > this.#cursor) continue
        this.#goLive()
        return
      }
    } catch {
      // The store cannot be read: end the stream; the client comes back with its Last-Event-ID.
      this.end()
    }
  }

  /** Bytes the connection's buffer takes before a write returns false. */
  #room (): number {
    return this.#res.writableHighWaterMark - this.#res.writableLength
  }

  /** Writes `text` during a catch-up, then waits for a full buffer to drain. False when the stream ended meanwhile. */
  async #send (text: string): Promise<boolean> {
    if (!this.#push(text)) await drained(this.#res)
    return this.#state === 'catching-up'
  }
}

/** Resolves when the response's buffer has drained, or the response has closed. */
async function drained (res: ServerResponse): Promise<void> {
  if (res.destroyed) return
  await new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('drain', done)
      res.off('close', done)
      resolve()
    }
    res.on('drain', done)
    res.on('close', done)
  })
}
