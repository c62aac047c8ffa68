import { isIP } from 'node:net'
import bytes from 'bytes'
import { ConfigError } from './errors.js'
import type { Reader } from './option.js'

/** `1`, `true`, `yes`, `on` and `0`, `false`, `no`, `off`, empty (environment variables; flags are bare). */
export const onOff: Reader<boolean> = (text, name) => {
  const word = text.trim().toLowerCase()
  if (['1', 'true', 'yes', 'on'].includes(word)) return true
  if (['0', 'false', 'no', 'off', ''].includes(word)) return false
  throw new ConfigError(`${name} must be true or false, got "${text}"`)
}

/** Digits only, within the declared bounds (a maximum also names the minimum: `between 0 and 65535`). */
export function integer ({ minimum, maximum }: { minimum?: number, maximum?: number }): Reader<number> {
  return (text, name) => {
    if (!/^\d+$/.test(text)) throw new ConfigError(`${name} must be a non-negative integer, got "${text}"`)
    const n = Number(text)
    if (maximum !== undefined && n > maximum) throw new ConfigError(`${name} must be between ${minimum ?? 0} and ${maximum}, got ${text}`)
    if (!Number.isSafeInteger(n)) throw new ConfigError(`${name} is too large: "${text}"`)
    if (minimum !== undefined && n < minimum) throw new ConfigError(`${name} must be at least ${minimum}`)
    return n
  }
}

/** Any text but the empty one (an empty value is a mistake, not "unset"). */
export const text: Reader<string> = (value, name) => {
  if (value === '') throw new ConfigError(`${name} must not be empty`)
  return value
}

/** One of a fixed list of words. */
export function oneOf<const T extends readonly string[]> (choices: T): Reader<T[number]> {
  return (value, name) => {
    const choice = choices.find((c) => c === value)
    if (choice === undefined) {
      throw new ConfigError(value === '' ? `${name} must not be empty` : `${name} must be one of ${choices.join(', ')}, got "${value}"`)
    }
    return choice
  }
}

/** Size syntax `bytes` reads exactly (it would read `12abc` as 12, so the whole text is checked first). */
const SIZE = /^\d+(?:\.\d+)?\s*(?:b|kb|mb|gb|tb|pb)?$/i

/** A size in bytes: `1048576`, `512kb`, `1mb` (units of 1024, as `bytes` reads them). */
export const size: Reader<number> = (value, name) => {
  const trimmed = value.trim()
  if (!SIZE.test(trimmed)) throw new ConfigError(`${name} must be a size such as 1048576, 512kb or 1mb, got "${value}"`)
  const n = bytes.parse(trimmed.replace(/\s+/g, ''))
  if (n === null || n < 1 || !Number.isSafeInteger(n)) throw new ConfigError(`${name} must be at least 1 byte, got "${value}"`)
  return n
}

/** `/students/` → `/students`; `/` stays `/`. */
export function normaliseBase (base: string): string {
  return base.length > 1 && base.endsWith('/') ? base.slice(0, -1) : base
}

/**
 * A URL path a service is mounted under, normalised without a trailing
 * slash, and without `.` and `..` segments (resolved as a client resolves
 * them, RFC 3986 §5.2.4): `/./app/x` was mounted literally (issue 36), where
 * no client's request arrives, and passed the overlap check under a name
 * that was not the path it served; `/app/../metrics` is `/metrics`.
 */
export const basePath: Reader<string> = (value, name) => {
  if (!/^\/[A-Za-z0-9._~\-/]*$/.test(value) || value.includes('//')) {
    throw new ConfigError(`${name} must be a path such as /students, got "${value}"`)
  }
  return normaliseBase(new URL(value, 'http://rqs.invalid').pathname)
}

/**
 * An absolute http(s) URL where clients reach this server (`--public-url`),
 * without a trailing slash: `https://api.example.com/`, `http://host:8080/prefix`.
 * No credentials, query or fragment.
 */
