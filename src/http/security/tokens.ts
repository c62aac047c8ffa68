import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto'
import { readFile } from 'node:fs/promises'

/**
 * What a token may do: `read` (GET, HEAD, GraphQL), `write` (POST, PUT, DELETE), `metrics` (GET /metrics),
 * `admin` (administration of the server itself: webhooks).
 */
export const SCOPES = ['read', 'write', 'metrics', 'admin'] as const
export type Scope = (typeof SCOPES)[number]

/** Who made a request, as proved by a static token or a JWT. */
export interface Principal {
  /** The token's `name`, or the JWT's `sub`: what logs and rate limits name. */
  name: string
  kind: 'token' | 'jwt'
  scopes: ReadonlySet<Scope>
  /** The subject record rules compare (docs/rules.md): a token entry's `sub` (its name unless set), a JWT's `sub`. */
  sub?: string
  /** The roles record rules test (`@request.auth.roles ?= 'editor'`): a token entry's, a JWT's roles claim; none when absent. */
  roles?: readonly string[]
  /** When this server stops accepting the credential (a JWT's `exp` plus the clock tolerance), ms since the epoch; none for static tokens. */
  expiresAt?: number
}

/** One entry of the tokens file: the server keeps only the hash. */
export interface TokenEntry {
  name: string
  /** Hex SHA-256 of the token. */
  sha256: string
  scopes: Scope[]
  /** The subject record rules see; absent: the name. */
  sub?: string
  /** Roles record rules test; absent: none. */
  roles?: string[]
}

/** Prefix of generated tokens, so a leaked one is easy to recognise (and to scan for). */
export const TOKEN_PREFIX = 'rqs_'
const TOKEN_BYTES = 32 // 256 bits
const NAME = /^[A-Za-z0-9._@:-]{1,64}$/
const HEX_SHA256 = /^[0-9a-f]{64}$/

/** A new random token: 256 bits, base64url, with the `rqs_` prefix. */
export function generateToken (): string {
  return TOKEN_PREFIX + randomBytes(TOKEN_BYTES).toString('base64url')
}

export function hashToken (token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex')
}

export function tokenEntry (token: string, name: string, scopes: readonly Scope[], identity: { sub?: string, roles?: readonly string[] } = {}): TokenEntry {
  const entry: TokenEntry = { name, sha256: hashToken(token), scopes: [...scopes] }
  if (identity.sub !== undefined) entry.sub = identity.sub
  if (identity.roles !== undefined && identity.roles.length > 0) entry.roles = [...identity.roles]
  return entry
}

const ROLE = /^[A-Za-z0-9._@:-]{1,64}$/

/** Why a role name is refused, or undefined: the characters of a name, so a role is never mistaken for a list. */
export function checkRole (role: string): string | undefined {
  return ROLE.test(role) ? undefined : 'a role is 1 to 64 of A-Z a-z 0-9 . _ @ : -'
}

/** Why a subject is refused, or undefined: 1 to 256 characters, no control character. */
export function checkSubject (sub: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  return sub.length >= 1 && sub.length <= 256 && !/[\x00-\x1f\x7f]/.test(sub) ? undefined : 'a subject is 1 to 256 characters, none of them a control character'
}

export function isScope (value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value)
}

export function checkName (name: string): string | undefined {
  return NAME.test(name) ? undefined : 'a name is 1 to 64 of A-Z a-z 0-9 . _ @ : -'
}

interface KnownToken {
  hash: Buffer
  principal: Principal
}

/**
 * The static tokens of the tokens file. A presented token is hashed and
 * compared with every stored hash in constant time, with no early exit, so
 * neither the answer time nor the stored data tells anything about a token.
 */
export class TokenSet {
  readonly #tokens: KnownToken[]
  readonly #principals: ReadonlySet<Principal>

