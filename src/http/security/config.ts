import { isIP } from 'node:net'
import { ConfigError } from '../../config.js'

/**
 * Options of the security and operations features (issue 11). Every one is
 * off by default, so a server started without them behaves, and performs,
 * exactly as the spec says: nothing here registers a per-request hook unless
 * its feature is switched on.
 */
export interface SecurityConfig {
  /** JSON file of hashed static tokens (`--auth-tokens`); see src/http/security/tokens.ts. */
  authTokensFile?: string
  /** JWKS URL of an identity provider (`--auth-jwks`); needs authIssuer and authAudience. */
  authJwksUrl?: string
  /** The `iss` every JWT must carry. */
  authIssuer?: string
  /** An `aud` every JWT must carry. */
  authAudience?: string
  /** Least time between two JWKS downloads caused by an unknown key id (rotation), in ms. No flag: tests shorten it. */
  authJwksCooldownMs: number
  /** Reads (GET, HEAD, GraphQL queries) pass without a token (`--auth-public-read`). */
  authPublicRead: boolean
  /** Origins allowed to call the API from a browser (`--cors-origin`): a list, `*`, or undefined for no CORS. */
  corsOrigins?: string[] | '*'
  /** Helmet's security headers and a Content-Security-Policy on every response (`--security-headers`). */
  securityHeaders: boolean
  /** Requests per client and window (`--rate-limit 600/min`); undefined for no limit. */
  rateLimit?: RateLimit
  /** Redis URL shared by every instance for the rate-limit counters (`--redis`). */
  redisUrl?: string
  /** Fastify's trustProxy (`--trust-proxy`): whether, or from which hops, X-Forwarded-For counts. */
  trustProxy: TrustProxy
  /** Answer 503 instead of queueing when the event loop or memory passes a limit (`--overload`). */
  overload: boolean
  /** Event-loop delay, in ms, beyond which the server is overloaded. */
  maxEventLoopDelayMs: number
  /** Heap used, in bytes, beyond which the server is overloaded; 0 for no limit. */
  maxHeapUsedBytes: number
  /** Resident set size, in bytes, beyond which the server is overloaded; 0 for no limit. */
  maxRssBytes: number
  /** How often the overload check samples the event loop and memory, in ms. No flag: tests shorten it. */
  overloadSampleIntervalMs: number
  /** `GET /metrics` in the Prometheus text format (`--metrics`). */
  metrics: boolean
  /** One log line per create, replace and delete (`--audit-log`). */
  auditLog: boolean
}

export interface RateLimit {
  /** Requests allowed per window. */
  max: number
  windowMs: number
}

/**
 * false: X-Forwarded-For is ignored; true: believed from any peer; a list:
 * believed from these proxy addresses / CIDR ranges (`loopback`, `uniquelocal`
 * and the other names of proxy-addr too). No hop counts: they cannot check
 * who sent the header, and Fastify refuses them.
 */
export type TrustProxy = boolean | string[]

export function defaultSecurityConfig (): SecurityConfig {
  return {
    authJwksCooldownMs: 30_000,
    authPublicRead: false,
    securityHeaders: false,
    trustProxy: false,
    overload: false,
    maxEventLoopDelayMs: 1000,
    maxHeapUsedBytes: 0,
    maxRssBytes: 0,
    overloadSampleIntervalMs: 1000,
    metrics: false,
    auditLog: false
  }
}

/** True when any kind of authentication is configured. */
export function authEnabled (config: SecurityConfig): boolean {
  return config.authTokensFile !== undefined || config.authJwksUrl !== undefined
}

const UNITS: Record<string, number> = {
  s: 1000, sec: 1000, second: 1000,
  m: 60_000, min: 60_000, minute: 60_000,
  h: 3_600_000, hour: 3_600_000,
  d: 86_400_000, day: 86_400_000
}

/** `600/min`, `10/s`, `1000/hour`, `100/15min`. */
export function parseRateLimit (raw: string, name: string): RateLimit {
  const m = /^\s*(\d+)\s*\/\s*(\d*)\s*([a-z]+)\s*$/i.exec(raw)
  const unit = m === null ? undefined : UNITS[(m[3] as string).toLowerCase()]
  if (m === null || unit === undefined) throw new ConfigError(`${name} must be REQUESTS/WINDOW such as 600/min, 10/s or 100/15min, got "${raw}"`)
  const max = Number(m[1])
  const windowMs = (m[2] === '' ? 1 : Number(m[2])) * unit
  if (max < 1 || windowMs < 1 || !Number.isSafeInteger(max) || !Number.isSafeInteger(windowMs)) throw new ConfigError(`${name} must allow at least 1 request in a window of at least 1 unit, got "${raw}"`)
  return { max, windowMs }
}

/** `*` or a comma-separated list of origins such as `https://a.example,http://localhost:3000`. */
export function parseCorsOrigins (raw: string, name: string): string[] | '*' {
  if (raw.trim() === '*') return '*'
  const origins = raw.split(',').map((o) => o.trim()).filter((o) => o !== '')
  if (origins.length === 0) throw new ConfigError(`${name} must be * or a list of origins, got "${raw}"`)
  for (const origin of origins) {
    let url: URL | undefined
    try { url = new URL(origin) } catch { url = undefined }
    // An origin is scheme://host[:port] and nothing else: browsers send exactly that in Origin.
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin) {
      throw new ConfigError(`${name}: "${origin}" is not an origin such as https://app.example or http://localhost:3000 (no path, no trailing slash)`)
    }
  }
  return origins
}

const PROXY_ADDR_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

/** `true`/`false`, or a comma-separated list of proxy addresses and CIDR ranges. */
export function parseTrustProxy (raw: string, name: string): TrustProxy {
  const v = raw.trim().toLowerCase()
  if (['true', 'yes', 'on'].includes(v)) return true
  if (['false', 'no', 'off', ''].includes(v)) return false
  const list = v.split(',').map((p) => p.trim()).filter((p) => p !== '')
  if (list.every((p) => PROXY_ADDR_NAMES.has(p) || (isIP(p.split('/')[0] ?? '') !== 0 && /^[^/]+(\/\d{1,3})?$/.test(p)))) return list
  throw new ConfigError(`${name} must be true, false, or the proxies' addresses / CIDR ranges such as 10.0.0.0/8,loopback, got "${raw}"`)
}

export function parseHttpUrl (raw: string, name: string, protocols: readonly string[] = ['http:', 'https:']): string {
  let url: URL
  try { url = new URL(raw) } catch { throw new ConfigError(`${name} must be a URL, got "${raw}"`) }
  if (!protocols.includes(url.protocol)) throw new ConfigError(`${name} must be a ${protocols.map((p) => p.slice(0, -1)).join(' or ')} URL, got "${raw}"`)
  return raw
}

/** Checks what single options cannot: combinations. Throws ConfigError. */
export function checkSecurityConfig (config: SecurityConfig): void {
  const jwt = [config.authJwksUrl, config.authIssuer, config.authAudience]
  if (jwt.some((v) => v !== undefined) && jwt.some((v) => v === undefined)) {
    throw new ConfigError('--auth-jwks, --auth-issuer and --auth-audience go together: give all three to accept JWTs')
  }
  if (config.authPublicRead && !authEnabled(config)) {
    throw new ConfigError('--auth-public-read needs --auth-tokens or --auth-jwks (without them every request is public anyway)')
  }
  if (config.redisUrl !== undefined && config.rateLimit === undefined) {
    throw new ConfigError('--redis holds the rate-limit counters: it needs --rate-limit')
  }
}
