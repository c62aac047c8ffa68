/** Why a new stream is refused: this client holds its share, or the server holds all it serves. */
export type StreamRefusal = 'client-full' | 'server-full'

/**
 * Counts open streams per client and in all (issue 19). A stream holds its
 * connection for as long as it lasts, so without these one client could
 * take every connection the server accepts. A slot is taken before the
 * stream starts (before the store is read) and given back when it ends, so
 * concurrent requests cannot pass the limit between check and start.
 */
export class StreamLimits {
  readonly #perClient = new Map<string, number>()
  readonly #max: number
  readonly #maxPerClient: number
  #open = 0

  /** `max`, `maxPerClient`: Infinity for no limit. */
  constructor (max: number, maxPerClient: number) {
    this.#max = max
    this.#maxPerClient = maxPerClient
  }

  get open (): number {
    return this.#open
  }

  /** Takes a slot for `client`, or says which limit refuses it (the client's first: it is the more specific). */
  take (client: string): StreamRefusal | undefined {
    const held = this.#perClient.get(client) ?? 0
    if (held >= this.#maxPerClient) return 'client-full'
    if (this.#open >= this.#max) return 'server-full'
    this.#perClient.set(client, held + 1)
    this.#open++
    return undefined
  }

  /** Gives back a slot `take` gave `client`. */
  give (client: string): void {
    const held = this.#perClient.get(client)
    if (held === undefined) return
    if (held <= 1) this.#perClient.delete(client)
    else this.#perClient.set(client, held - 1)
    this.#open--
  }
}
