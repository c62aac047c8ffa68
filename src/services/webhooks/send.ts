import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http'
import { request as httpsRequest } from 'node:https'
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
 * POSTs `body` to `url`, connecting to `target` (TLS still checks the URL's
 * host name). Redirects are not followed (a 3xx is a failure like any non-2xx);
 * the answer is read up to ANSWER_LIMIT and discarded; the whole attempt,
 * connection to last byte, has `timeoutMs`. Never throws.
 */
export async function post (url: URL, target: ResolvedTarget, headers: Record<string, string>, body: string, timeoutMs: number): Promise<AttemptResult> {
  const started = performance.now()
  const done = (status: number | null, error: string | null): AttemptResult => ({ status, error, durationMs: performance.now() - started })
  const payload = Buffer.from(body, 'utf8')
  const options: RequestOptions = {
    method: 'POST',
    lookup: pinned(target),
    headers: { ...headers, 'content-type': 'application/json', 'content-length': String(payload.length), 'user-agent': 'rqs-webhooks' },
    // A fresh connection per attempt: a kept-alive one could outlive the address check.
    agent: false
  }
  return await new Promise<AttemptResult>((resolve) => {
    let settled = false
    let req: ClientRequest | undefined
    const finish = (result: AttemptResult): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      req?.destroy()
      resolve(result)
    }
    const timer = setTimeout(() => { finish(done(null, `no answer within ${timeoutMs} ms`)) }, timeoutMs)
    // The answer is read (up to the limit) only to know it ended; its bytes are dropped.
    const onAnswer = (res: IncomingMessage): void => {
      let read = 0
      res.on('data', (chunk: Buffer) => {
        read += chunk.length
        if (read >= ANSWER_LIMIT) finish(done(res.statusCode ?? null, null))
      })
      res.on('end', () => { finish(done(res.statusCode ?? null, null)) })
      res.on('error', () => { finish(done(res.statusCode ?? null, null)) })
    }
    try {
      req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options, onAnswer)
    } catch (err) {
      // Refused before sending (a URL or header Node will not send).
      finish(done(null, (err as NodeJS.ErrnoException).code ?? (err as Error).message))
      return
    }
    req.on('error', (err: NodeJS.ErrnoException) => { finish(done(null, err.code ?? err.message)) })
    req.end(payload)
  })
}
