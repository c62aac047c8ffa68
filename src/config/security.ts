import { isIP } from 'node:net'
import { Type, type Static } from '@sinclair/typebox'
import { ConfigError } from './errors.js'
import { option, type Reader } from './option.js'
import { duration, host, size } from './readers.js'

/** Requests allowed per window (`--rate-limit 600/min`). */
const RateLimitSchema = Type.Object({ max: Type.Integer({ minimum: 1 }), windowMs: Type.Integer({ minimum: 1 }) })
export type RateLimit = Static<typeof RateLimitSchema>

/**
 * false: X-Forwarded-For is ignored; true: believed from any peer; a list:
 * believed from these proxy addresses / CIDR ranges (`loopback`, `uniquelocal`
 * and the other names of proxy-addr too). No hop counts: they cannot check
 * who sent the header, and Fastify refuses them.
 */
const TrustProxySchema = Type.Union([Type.Boolean(), Type.Array(Type.String())])
export type TrustProxy = Static<typeof TrustProxySchema>

/**
 * Options of the security and operations features (issue 11), declared once
 * here and composed into `config.security` by src/config.ts. Every one is
 * off by default, so a server started without them behaves, and performs,
 * exactly as the spec says: nothing here registers a per-request hook unless
 * its feature is switched on.
 */
