import { Progress } from './progress.js'
import { EXIT_FAILURE, EXIT_OK, UsageError, type CommandIO } from './common.js'

/**
 * `rqs export --url http://host:port`: the records of a running server, any
 * store (the memory store too), through its own API. The server's directory
 * (`GET /`) says where the collection is; the list is asked for as a stream
 * (`Accept: application/x-ndjson` or `text/csv`) with `--query` as its query
 * string, and written to stdout as it arrives, with back-pressure. The
 * server checks the query and the token (`--token` or RQS_TOKEN) as for any
 * client.
 */
export interface UrlExport {
  url: string
  service: string
  query: string
  format: 'ndjson' | 'csv'
  token?: string
  /** Follow a redirect to another origin (without the token); refused by default. */
  followRedirects?: boolean
}

/** Redirects followed at most, as fetch does. */
const MAX_REDIRECTS = 20

/** A redirect to another origin that --follow-redirects did not allow: the export stops naming it. */
class ForeignRedirect extends Error {}

const STREAM_TYPE = { ndjson: 'application/x-ndjson', csv: 'text/csv' } as const

export async function exportFromServer (options: UrlExport, io: CommandIO, output: { write: (text: string) => Promise<boolean> }): Promise<number> {
  const headers: Record<string, string> = options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }
  let base: URL
  try { base = new URL(options.url) } catch { throw new UsageError(`--url: "${options.url}" is not a URL (e.g. http://127.0.0.1:8080)`) }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new UsageError(`--url: "${options.url}" is not an http or https URL`)
  try {
    const directory = await get(new URL('/', base), { ...headers, accept: 'application/json' }, options.followRedirects === true)
    if (!directory.ok) return failed(io, `${options.url} answered ${directory.status} to GET /: ${await reason(directory)}`)
    const links = ((await directory.json()) as { links?: Record<string, { href?: string }> }).links ?? {}
    const href = Object.hasOwn(links, options.service) ? links[options.service]?.href : undefined
    if (href === undefined) return failed(io, `the server at ${options.url} serves no collection "${options.service}" (its directory lists ${Object.keys(links).join(', ')})`)
    const target = new URL(href, base)
    target.search = options.query
    if (io.stderr.isTTY === true && !target.searchParams.has('count')) target.searchParams.set('count', 'true')
    const res = await get(target, { ...headers, accept: STREAM_TYPE[options.format] }, options.followRedirects === true)
    if (!res.ok || res.body === null) return failed(io, `${target.pathname}${target.search} answered ${res.status}: ${await reason(res)}`)
    const total = res.headers.get('x-total-count')
    const progress = new Progress({ stream: io.stderr, command: 'rqs export', verb: 'exported', noun: options.service, total: total === null ? undefined : Number(total) })
    const decoder = new TextDecoder()
    let lines = 0
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      const text = decoder.decode(chunk, { stream: true })
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++
      if (!await output.write(text)) break // the reader went away (a closed pipe): stop quietly
      progress.update(options.format === 'csv' ? Math.max(0, lines - 1) : lines)
    }
    progress.done()
    return EXIT_OK
  } catch (err) {
    if (err instanceof ForeignRedirect) return failed(io, err.message)
    // fetch says "fetch failed"; why is in its cause (a refused connection, a bad port, a name not found).
    const cause = (err as { cause?: { code?: string, message?: string } }).cause
    const why = cause?.code === 'ECONNREFUSED' ? 'connection refused' : cause?.code === 'ENOTFOUND' ? 'no such host' : cause?.message ?? (err as Error).message
    return failed(io, `cannot reach ${options.url}: ${why}`)
  }
}

/**
 * GET `url`, following redirects within its origin. A redirect to another
 * origin would export another server's records under this one's name (issue
 * 36): refused, naming it, unless `follow`; followed, the token stays behind
 * (it is this server's).
 */
async function get (url: URL, headers: Record<string, string>, follow: boolean): Promise<Response> {
  const origin = url.origin
  let at = url
  let sent = headers
  for (let hops = 0; ; hops++) {
    const res = await fetch(at, { headers: sent, redirect: 'manual' })
    const location = res.headers.get('location')
    if (res.status < 300 || res.status > 399 || location === null) return res
    if (hops === MAX_REDIRECTS) throw new ForeignRedirect(`${url.href}: more than ${MAX_REDIRECTS} redirects`)
    await res.body?.cancel()
    const next = new URL(location, at)
    if (next.origin !== origin) {
      if (!follow) throw new ForeignRedirect(`${at.pathname}${at.search} redirects to another origin, ${next.origin} (${next.href}); not followed (--follow-redirects follows it)`)
      const { authorization: _token, ...rest } = sent
      sent = rest
    }
    at = next
  }
}

function failed (io: CommandIO, message: string): number {
  io.stderr.write(`rqs export: ${message}\n`)
  return EXIT_FAILURE
}

/** A problem's detail (or the v1 envelope's message), else the status text. */
async function reason (res: Response): Promise<string> {
  const text = await res.text()
  try {
    const body = JSON.parse(text) as { detail?: string, title?: string, body?: unknown }
    if (typeof body.detail === 'string') return body.detail
    if (typeof body.body === 'string') return body.body
    if (typeof body.title === 'string') return body.title
  } catch { // not JSON: the status text says it
  }
  return res.statusText
}
