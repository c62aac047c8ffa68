import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'
import type { ResolvedTarget } from './targets.js'

/** What one POST to a receiver did. */
export interface AttemptResult {
  /** The receiver's status; null when no answer came. */
  status: number | null
  /** Why no answer came (timeout, refused connection, …), or a short note on the answer. */
  error: string | null
  durationMs: number
}

/** Bytes of an answer read before the connection is dropped: receivers are not expected to say much. */
export const ANSWER_LIMIT = 64 * 1024

/** A DNS lookup that always answers the address checked beforehand (no second resolution, no rebinding). */
function pinned (target: ResolvedTarget): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all === true) (callback as (err: null, addresses: Array<{ address: string, family: number }>) => void)(null, [{ address: target.address, family: target.family }])
    else callback(null, target.address, target.family)
  }
}

/**
 * Kept-alive connections to the receivers: one pool per origin and address
 * checked, so a connection is reused only while the receiver's host still
 * resolves to the address it was opened to (a new address, after the check
 * of each attempt, gets a new pool). `maxSockets` bounds the connections to
 * one receiver: the dispatcher's concurrency per webhook.
 */
export class Connections {
  readonly #agents = new Map<string, HttpAgent>()
  readonly #maxSockets: number

  constructor (maxSockets: number) {
    this.#maxSockets = maxSockets
  }

  agentFor (url: URL, target: ResolvedTarget): HttpAgent {
    const key = `${url.protocol}//${url.host} ${target.address}`
    let agent = this.#agents.get(key)
    if (agent === undefined) {
      const options = { keepAlive: true, maxSockets: this.#maxSockets, maxFreeSockets: this.#maxSockets, scheduling: 'lifo' as const }
      agent = url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options)
      this.#agents.set(key, agent)
    }
    return agent
  }

  /** Closes every connection (the server stops). */
  close (): void {
    for (const agent of this.#agents.values()) agent.destroy()
    this.#agents.clear()
  }
}

/**
 * POSTs `body` to `url`, connecting to `target` (TLS still checks the URL's
 * host name), on a kept-alive connection of `agent` when given, else on a
 * fresh one. Redirects are not followed (a 3xx is a failure like any non-2xx);
 * the answer is read up to ANSWER_LIMIT and discarded; the whole attempt,
 * connection to last byte, has `timeoutMs`. Never throws.
 */
export async function post (url: URL, target: ResolvedTarget, headers: Record<string, string>, body: string, timeoutMs: number, agent?: HttpAgent): Promise<AttemptResult> {
  const started = performance.now()
  const first = await postOnce(url, target, headers, body, timeoutMs, agent)
  // A kept-alive connection the receiver closed as it was reused: the request never reached it; once more, on a new one.
  if (!first.staleConnection) return first.result
  return (await postOnce(url, target, headers, body, timeoutMs, agent, started)).result
}

async function postOnce (url: URL, target: ResolvedTarget, headers: Record<string, string>, body: string, timeoutMs: number, agent: HttpAgent | undefined, started = performance.now()): Promise<{ result: AttemptResult, staleConnection: boolean }> {
  const done = (status: number | null, error: string | null): AttemptResult => ({ status, error, durationMs: performance.now() - started })
  const payload = Buffer.from(body, 'utf8')
  const options: RequestOptions = {
    method: 'POST',
    lookup: pinned(target),
    headers: { ...headers, 'content-type': 'application/json', 'content-length': String(payload.length), 'user-agent': 'rqs-webhooks' },
    agent: agent ?? false
  }
  return await new Promise((resolve) => {
    let settled = false
    let req: ClientRequest | undefined
    let answered = false
    const finish = (result: AttemptResult, staleConnection = false): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      // A connection whose answer was read whole goes back to the pool; any other is closed.
      if (!answered) req?.destroy()
      resolve({ result, staleConnection })
    }
    const timer = setTimeout(() => { finish(done(null, `no answer within ${timeoutMs} ms`)) }, Math.max(1, timeoutMs - (performance.now() - started)))
    // The answer is read (up to the limit) only to know it ended; its bytes are dropped.
    const onAnswer = (res: IncomingMessage): void => {
      let read = 0
      res.on('data', (chunk: Buffer) => {
        read += chunk.length
        if (read >= ANSWER_LIMIT) finish(done(res.statusCode ?? null, null))
      })
      res.on('end', () => { answered = true; finish(done(res.statusCode ?? null, null)) })
      res.on('error', () => { finish(done(res.statusCode ?? null, null)) })
    }
    try {
      req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options, onAnswer)
    } catch (err) {
      // Refused before sending (a URL or header Node will not send).
      finish(done(null, (err as NodeJS.ErrnoException).code ?? (err as Error).message))
      return
    }
    req.on('error', (err: NodeJS.ErrnoException) => { finish(done(null, err.code ?? err.message), req?.reusedSocket === true && err.code === 'ECONNRESET') })
    req.end(payload)
  })
}