export const securityOptions = Type.Object({
  // JSON file of hashed static tokens; see ./tokens.ts.
  authTokensFile: option(Type.Optional(Type.String()), {
    flag: 'auth-tokens', value: 'file', env: 'RQS_AUTH_TOKENS', help: 'JSON file of hashed access tokens (make one with: rqs token --name NAME --scopes read,write)'
  }),
  // JWKS URL of an identity provider; needs authIssuer and authAudience.
  authJwksUrl: option(Type.Optional(Type.String()), {
    flag: 'auth-jwks', value: 'url', env: 'RQS_AUTH_JWKS', read: url(['http:', 'https:']), help: 'JWKS URL of an identity provider whose JWT access tokens are accepted (with --auth-issuer, --auth-audience)'
  }),
  authIssuer: option(Type.Optional(Type.String()), { flag: 'auth-issuer', value: 'iss', env: 'RQS_AUTH_ISSUER', help: 'the iss claim every JWT must carry' }),
  authAudience: option(Type.Optional(Type.String()), { flag: 'auth-audience', value: 'aud', env: 'RQS_AUTH_AUDIENCE', help: 'the aud claim every JWT must carry' }),
  // The claim of a JWT that lists the caller's roles for record rules (docs/rules.md); unset: `roles`.
  authRolesClaim: option(Type.Optional(Type.String({ minLength: 1, pattern: '^[^.]+(\\.[^.]+)*$' })), {
    flag: 'auth-roles-claim', value: 'claim', env: 'RQS_AUTH_ROLES_CLAIM', help: 'the JWT claim that lists the caller\'s roles for record rules, a dotted path such as realm_access.roles (default roles)'
  }),
  // Least time between two JWKS downloads caused by an unknown key id (rotation), in ms. No flag: tests shorten it.
  authJwksCooldownMs: option(Type.Integer({ minimum: 0 }), { default: 30_000 }),
  // Refused tokens per client address and window before its token requests are refused unread (429).
  authFailureLimit: option(RateLimitSchema, {
    default: { max: 30, windowMs: 60_000 }, flag: 'auth-failure-limit', value: 'rate', env: 'RQS_AUTH_FAILURE_LIMIT', read: readRateLimit, help: 'refused access tokens per client address and window; past it its token requests get 429 unread (default 30/min)'
  }),
  // Reads (GET, HEAD, GraphQL queries) pass without a token.
  authPublicRead: option(Type.Boolean(), { default: false, flag: 'auth-public-read', env: 'RQS_AUTH_PUBLIC_READ', help: 'let reads (GET, GraphQL queries) through without a token' }),
  // Origins allowed to call the API from a browser: a list, `*`, or unset for no CORS.
  corsOrigins: option(Type.Optional(Type.Union([Type.Literal('*'), Type.Array(Type.String())])), {
    flag: 'cors-origin', value: 'origins', env: 'RQS_CORS_ORIGIN', read: readCorsOrigins, help: 'origins browsers may call the API from: https://a.example,https://b.example or * (default no CORS)'
  }),
  // Host header values the server answers to (DNS-rebinding protection); default: see allowedHosts() in ./hosts.ts.
  allowedHosts: option(Type.Optional(Type.Union([Type.Literal('*'), Type.Array(Type.String())])), {
    flag: 'allowed-hosts', value: 'hosts', env: 'RQS_ALLOWED_HOSTS', read: readAllowedHosts, help: 'host names clients may use, beside localhost and IP addresses: api.example.com,rqs.internal or * for any (default: only those on 127.0.0.1; any on 0.0.0.0 unless --public-url names one)'
  }),
  // nosniff and no framing on every answer, the Content-Security-Policy on pages: on unless turned off.
  protectiveHeaders: option(Type.Boolean(), {
    default: true, flag: 'no-security-headers', env: 'RQS_NO_SECURITY_HEADERS', negated: true, help: 'send none of the protective headers that are on by default (nosniff, no framing, the pages\' Content-Security-Policy)'
  }),
  // Helmet's whole set and the Content-Security-Policy on every response.
  securityHeaders: option(Type.Boolean(), { default: false, flag: 'security-headers', env: 'RQS_SECURITY_HEADERS', help: 'send helmet\'s whole set on every response: besides the defaults no-referrer, cross-origin isolation and the Content-Security-Policy on API answers too' }),
  // Requests per client and window; unset for no limit.
  rateLimit: option(Type.Optional(RateLimitSchema), {
    flag: 'rate-limit', value: 'rate', env: 'RQS_RATE_LIMIT', read: readRateLimit, help: 'requests per client (token, else address) and window, e.g. 600/min (default no limit)'
  }),
  // Redis shared by every instance for the rate-limit counters.
  redisUrl: option(Type.Optional(Type.String()), {
    flag: 'redis', value: 'url', env: 'RQS_REDIS_URL', read: url(['redis:', 'rediss:']), help: 'redis://host:port shared by every instance for the rate-limit counters'
  }),
  // Fastify's trustProxy: whether, or from which proxies, X-Forwarded-For counts.
  trustProxy: option(TrustProxySchema, {
    default: false, flag: 'trust-proxy', value: 'proxies', env: 'RQS_TRUST_PROXY', read: readTrustProxy, help: 'whether X-Forwarded-For counts: true, or the proxies addresses/CIDRs such as 10.0.0.0/8,loopback (default false)'
  }),
  // Answer 503 instead of queueing when the event loop or memory passes a limit (each limit below implies it).
  overload: option(Type.Boolean(), { default: false, flag: 'overload', env: 'RQS_OVERLOAD', help: 'answer 503 instead of queueing when the event loop or memory passes a limit' }),
  maxEventLoopDelayMs: option(Type.Optional(Type.Integer({ minimum: 1 })), {
    flag: 'max-event-loop-delay', value: 'duration', env: 'RQS_MAX_EVENT_LOOP_DELAY_MS', read: duration({ minimum: 1 }), help: 'event-loop delay that counts as overload, e.g. 200ms or 1s (default 1s; implies --overload)'
  }),
  maxHeapUsedBytes: option(Type.Optional(Type.Integer({ minimum: 1 })), {
    flag: 'max-heap-used', value: 'size', env: 'RQS_MAX_HEAP_USED', read: size, help: 'heap use that counts as overload, e.g. 1gb (default none; implies --overload)'
  }),
  maxRssBytes: option(Type.Optional(Type.Integer({ minimum: 1 })), {
    flag: 'max-rss', value: 'size', env: 'RQS_MAX_RSS', read: size, help: 'resident memory that counts as overload, e.g. 2gb (default none; implies --overload)'
  }),
  // How often the overload check samples the event loop and memory, in ms. No flag: tests shorten it.
  overloadSampleIntervalMs: option(Type.Integer({ minimum: 1 }), { default: 1000 }),
  metrics: option(Type.Boolean(), { default: false, flag: 'metrics', env: 'RQS_METRICS', help: 'serve GET /metrics in the Prometheus text format' }),
  auditLog: option(Type.Boolean(), { default: false, flag: 'audit-log', env: 'RQS_AUDIT_LOG', help: 'log one line per create, replace and delete (who, what, outcome)' }),
  // Without authentication, administration routes (webhooks) answer loopback callers only unless this is on.
  adminAnyAddress: option(Type.Boolean(), { default: false, flag: 'admin-any-address', env: 'RQS_ADMIN_ANY_ADDRESS', help: 'without authentication, serve the administration routes (webhooks) to callers beyond this machine too (default loopback only)' })
})

type SecurityOptions = Static<typeof securityOptions>

/** `config.security`: the options with the overload limits resolved (0 for no memory limit). */
export type SecurityConfig = Omit<SecurityOptions, 'maxEventLoopDelayMs' | 'maxHeapUsedBytes' | 'maxRssBytes'> & {
  maxEventLoopDelayMs: number
  maxHeapUsedBytes: number
  maxRssBytes: number
}

const DEFAULT_MAX_EVENT_LOOP_DELAY_MS = 1000

/**
 * The options as read → `config.security`: any overload limit switches
 * overload shedding on; then the combinations single options cannot check.
 */
