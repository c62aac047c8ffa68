import { isIP } from 'node:net'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { hostForm } from '../../config/security.js'
import type { Reject } from './reject.js'
import { addStartStep, type RequestStart } from '../routes/index.js'

/** The names a loopback server always answers to (besides IP addresses, see HostAllowList). */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]']
/** The longest Host value quoted back in a refusal. */
const MAX_QUOTED = 100
/** Host values remembered as answered, so the usual ones cost one lookup; bounded, as clients choose them. */
const MAX_REMEMBERED = 64

/**
 * Which Host header values the server answers (DNS-rebinding protection):
 * the listed names, with any port or none, and every IP address. A rebinding
 * attack needs a name (the attacker's, resolved to this server's address), so
 * an IP address in Host is never one; accepting them keeps health probes and
 * load balancers that address the server by IP working.
 */
export class HostAllowList {
  readonly #names: ReadonlySet<string>
  /** Host header values already found allowed, as sent (`localhost:8080`), so the usual ones are not parsed again. */
  readonly #answered = new Set<string>()
  /** The last one: most requests repeat it, and comparing costs less than hashing. */
  #last: string | undefined

  /** `names` are host names or IP addresses, `[::1]` for IPv6, lower case, without port. */
  constructor (names: Iterable<string>) {
    this.#names = new Set(names)
  }

  get names (): string[] {
    return [...this.#names]
  }

  /**
   * True when the server answers to this Host header. A request without one
   * (HTTP/1.0) passes: a browser always sends it, so it cannot be a rebinding.
   */
  allows (host: string | undefined): boolean {
    if (host === undefined || host === this.#last) return true
    if (this.#answered.has(host)) {
      this.#last = host
      return true
    }
    const name = withoutPort(host).toLowerCase()
    const allowed = this.#names.has(name) || isIP(name.startsWith('[') ? name.slice(1, -1) : name) !== 0
    if (allowed && this.#answered.size < MAX_REMEMBERED) this.#answered.add(host)
    return allowed
  }
}

/** `example.com:8080` → `example.com`, `[::1]:8080` → `[::1]`. */
function withoutPort (host: string): string {
  const colon = host.lastIndexOf(':')
  return colon === -1 || host.endsWith(']') ? host : host.slice(0, colon)
}

/** True for addresses and names that only reach this machine. */
export function isLoopback (bind: string): boolean {
  const name = bind.toLowerCase()
  return name === 'localhost' || name === '::1' || (isIP(name) === 4 && name.startsWith('127.'))
}

/**
 * The hosts the server answers to, or undefined for any (no check at all).
 * `--allowed-hosts *` allows any. Otherwise the loopback names, the address
 * or name the server listens on and the host of --public-url are always
 * allowed, and the names of `--allowed-hosts` on top. Without
 * `--allowed-hosts`, a server listening beyond loopback (0.0.0.0) allows any
 * host unless --public-url says which name clients use: it is reached by
 * names it cannot know (its addresses, a service name, a load balancer's).
 */
export function allowedHosts (listed: string[] | '*' | undefined, bind: string, publicUrl: string | undefined): HostAllowList | undefined {
  if (listed === '*') return undefined
  if (listed === undefined && !isLoopback(bind) && publicUrl === undefined) return undefined
  const names = new Set([...LOOPBACK_NAMES, hostForm(bind), ...(listed ?? [])])
  if (publicUrl !== undefined) names.add(new URL(publicUrl).hostname.toLowerCase())
  return new HostAllowList(names)
}

export interface HostsPluginOptions {
  hosts: HostAllowList
  reject: Reject
  /** The server's one hook of synchronous start steps; without it, a hook of its own. */
  start?: RequestStart
}

/**
 * Refuses requests whose Host the server does not answer to (DNS rebinding:
 * a page of evil.example whose name now resolves to 127.0.0.1 would
 * otherwise drive this server from the victim's browser). The first check of
 * every request, matched or not: 421 Misdirected Request in the shape of the
 * path's service. A request with two Host lines is refused first (400,
 * whichever comes first: which one counts would be anyone's guess). A request target in absolute form (`GET http://host/path`)
 * names the host itself, which RFC 9112 (§3.2.2) puts before the Host
 * header: its authority is checked too.
 */
async function hostsPlugin (app: FastifyInstance, { hosts, reject, start }: HostsPluginOptions): Promise<void> {
  addStartStep(app, start, function checkHost (request, reply) {
    const lines = hostLines(request.raw.rawHeaders)
    if (lines > 1) {
      reject(request, reply, 'CLIENT_ERROR', { detail: `The request has ${lines} Host header lines; HTTP/1.1 allows exactly one (RFC 9112, section 3.2)` })
      return false
    }
    const host = request.headers.host
    const authority = targetAuthority(request.raw.url)
    const refused = host !== undefined && !hosts.allows(host) ? host : authority !== undefined && !hosts.allows(authority) ? authority : undefined
    if (refused === undefined) return true
    const quoted = JSON.stringify(refused.length > MAX_QUOTED ? `${refused.slice(0, MAX_QUOTED)}…` : refused)
    reject(request, reply, 'HOST_NOT_ALLOWED', {
      detail: `This server does not answer to the host ${quoted}; an operator can allow it with --allowed-hosts`
    })
    return false
  })
}

/** The host[:port] of an absolute-form request target (`http://host:port/path`); undefined for the usual origin form (`/path`). */
export function targetAuthority (target: string | undefined): string | undefined {
  if (target === undefined || target.startsWith('/') || target === '*') return undefined
  try {
    return new URL(target).host
  } catch {
    return '' // no URL either: an authority nobody is allowed
  }
}

export const hostCheck = fp(hostsPlugin, { name: 'rqs-host-check', fastify: '5.x' })

/**
 * RFC 9112 §3.2: a request with more than one Host field line is answered
 * 400. Node keeps only the first in `headers.host` (a proxy or log behind
 * this server may read another), so the raw lines are counted.
 */
function hostLines (raw: readonly string[]): number {
  let lines = 0
  for (let i = 0; i < raw.length; i += 2) if ((raw[i] as string).length === 4 && (raw[i] as string).toLowerCase() === 'host') lines++
  return lines
}
