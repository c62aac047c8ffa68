import type { Authenticator } from '../security/auth.js'
import type { Principal } from '../security/tokens.js'

/** Why a new stream is refused: this client holds its share, the server holds all it serves, or all of this kind it serves. */
export type StreamRefusal = 'client-full' | 'server-full'

/** Why the server ends a stream because of its credential: the token left the tokens file (or lost a scope), or the JWT expired. */
export type CredentialEnd = 'revoked' | 'expired'

/** Who holds a stream: the client its limit counts (principal, else address) and the principal whose credential it needs. */
export interface StreamOwner {
  client: string
  principal?: Principal
}

export interface StreamRegistryOptions {
  /** Most streams open at once, every kind together (Infinity: no limit). */
  maxStreams: number
  /** Most streams of one client, every kind together (Infinity: no limit). */
  maxStreamsPerClient: number
  /** When authentication is on: open streams are checked again when the tokens file is reloaded. */
  authenticator?: Authenticator
  /** Where streams ended by a reload are reported (the server's log). */
  log?: { info: (obj: object, msg: string) => void }
}

/** The longest delay setTimeout takes; a later end is re-armed when it fires. */
const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * One stream's place in the registry, taken before the stream starts. It is
 * given back once (`release`), whatever ends the stream; `attach` says how to
 * end the stream when its credential goes.
 */
export class StreamSlot {
  readonly kind: string
  readonly owner: StreamOwner
  readonly #registry: StreamRegistry
  #end: ((reason: CredentialEnd) => void) | undefined
  #timer: NodeJS.Timeout | undefined
  #released = false

  constructor (registry: StreamRegistry, kind: string, owner: StreamOwner) {
    this.#registry = registry
    this.kind = kind
    this.owner = owner
  }

  get released (): boolean {
    return this.#released
  }

  /** The stream has started: `end` ends it, with the transport's own last message, when its credential is withdrawn or expires. */
  attach (end: (reason: CredentialEnd) => void): void {
    if (this.#released) return
    this.#end = end
    const expires = this.owner.principal?.expiresAt
    if (expires !== undefined) this.#planExpiry(expires)
  }

  /** Ends the stream for `reason` (once); the stream's own close then releases the slot. */
  end (reason: CredentialEnd): void {
    const end = this.#end
    this.#end = undefined
    clearTimeout(this.#timer)
    end?.(reason)
  }

  /** Gives the slot back (the stream ended, or never started); later calls do nothing. */
  release (): void {
    if (this.#released) return
    this.#released = true
    this.#end = undefined
    clearTimeout(this.#timer)
    this.#registry.give(this)
  }

  #planExpiry (at: number): void {
    this.#timer = setTimeout(() => {
      if (Date.now() >= at) this.end('expired')
      else this.#planExpiry(at) // further away than one timer reaches
    }, Math.max(0, Math.min(at - Date.now(), MAX_TIMER_MS))).unref()
  }
}

/**
 * Every long-lived stream of one server (issue 36): the change feed's
 * (`/events`) and GraphQL subscriptions (`/graphql/stream`), and any stream
 * added later. Streams of every kind share one budget, per client and in all,
 * taken before a stream starts (so the refusal is an ordinary 429 or 503, not
 * an error inside a 200 stream) and given back when it ends; concurrent
 * requests cannot pass a limit between check and start. When the tokens file
 * is reloaded, every stream whose token is no longer accepted ends; a stream
 * held with a JWT ends when the JWT expires. Each kind ends its streams with
 * its own transport's last message.
 */
export class StreamRegistry {
  readonly #options: StreamRegistryOptions
  readonly #perClient = new Map<string, number>()
  readonly #perKind = new Map<string, number>()
  readonly #slots = new Set<StreamSlot>()
  /** Most streams of one kind (e.g. `graphql`), within `maxStreams`; a kind not named has no cap of its own. */
  readonly #kindCaps = new Map<string, number>()
  readonly #recheck = (): void => { this.#endRevoked() }

  constructor (options: StreamRegistryOptions) {
    this.#options = options
    options.authenticator?.tokenFile?.on('reloaded', this.#recheck)
  }

  /** The limits, for the refusals' wording. */
  get maxStreams (): number { return this.#options.maxStreams }
  get maxStreamsPerClient (): number { return this.#options.maxStreamsPerClient }
  maxOfKind (kind: string): number { return Math.min(this.#kindCaps.get(kind) ?? Infinity, this.#options.maxStreams) }

  /** Caps the streams of one kind within the shared budget (a service, as it registers: each stream of its kind costs more). */
  limitKind (kind: string, max: number): void {
    this.#kindCaps.set(kind, max)
  }

  /** Streams open (or reserved) now, in all or of one kind. */
  get open (): number { return this.#slots.size }
  openOfKind (kind: string): number { return this.#perKind.get(kind) ?? 0 }

  /**
   * Takes a slot for a stream of `kind` before it starts, or says which limit
   * refuses it (the client's first: it is the more specific).
   */
  reserve (kind: string, owner: StreamOwner): StreamSlot | StreamRefusal {
    const held = this.#perClient.get(owner.client) ?? 0
    if (held >= this.#options.maxStreamsPerClient) return 'client-full'
    if (this.#slots.size >= this.#options.maxStreams) return 'server-full'
    const ofKind = this.#perKind.get(kind) ?? 0
    if (ofKind >= (this.#kindCaps.get(kind) ?? Infinity)) return 'server-full'
    this.#perClient.set(owner.client, held + 1)
    this.#perKind.set(kind, ofKind + 1)
    const slot = new StreamSlot(this, kind, owner)
    this.#slots.add(slot)
    return slot
  }

  /** Called by StreamSlot.release. */
  give (slot: StreamSlot): void {
    if (!this.#slots.delete(slot)) return
    decrement(this.#perClient, slot.owner.client)
    decrement(this.#perKind, slot.kind)
  }

  /** After a reload of the tokens file: every stream whose token is no longer accepted (removed, or its scopes changed) ends. */
  #endRevoked (): void {
    const authenticator = this.#options.authenticator
    if (authenticator === undefined) return
    const ended: Record<string, number> = {}
    for (const slot of [...this.#slots]) {
      const { principal } = slot.owner
      if (principal === undefined || authenticator.stillValid(principal)) continue
      slot.end('revoked')
      ended[slot.kind] = (ended[slot.kind] ?? 0) + 1
    }
    if (Object.keys(ended).length > 0) this.#options.log?.info({ streams: ended }, 'streams ended, their token was withdrawn')
  }

  /** Stops listening for reloads (the server closes; its streams end on their own). */
  close (): void {
    this.#options.authenticator?.tokenFile?.off('reloaded', this.#recheck)
    for (const slot of [...this.#slots]) slot.release()
  }
}

function decrement (counts: Map<string, number>, key: string): void {
  const n = counts.get(key)
  if (n === undefined) return
  if (n <= 1) counts.delete(key)
  else counts.set(key, n - 1)
}