export function resolveSecurity ({ maxEventLoopDelayMs, maxHeapUsedBytes, maxRssBytes, ...rest }: SecurityOptions): SecurityConfig {
  const limitGiven = maxEventLoopDelayMs !== undefined || maxHeapUsedBytes !== undefined || maxRssBytes !== undefined
  const config: SecurityConfig = {
    ...rest,
    overload: rest.overload || limitGiven,
    maxEventLoopDelayMs: maxEventLoopDelayMs ?? DEFAULT_MAX_EVENT_LOOP_DELAY_MS,
    maxHeapUsedBytes: maxHeapUsedBytes ?? 0,
    maxRssBytes: maxRssBytes ?? 0
  }
  checkSecurityConfig(config)
  return config
}

/** Every security option at its default (all off). */
export function defaultSecurityConfig (): SecurityConfig {
  return {
    authJwksCooldownMs: 30_000,
    authFailureLimit: { max: 30, windowMs: 60_000 },
    authPublicRead: false,
    protectiveHeaders: true,
    securityHeaders: false,
    trustProxy: false,
    overload: false,
    maxEventLoopDelayMs: DEFAULT_MAX_EVENT_LOOP_DELAY_MS,
    maxHeapUsedBytes: 0,
    maxRssBytes: 0,
    overloadSampleIntervalMs: 1000,
    metrics: false,
    auditLog: false,
    adminAnyAddress: false
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
export function readRateLimit (raw: string, name: string): RateLimit {
  const m = /^\s*(\d+)\s*\/\s*(\d*)\s*([a-z]+)\s*$/i.exec(raw)
  const unit = m === null ? undefined : UNITS[(m[3] as string).toLowerCase()]
  if (m === null || unit === undefined) throw new ConfigError(`${name} must be REQUESTS/WINDOW such as 600/min, 10/s or 100/15min, got "${raw}"`)
  const max = Number(m[1])
  const windowMs = (m[2] === '' ? 1 : Number(m[2])) * unit
  if (max < 1 || windowMs < 1 || !Number.isSafeInteger(max) || !Number.isSafeInteger(windowMs)) throw new ConfigError(`${name} must allow at least 1 request in a window of at least 1 unit, got "${raw}"`)
  return { max, windowMs }
}

/** `*` or a comma-separated list of origins such as `https://a.example,http://localhost:3000`. */
export function readCorsOrigins (raw: string, name: string): string[] | '*' {
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

/** `*`, or a comma-separated list of host names and IP addresses (no scheme, no port), in their Host header form. */
export function readAllowedHosts (raw: string, name: string): string[] | '*' {
  if (raw.trim() === '*') return '*'
  const entries = raw.split(',').map((h) => h.trim()).filter((h) => h !== '')
  if (entries.length === 0) throw new ConfigError(`${name} must be * or a list of host names such as api.example.com,rqs.internal, got "${raw}"`)
  return entries.map((entry) => {
    try {
      return hostForm(host(entry, name))
    } catch {
      throw new ConfigError(`${name}: "${entry}" is not a host name or IP address such as api.example.com or [::1] (no scheme, no port: every port is allowed)`)
    }
  })
}

/** A name as it appears in a Host header, without port: lower case, IPv6 in brackets. */
export function hostForm (name: string): string {
  return isIP(name) === 6 ? `[${name.toLowerCase()}]` : name.toLowerCase()
}

const PROXY_ADDR_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

/** `true`/`false`, or a comma-separated list of proxy addresses and CIDR ranges. */
export function readTrustProxy (raw: string, name: string): TrustProxy {
  const v = raw.trim().toLowerCase()
  if (['true', 'yes', 'on'].includes(v)) return true
  if (['false', 'no', 'off', ''].includes(v)) return false
  const list = v.split(',').map((p) => p.trim()).filter((p) => p !== '')
  if (list.every((p) => PROXY_ADDR_NAMES.has(p) || (isIP(p.split('/')[0] ?? '') !== 0 && /^[^/]+(\/\d{1,3})?$/.test(p)))) return list
  throw new ConfigError(`${name} must be true, false, or the proxies' addresses / CIDR ranges such as 10.0.0.0/8,loopback, got "${raw}"`)
}

/** A URL with one of the given schemes. */
export function url (protocols: readonly string[]): Reader<string> {
  return (raw, name) => {
    let parsed: URL
    try { parsed = new URL(raw) } catch { throw new ConfigError(`${name} must be a URL, got "${raw}"`) }
    if (!protocols.includes(parsed.protocol)) throw new ConfigError(`${name} must be a ${protocols.map((p) => p.slice(0, -1)).join(' or ')} URL, got "${raw}"`)
    return raw
  }
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
  if (config.securityHeaders && !config.protectiveHeaders) {
    throw new ConfigError('--security-headers and --no-security-headers contradict each other: give one')
  }
  if (config.redisUrl !== undefined && config.rateLimit === undefined) {
    throw new ConfigError('--redis holds the rate-limit counters: it needs --rate-limit')
  }
}
