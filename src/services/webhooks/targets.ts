import { lookup as dnsLookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'
import { onFirstUse } from '../../lib/first-use.js'

/**
 * Where webhooks may be sent (issue 34, "safe targets"): http and https URLs
 * whose host resolves to public addresses only. Loopback, private, shared
 * (CGNAT), link-local (the cloud metadata services' 169.254.169.254 among
 * them), unique-local, multicast and reserved addresses are refused, at
 * registration and again before each attempt, after resolving the name; the
 * attempt then connects to the address checked (./send.ts pins it), so a
 * name that resolves elsewhere a moment later (DNS rebinding) gains nothing.
 * `--webhook-allow-hosts` lists names or addresses exempt from the address
 * rule (receivers on this machine, in tests, on a private network).
 */

/** The ranges refused, made with the first address checked: a start that sends no webhook needs none (each range is a SocketAddress made by Node). */
const blocked = onFirstUse((): BlockList => {
  const ranges = new BlockList()
  for (const [net, prefix] of [
    ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
    ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
    ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4]
  ] as const) ranges.addSubnet(net, prefix, 'ipv4')
  for (const [net, prefix] of [
    ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001:db8::', 32], ['2002::', 16],
    ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8]
  ] as const) ranges.addSubnet(net, prefix, 'ipv6')
  return ranges
})

/** Why a URL or its address is not a webhook target; the message is the problem's detail. */
export class TargetRefused extends Error {
  override name = 'TargetRefused'
}

/** An address the attempt connects to. */
export interface ResolvedTarget {
  address: string
  family: 4 | 6
}

export type Lookup = (host: string) => Promise<ResolvedTarget[]>

const systemLookup: Lookup = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))

/** The host of a URL as a name or a bare address (`[::1]` → `::1`), lower case. */
export function hostOf (url: URL): string {
  const host = url.hostname.toLowerCase()
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
}

/** The URL of a webhook, checked for what it says (scheme, credentials); its addresses are checked by `resolveTarget`. */
export function parseTarget (text: string): URL {
  let url: URL
  try { url = new URL(text) } catch { throw new TargetRefused(`url: "${text.slice(0, 80)}" is not an absolute URL`) }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TargetRefused(`url: only http and https URLs are delivered to, not ${url.protocol.slice(0, 20)}`)
  if (url.username !== '' || url.password !== '') throw new TargetRefused('url: a user name or password in the URL is not accepted (the signature authenticates rqs to the receiver)')
  return url
}

/** True when an address is none of the blocked ranges (IPv4-mapped IPv6 addresses are checked as IPv4). */
export function isPublicAddress (address: string): boolean {
  const family = isIP(address)
  if (family === 4) return !blocked().check(address, 'ipv4')
  if (family !== 6) return false
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped !== null) return !blocked().check(mapped[1] as string, 'ipv4')
  return !blocked().check(address, 'ipv6')
}

/**
 * The address to connect to for a URL: its host's first address, after
 * checking that every address it resolves to is public, unless the host (or
 * that address) is allowed. Throws TargetRefused.
 */
export async function resolveTarget (url: URL, allowHosts: ReadonlySet<string>, lookup: Lookup = systemLookup): Promise<ResolvedTarget> {
  const host = hostOf(url)
  const family = isIP(host)
  let addresses: ResolvedTarget[]
  if (family !== 0) addresses = [{ address: host, family: family === 6 ? 6 : 4 }]
  else {
    try { addresses = await lookup(host) } catch (err) {
      throw new TargetRefused(`url: the host ${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`)
    }
    if (addresses.length === 0) throw new TargetRefused(`url: the host ${host} has no address`)
  }
  const first = addresses[0] as ResolvedTarget
  if (allowHosts.has(host)) return first
  for (const a of addresses) {
    if (!allowHosts.has(a.address.toLowerCase()) && !isPublicAddress(a.address)) {
      throw new TargetRefused(`url: ${host === a.address ? 'the address' : `the host ${host} resolves to`} ${a.address}, a loopback, private, link-local or reserved address; webhooks are sent there only when the server allows it (--webhook-allow-hosts)`)
    }
  }
  return first
}

/** How long a host's resolved addresses are reused by the attempts: short, so a moved receiver is followed soon. */
export const RESOLVE_TTL_MS = 10_000
/** Hosts remembered at most; past it, the oldest is forgotten (webhooks are few, their hosts fewer). */
const RESOLVE_CACHE_HOSTS = 1_000

/**
 * A lookup that answers a host's addresses from memory for `ttlMs` after
 * resolving it, so a burst of attempts to one receiver resolves its name
 * once rather than per attempt. Only the answer is kept: `resolveTarget`
 * still checks every address on each attempt, and an answer that changed
 * (a public address before, a private one now) is checked as it is once
 * the old one expired. Failures are not kept: the next attempt asks again.
 * Lookups of one host under way at once share one resolution.
 */
export function cachedLookup (lookup: Lookup = systemLookup, ttlMs = RESOLVE_TTL_MS, now: () => number = Date.now): Lookup {
  const cache = new Map<string, { until: number, addresses: Promise<ResolvedTarget[]> }>()
  return async (host) => {
    const t = now()
    const hit = cache.get(host)
    if (hit !== undefined && hit.until > t) return await hit.addresses
    cache.delete(host)
    if (cache.size >= RESOLVE_CACHE_HOSTS) cache.delete(cache.keys().next().value as string)
    const addresses = lookup(host)
    const entry = { until: t + ttlMs, addresses }
    cache.set(host, entry)
    try {
      return await addresses
    } catch (err) {
      if (cache.get(host) === entry) cache.delete(host)
      throw err
    }
  }
}
