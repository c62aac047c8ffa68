import type { RateLimit } from '../../config/security.js'

/** Addresses remembered at most; past it the oldest window is dropped (an attacker with many addresses cannot grow it). */
const MAX_ADDRESSES = 10_000

interface Window {
  failures: number
  endsAt: number
}

/**
 * A budget of refused credentials per client address (`--auth-failure-limit`,
 * 30 a minute by default): each refused token counts, on every route,
 * /metrics included, with or without --rate-limit. Once the budget is spent,
 * requests from that address that carry credentials are refused (429) before
 * their credentials are checked, until the window ends, so guessing tokens
 * is throttled and learns nothing meanwhile. Kept in this process (each
 * instance counts for itself), in fixed windows.
 */
export class AuthFailureBudget {
  readonly #windows = new Map<string, Window>()

  constructor (readonly limit: RateLimit, readonly now: () => number = Date.now) {}

  /** Seconds until the address may try again, or 0 while it still has budget. */
  retryAfter (address: string): number {
    const window = this.#windows.get(address)
    if (window === undefined || window.failures < this.limit.max) return 0
    const left = window.endsAt - this.now()
    if (left > 0) return Math.ceil(left / 1000)
    this.#windows.delete(address)
    return 0
  }

  /** Counts one refused credential of the address. */
  fail (address: string): void {
    const now = this.now()
    const window = this.#windows.get(address)
    if (window !== undefined && window.endsAt > now) {
      window.failures++
      return
    }
    if (window !== undefined) this.#windows.delete(address)
    else if (this.#windows.size >= MAX_ADDRESSES) this.#forgetOldest(now)
    this.#windows.set(address, { failures: 1, endsAt: now + this.limit.windowMs })
  }

  /** Drops ended windows, or, when none has ended, the oldest (Maps keep insertion order). */
  #forgetOldest (now: number): void {
    for (const [address, window] of this.#windows) if (window.endsAt <= now) this.#windows.delete(address)
    if (this.#windows.size < MAX_ADDRESSES) return
    const oldest = this.#windows.keys().next()
    if (oldest.done !== true) this.#windows.delete(oldest.value)
  }
}