  /**
   * `previous`: the set this one replaces (a reload). An entry with the same
   * hash, name and scopes keeps its Principal object, so `holds()` tells
   * whether a principal proved before the reload would still be accepted.
   */
  constructor (entries: readonly TokenEntry[], previous?: TokenSet) {
    const before = new Map(previous === undefined ? [] : previous.#tokens.map((t) => [t.hash.toString('hex'), t.principal]))
    this.#tokens = entries.map((e) => {
      const kept = before.get(e.sha256)
      const roles = e.roles ?? []
      const unchanged = kept !== undefined && kept.name === e.name && kept.scopes.size === e.scopes.length && e.scopes.every((s) => kept.scopes.has(s)) &&
        kept.sub === (e.sub ?? e.name) && kept.roles?.length === roles.length && roles.every((r) => kept.roles?.includes(r) === true)
      return { hash: Buffer.from(e.sha256, 'hex'), principal: unchanged ? kept : { name: e.name, kind: 'token', scopes: new Set(e.scopes), sub: e.sub ?? e.name, roles } }
    })
    this.#principals = new Set(this.#tokens.map((t) => t.principal))
  }

  /** The principal came from a token of this set, with the name and scopes it has here. */
  holds (principal: Principal): boolean {
    return this.#principals.has(principal)
  }

  get size (): number {
    return this.#tokens.length
  }

  find (token: string): Principal | undefined {
    const presented = hash('sha256', token, 'buffer') // the one-shot form: half the cost of createHash
    let found: Principal | undefined
    for (const known of this.#tokens) {
      if (timingSafeEqual(presented, known.hash)) found = known.principal
    }
    return found
  }
}

export class TokenFileError extends Error {
  override name = 'TokenFileError'
}

/**
 * Reads and checks a tokens file:
 * `{"tokens":[{"name":"ci","sha256":"<hex>","scopes":["read","write"]}]}`,
 * each entry optionally with `sub` (the subject rules see; default its name) and `roles`.
 * Names may repeat (two tokens of one client during a rotation); hashes may not.
 */
export async function loadTokenFile (path: string, previous?: TokenSet): Promise<TokenSet> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    throw new TokenFileError(`tokens file ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`)
  }
  return new TokenSet(parseTokenFile(text, path), previous)
}

export function parseTokenFile (text: string, path: string): TokenEntry[] {
  const problem = (what: string): TokenFileError => new TokenFileError(`tokens file ${path}: ${what}`)
  let data: unknown
  try { data = JSON.parse(text) } catch (err) { throw problem(`not valid JSON (${(err as Error).message})`) }
  const tokens = (data as { tokens?: unknown } | null)?.tokens
  if (typeof data !== 'object' || data === null || Array.isArray(data) || !Array.isArray(tokens)) {
    throw problem('expected {"tokens":[{"name":…,"sha256":…,"scopes":[…]}]}')
  }
  const seen = new Set<string>()
  return tokens.map((raw: unknown, i): TokenEntry => {
    const at = `tokens[${i}]`
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw problem(`${at} is not an object`)
    const { name, sha256, scopes, sub, roles, ...rest } = raw as Record<string, unknown>
    const unknown = Object.keys(rest)
    if (unknown.length > 0) throw problem(`${at} has unknown member ${unknown.map((k) => JSON.stringify(k)).join(', ')}`)
    if (typeof name !== 'string' || checkName(name) !== undefined) throw problem(`${at}.name: ${checkName(String(name)) ?? 'must be a string'}`)
    if (typeof sha256 !== 'string' || !HEX_SHA256.test(sha256)) throw problem(`${at}.sha256 must be 64 lower-case hex digits (the SHA-256 of the token)`)
    if (seen.has(sha256)) throw problem(`${at}.sha256 appears twice`)
    seen.add(sha256)
    if (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every((s) => typeof s === 'string' && isScope(s))) {
      throw problem(`${at}.scopes must be a non-empty list of ${SCOPES.join(', ')}`)
    }
    const entry: TokenEntry = { name, sha256, scopes: [...new Set(scopes as Scope[])] }
    if (sub !== undefined) {
      if (typeof sub !== 'string' || checkSubject(sub) !== undefined) throw problem(`${at}.sub: ${typeof sub === 'string' ? checkSubject(sub) as string : 'must be a string'}`)
      entry.sub = sub
    }
    if (roles !== undefined) {
      if (!Array.isArray(roles) || !roles.every((r) => typeof r === 'string' && checkRole(r) === undefined)) throw problem(`${at}.roles must be a list of role names (${checkRole('')})`)
      entry.roles = [...new Set(roles as string[])]
    }
    return entry
  })
}
