/**
 * A webhook receiver on loopback, in the runner's process (the load core):
 * answers every delivery 204 at once (or, while held, once released) and
 * keeps, per event, the time from the change (`data.at`, stamped when the
 * write was stored) to its answer: a delivery arrives when it is answered.
 * Signatures are not verified: that is the receiver's cost, not rqs's.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Receiver {
  url: string
  /** Deliveries received so far. */
  count: () => number
  /** Change → arrival times (ms) of the deliveries received since `mark`. */
  latenciesSince: (mark: number) => number[]
  /** When the delivery numbered `n` (1-based) arrived, as performance.now(). */
  arrivalOf: (n: number) => number
  /** Resolves once `n` deliveries have arrived, or fails after `timeoutMs`. */
  waitFor: (n: number, timeoutMs: number) => Promise<void>
  /**
   * Answers nothing until `release`: the dispatcher's few attempts in flight
   * wait, and with them its next claims, so the server does no delivery work
   * meanwhile (what the row uses to price writes alone).
   */
  hold: () => void
  /** Answers the held deliveries and every next one at once. */
  release: () => void
  /** Deliveries held, not yet answered. */
  waiting: () => number
  close: () => Promise<void>
}

export async function startReceiver (): Promise<Receiver> {
  const latencies: number[] = []
  const arrivals: number[] = []
  const waiters = new Set<() => void>()
  let held: Array<() => void> | undefined
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const answer = (): void => {
        const now = Date.now()
        arrivals.push(performance.now())
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { at?: string } }
        const at = Date.parse(event.data?.at ?? '')
        latencies.push(Number.isFinite(at) ? now - at : Number.NaN)
        res.statusCode = 204
        res.end()
        for (const w of waiters) w()
      }
      if (held === undefined) answer()
      else held.push(answer)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hook`,
    count: () => arrivals.length,
    latenciesSince: (mark) => latencies.slice(mark),
    arrivalOf: (n) => arrivals[n - 1] ?? Number.NaN,
    waitFor: async (n, timeoutMs) => {
      if (arrivals.length >= n) return
      await new Promise<void>((resolve, reject) => {
        const check = (): void => { if (arrivals.length >= n) { clearTimeout(timer); waiters.delete(check); resolve() } }
        const timer = setTimeout(() => { waiters.delete(check); reject(new Error(`the receiver got ${arrivals.length} deliveries within ${timeoutMs} ms, expected ${n}`)) }, timeoutMs)
        waiters.add(check)
      })
    },
    hold: () => { held ??= [] },
    waiting: () => held?.length ?? 0,
    release: () => {
      const answers = held ?? []
      held = undefined
      for (const answer of answers) answer()
    },
    close: async () => { server.closeAllConnections(); await new Promise<void>((resolve) => server.close(() => resolve())) }
  }
}