export const publicUrl: Reader<string> = (value, name) => {
  let url: URL | undefined
  try { url = new URL(value) } catch { url = undefined }
  const plain = url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.username === '' && url.password === '' && !value.includes('?') && !value.includes('#')
  if (url === undefined || !plain) throw new ConfigError(`${name} must be an http(s) URL such as https://api.example.com, got "${value}"`)
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '')
}

/** A name usable inside a media type (`application/vnd.<token>.v2+json`). */
export const token: Reader<string> = (value, name) => {
  if (!/^[a-z0-9][a-z0-9.-]{0,62}$/.test(value)) throw new ConfigError(`${name} must be lower-case letters, digits, dots and dashes, got "${value}"`)
  return value
}

/** An ISO 8601 date or date-time. */
export const isoDate: Reader<Date> = (value, name) => {
  const date = new Date(value)
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) {
    throw new ConfigError(`${name} must be an ISO 8601 date such as 2027-06-30, got "${value}"`)
  }
  return date
}

/** API versions such as `1` or `1,2` (a leading `v` is allowed), each one of those that exist. */
export function versionList (existing: readonly number[]): Reader<number[]> {
  return (value, name) => {
    const parts = value.split(',').map((p) => p.trim().replace(/^v/i, ''))
    if (parts.some((p) => !/^[1-9]\d{0,2}$/.test(p))) throw new ConfigError(`${name} must list versions such as 1 or 1,2, got "${value}"`)
    const versions = parts.map(Number)
    const unknown = versions.find((v) => !existing.includes(v))
    if (unknown !== undefined) throw new ConfigError(`${name}: there is no version ${unknown}; the versions are ${existing.join(', ')}`)
    return versions
  }
}

/** A label of a host name (letters, digits, hyphens; `_` too, as container names use it). */
const HOST_LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/i

/**
 * An address or a host name to listen on. Only the syntax is checked here
 * (whether a name resolves is known when the server listens). As in URLs, a
 * name whose last label is a number is an IPv4 address, so `999.1.1.1` is
 * refused rather than looked up. `[::1]` is read as `::1`.
 */
export const host: Reader<string> = (value, name) => {
  const bare = /^\[.*\]$/.test(value) ? value.slice(1, -1) : value
  if (isIP(bare) !== 0) return bare
  const labels = bare.split('.')
  if (/^\d+$/.test(labels.at(-1) ?? '')) throw new ConfigError(`${name} must be an IPv4 address of four numbers from 0 to 255 (or a host name), got "${value}"`)
  if (bare.length > 253 || !labels.every((label) => HOST_LABEL.test(label))) throw new ConfigError(`${name} must be an IP address or a host name, got "${value}"`)
  return bare
}

const DURATION = /^(\d+)\s*(ms|s|m|h|d)?$/
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const

/** The longest delay a Node timer keeps (2^31 - 1 ms, about 24.8 days); a longer one fires at once. */
export const TIMER_MAX_MS = 2 ** 31 - 1

/** `1500` → `1500ms`, `60000` → `1m`: a duration in the largest unit that states it exactly. */
export function formatDuration (ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    if (ms !== 0 && ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`
  }
  return `${ms}ms`
}

/**
 * The one reader of every time option (flags, environment variables and the
 * configuration file alike): `500ms`, `5s`, `2m`, `1h`, `7d`, or a bare
 * integer, which is milliseconds as every time option always took.
 */
export function duration ({ minimum = 0, maximum }: { minimum?: number, maximum?: number } = {}): Reader<number> {
  return (value, name) => {
    const match = DURATION.exec(value.trim())
    if (match === null) throw new ConfigError(`${name} must be a duration like 5s or 500ms, got "${value}"`)
    const ms = Number(match[1]) * UNIT_MS[(match[2] ?? 'ms') as keyof typeof UNIT_MS]
    if (!Number.isSafeInteger(ms)) throw new ConfigError(`${name} is too long: "${value}"`)
    if (ms < minimum) throw new ConfigError(`${name} must be at least ${formatDuration(minimum)}, got "${value}"`)
    if (maximum !== undefined && ms > maximum) throw new ConfigError(`${name} must be at most ${formatDuration(maximum)}, got "${value}"`)
    return ms
  }
}
