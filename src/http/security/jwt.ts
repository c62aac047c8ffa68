import type * as JoseModule from 'jose'
import type { JWTVerifyGetKey } from 'jose'

type Jose = typeof JoseModule
import { isScope, type Principal, type Scope } from './tokens.js'

export interface JwtOptions {
  jwksUrl: string
  issuer: string
  audience: string
  /** Least time between two JWKS downloads caused by a token whose key id is unknown. */
  cooldownMs: number
  /** The claim that lists the caller's roles, a dotted path (`realm_access.roles`); default `roles`. */
  rolesClaim?: string
}

/** Signature algorithms of identity providers; `none` and shared-secret (HS*) ones are refused. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519']
/** Clocks of the provider and of this server may differ a little. */
const CLOCK_TOLERANCE_SECONDS = 30
/**
 * Token types (`typ` header, compared case-insensitively, `application/`
 * optional) accepted as access tokens: RFC 9068's `at+jwt`, and the generic
 * `JWT` or none at all, which providers that predate RFC 9068 (Entra ID,
 * Keycloak, Okta) put on their access tokens. Any other type is a JWT of
 * another kind (a logout token, a DPoP proof, a security event) and refused.
 */
const ACCESS_TOKEN_TYPES = new Set(['at+jwt', 'jwt'])

/** The token is not acceptable: the client must get another (401). */
export class TokenRejected extends Error {
  override name = 'TokenRejected'
}

/** The provider's keys could not be fetched: nobody's fault on the client side (503). */
export class KeysUnavailable extends Error {
  override name = 'KeysUnavailable'

  /** `retryAfterSeconds`: when asking again can help (the key set's cool-down); default the usual pause. */
  constructor (message: string, readonly retryAfterSeconds?: number) {
    super(message)
  }
}

/** The `crit` header parameters jose understands (RFC 7797's b64): any other is refused as not understood. */
const UNDERSTOOD_CRITICAL = new Set(['b64'])

/** jose error codes that mean "this token is wrong", as opposed to "the key set could not be read". */
const REJECTIONS: Record<string, string> = {
  ERR_JWT_EXPIRED: 'the token has expired',
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: 'the token signature does not verify',
  ERR_JWKS_NO_MATCHING_KEY: 'the token is not signed by a key of the identity provider',
  ERR_JWKS_MULTIPLE_MATCHING_KEYS: 'the token does not say which key signed it',
  ERR_JWS_INVALID: 'the token is malformed',
  ERR_JWT_INVALID: 'the token is malformed',
  ERR_JOSE_ALG_NOT_ALLOWED: 'the token is signed with an algorithm that is not accepted',
  ERR_JOSE_NOT_SUPPORTED: 'the token is signed with an algorithm that is not accepted'
}

/**
 * Verifies JWT access tokens of an identity provider with jose: signature
 * against the provider's JWKS (fetched on first use, cached, and fetched again
 * when a token names a key id it does not know, which is how rotated keys are
 * picked up), `iss`, `aud`, `exp` (required), `nbf`, `iat` not in the future,
 * `typ` (see ACCESS_TOKEN_TYPES). The principal is `sub`, a non-empty string.
 * Scopes come from the `scope` claim (RFC 8693 / RFC 9068: space-separated;
 * an array is read too) and from `scp` (Okta: an array; Entra ID: a
 * space-separated string).
 */
export class JwtVerifier {
  readonly #keys: JWTVerifyGetKey
  readonly #options: JwtOptions
  readonly #jose: Jose

  /** Loads jose only when JWTs are configured: a server without them never holds it. */
  static async open (options: JwtOptions): Promise<JwtVerifier> {
    return new JwtVerifier(options, await import('jose'))
  }

  private constructor (options: JwtOptions, jose: Jose) {
    this.#options = options
    this.#jose = jose
    this.#keys = jose.createRemoteJWKSet(new URL(options.jwksUrl), { cooldownDuration: options.cooldownMs, timeoutDuration: 5000 })
  }

