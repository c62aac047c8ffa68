import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'

/** One request a receiver got. */
export interface Received {
  headers: IncomingHttpHeaders
  body: string
  /** ms since the epoch when it arrived. */
  at: number
  /** What the receiver answered. */
  status: number
}

/**
 * A webhook receiver on loopback: keeps every request, and answers with the
 * next status of `script` (then 200). Its own signature check follows the
 * Standard Webhooks text, independent of the server's code.
 */
export class Receiver {
  readonly received: Received[] = []
  readonly #server: Server
  #script: number[] = []
  #port = 0
  #delayMs = 0
  /** Requests still to hold (answered only at `releaseHeld`), and the answers held. */
  #toHold = 0
  #held: Array<() => void> = []
  #open = 0
  #inFlight = 0
  /** Connections opened so far, the most open at once, and the most requests waiting for their answer at once. */
  readonly peaks = { connections: 0, openConnections: 0, inFlight: 0 }

  constructor () {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = []
      this.peaks.inFlight = Math.max(this.peaks.inFlight, ++this.#inFlight)
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const status = this.#script.shift() ?? 200
        this.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now(), status })
        const answer = (): void => {
          this.#inFlight--
          res.statusCode = status
          res.end('ok')
        }
        if (this.#toHold > 0) { this.#toHold--; this.#held.push(answer) } else if (this.#delayMs === 0) answer()
        else setTimeout(answer, Math.random() * this.#delayMs)
      })
    })
    this.#server.on('connection', (socket) => {
      this.peaks.connections++
      this.peaks.openConnections = Math.max(this.peaks.openConnections, ++this.#open)
      socket.on('close', () => { this.#open-- })
    })
  }

  /** Answers after a random wait of up to `ms`, so that attempts overlap and finish out of order. */
  answerSlowly (ms: number): void {
    this.#delayMs = ms
  }

  async listen (): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve))
    const address = this.#server.address()
    if (address === null || typeof address === 'string') throw new Error('no port')
    this.#port = address.port
    return this
  }

  get url (): string {
    return `http://127.0.0.1:${this.#port}/hook`
  }

  /** Holds the answers of the next `n` requests until `releaseHeld`. */
  holdNext (n = 1): void {
    this.#toHold += n
  }

  /** Answers the held requests. */
  releaseHeld (): void {
    for (const answer of this.#held.splice(0)) answer()
  }

  /** The statuses of the next answers. */
  answer (...statuses: number[]): void {
    this.#script.push(...statuses)
  }

  /** 200 from now on. */
  answerNormally (): void {
    this.#script = []
  }

  /** The ones answered 2xx: delivered. */
  delivered (): Received[] {
    return this.received.filter((r) => r.status < 300)
  }

  /** The bodies of the received requests, parsed. */
  events (): Array<{ type: string, seq: number, data: { id: unknown, record: unknown } }> {
    return this.received.map((r) => JSON.parse(r.body))
  }

  async close (): Promise<void> {
    this.#server.closeAllConnections()
    await new Promise<void>((resolve) => this.#server.close(() => { resolve() }))
  }
}

/** True when one of the `v1,` signatures of a request is the HMAC of id.timestamp.body with `secret`. */
export function validSignature (secret: string, r: Received): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
  const expected = createHmac('sha256', key).update(`${String(r.headers['webhook-id'])}.${String(r.headers['webhook-timestamp'])}.${r.body}`).digest()
  return String(r.headers['webhook-signature']).split(' ').some((s) => {
    const [version, sig] = s.split(',')
    const given = Buffer.from(sig ?? '', 'base64')
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected)
  })
}

/** Waits until `check` holds, polling (a webhook arrives a little after the write). */
export async function eventually (check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
