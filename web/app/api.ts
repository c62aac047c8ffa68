import { parseExact } from './exact-json.js'
import { toProblem, type Problem } from './problem.js'

export interface ApiResult {
  status: number
  ok: boolean
  headers: Headers
  /** The parsed JSON body, when there is one (a failure's too: a batch's names the request that failed). */
  body?: unknown
  problem?: Problem
}

export interface AuthChallenge {
  /** A token was sent and refused (RFC 6750 error="invalid_token"), rather than missing. */
  rejected: boolean
}

/** What every request needs to know about the page, read at the time of the request. */
export interface ApiContext {
  acceptLanguage: () => string
  token: () => string | undefined
  /** A 401 with a Bearer challenge: the page asks for a token. */
  onAuthRequired: (challenge: AuthChallenge) => void
}

export interface RequestOptions {
  accept: string
  body?: unknown
  /** The ETag read before an edit: the write happens only if the record is still that version. */
  ifMatch?: string
  /** Keep integers beyond 2^53 exact (address ids). */
  exact?: boolean
  /** A write done once however often it is sent (a retry after the network failed). */
  idempotencyKey?: string
}

const NO_HEADERS = new Headers()

/** fetch, with the page's headers on every request and every failure turned into a Problem. */
export class Api {
  constructor (private readonly context: ApiContext) {}

  async request (method: string, url: string, opts: RequestOptions): Promise<ApiResult> {
    const headers = new Headers({ accept: opts.accept, 'accept-language': this.context.acceptLanguage() })
    const token = this.context.token()
    if (token !== undefined) headers.set('authorization', `Bearer ${token}`)
    if (opts.ifMatch !== undefined) headers.set('if-match', opts.ifMatch)
    if (opts.idempotencyKey !== undefined) headers.set('idempotency-key', opts.idempotencyKey)
    let body: string | undefined
    if (opts.body !== undefined) {
      headers.set('content-type', 'application/json')
      body = JSON.stringify(opts.body)
    }
    let res: Response
    try {
      res = await fetch(url, { method, headers, body, cache: 'no-store' })
    } catch {
      return { status: 0, ok: false, headers: NO_HEADERS, problem: { status: 0, errors: [], network: true } }
    }
    const text = await res.text().catch(() => '')
    let parsed: unknown
    if (text !== '' && /json/i.test(res.headers.get('content-type') ?? '')) {
      try { parsed = opts.exact === true ? parseExact(text) : JSON.parse(text) } catch { parsed = undefined }
    }
    if (res.ok) return { status: res.status, ok: true, headers: res.headers, body: parsed }
    const challenge = res.headers.get('www-authenticate') ?? ''
    if (res.status === 401 && /^\s*bearer\b/i.test(challenge)) {
      this.context.onAuthRequired({ rejected: /error="?invalid_token/i.test(challenge) })
    }
    return { status: res.status, ok: false, headers: res.headers, body: parsed, problem: toProblem(res.status, parsed, res.headers) }
  }

  /** A GET whose body the caller reads as it arrives (an export); undefined when the network failed. */
  async stream (url: string, accept: string): Promise<Response | undefined> {
    const headers = new Headers({ accept, 'accept-language': this.context.acceptLanguage() })
    const token = this.context.token()
    if (token !== undefined) headers.set('authorization', `Bearer ${token}`)
    try { return await fetch(url, { headers, cache: 'no-store' }) } catch { return undefined }
  }
}