  async verify (token: string): Promise<Principal> {
    let payload
    let protectedHeader
    // Read before: after a download for this very token the set is fresh too, and its unknown key a 401.
    const coolingDown = (this.#keys as { coolingDown?: boolean }).coolingDown === true
    try {
      ({ payload, protectedHeader } = await this.#jose.jwtVerify(token, this.#keys, {
        issuer: this.#options.issuer,
        audience: this.#options.audience,
        algorithms: ALGORITHMS,
        requiredClaims: ['exp', 'sub'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS
      }))
    } catch (err) {
      const code = (err as { code?: string }).code
      const reason = code === undefined ? undefined : REJECTIONS[code]
      if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') throw new TokenRejected(`the token's ${String((err as { claim?: string }).claim)} claim is not acceptable`)
      // jose says "not supported" for an unknown crit parameter as for an algorithm: they need different fixes.
      if (code === 'ERR_JOSE_NOT_SUPPORTED') {
        const unknown = this.#unknownCritical(token)
        if (unknown.length > 0) throw new TokenRejected(`the token marks header parameters as critical that this server does not understand (crit: ${unknown.join(', ')})`)
      }
      // A key id the set did not hold, within the cool-down after the last download: the set was not fetched
      // again, so whether the provider has that key is not known yet (the documented 503, not a 401).
      if (code === 'ERR_JWKS_NO_MATCHING_KEY' && coolingDown) {
        throw new KeysUnavailable('the token names a key the identity provider\'s key set did not hold when last fetched, and it is fetched again at most once per cool-down', Math.max(1, Math.ceil(this.#options.cooldownMs / 1000)))
      }
      if (reason !== undefined) throw new TokenRejected(reason)
      throw new KeysUnavailable(`the identity provider's keys could not be read: ${(err as Error).message}`)
    }
    if (!isAccessTokenType(protectedHeader.typ)) throw new TokenRejected('the token is not an access token (its typ header is not at+jwt)')
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new TokenRejected('the token\'s sub claim is not acceptable')
    if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + CLOCK_TOLERANCE_SECONDS) throw new TokenRejected('the token\'s iat claim is not acceptable (issued in the future)')
    // Accepted until the tolerance past `exp` is over: a stream opened with it ends then, when a request would be refused.
    const expiresAt = ((payload.exp as number) + CLOCK_TOLERANCE_SECONDS) * 1000
    const roles = rolesOf(payload, this.#options.rolesClaim ?? 'roles')
    return { name: payload.sub, sub: payload.sub, roles, kind: 'jwt', scopes: new Set<Scope>([...scopesOf(payload.scope), ...scopesOf(payload.scp)]), expiresAt }
  }

  /** The names in the token's `crit` header that jose does not understand (none when it has no readable one). */
  #unknownCritical (token: string): string[] {
    let crit: unknown
    try { crit = this.#jose.decodeProtectedHeader(token).crit } catch { return [] }
    if (!Array.isArray(crit)) return []
    return crit.filter((name) => !UNDERSTOOD_CRITICAL.has(String(name))).map((name) => JSON.stringify(name).slice(0, 40))
  }
}

/** The `typ` header as sent: jose does not check its type unless asked for one value. */
function isAccessTokenType (typ: unknown): boolean {
  if (typ === undefined) return true
  if (typeof typ !== 'string') return false
  const type = typ.toLowerCase()
  return ACCESS_TOKEN_TYPES.has(type.startsWith('application/') ? type.slice('application/'.length) : type)
}

/** This server's scopes in a `scope` or `scp` claim: a space-separated string or an array of strings. */
function scopesOf (claim: unknown): Scope[] {
  const names = typeof claim === 'string' ? claim.split(' ') : Array.isArray(claim) ? claim : []
  return names.filter((name): name is Scope => typeof name === 'string' && isScope(name))
}

/**
 * The roles a JWT's claim lists, at a dotted path (`realm_access.roles`,
 * Keycloak's): an array of strings, or a space-separated string. A claim
 * that is absent or of another shape gives no roles, as a token without any.
 */
export function rolesOf (payload: Readonly<Record<string, unknown>>, claim: string): string[] {
  let value: unknown = payload
  for (const part of claim.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, part)) return []
    value = (value as Record<string, unknown>)[part]
  }
  const names = typeof value === 'string' ? value.split(' ') : Array.isArray(value) ? value : []
  return [...new Set(names.filter((name): name is string => typeof name === 'string' && name !== ''))]
}

/** Three base64url parts separated by dots: the JWS compact form. Static tokens have no dots. */
export function looksLikeJwt (token: string): boolean {
  const first = token.indexOf('.')
  return first > 0 && token.indexOf('.', first + 1) > first + 1 && token.split('.').length === 3
}
