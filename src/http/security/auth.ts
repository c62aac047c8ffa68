import { EventEmitter } from 'node:events'
import fp from 'fastify-plugin'
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify'
import { declared } from '../routes/index.js'
import type { AuthFailureBudget } from './auth-failures.js'
import { KeysUnavailable, looksLikeJwt, TokenRejected, type JwtVerifier } from './jwt.js'
import type { Reject } from './reject.js'
import { loadTokenFile, type Principal, type Scope, type TokenSet } from './tokens.js'

/** What the Authorization header of a request proves. */
export type Identification =
  | { kind: 'anonymous' }
  | { kind: 'principal', principal: Principal }
  | { kind: 'invalid', reason: string }
  | { kind: 'unavailable', reason: string, retryAfterSeconds?: number }
  /** Its address spent its budget of refused tokens: the token was not even looked at. */
  | { kind: 'throttled', retryAfterSeconds: number }

const ANONYMOUS: Identification = { kind: 'anonymous' }
export const REALM = 'Bearer realm="rqs"'
/** RFC 6750 b64token: what may follow `Bearer `. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/
const MAX_TOKEN_LENGTH = 8192
const RETRY_AFTER_SECONDS = '5'
/**
 * What each request's Authorization header proved, remembered so the rate
 * limiter and the scope check ask once. A WeakMap rather than request
 * decorations: two more properties on every request cost about 3 µs a
 * request here (measured), more than checking a token.
 */
const identified = new WeakMap<FastifyRequest, Identification | Promise<Identification>>()

/** Who sent a request, when it carried a valid token (for the access and audit logs; never a child logger per request, which costs more than the check). */
export function principalOf (request: FastifyRequest): Principal | undefined {
  const id = identified.get(request)
  return id !== undefined && !(id instanceof Promise) && id.kind === 'principal' ? id.principal : undefined
}

/**
 * Static tokens from the tokens file, reloaded on SIGHUP so tokens can be
 * added and retired without a restart (a file that does not load keeps the
 * tokens in force and is logged). Emits `reloaded` once a new file is in
 * force, so whoever holds a principal beyond one request (the change feed's
 * streams) can check it again.
 */
export class TokenFile extends EventEmitter<{ reloaded: [] }> {
  #tokens: TokenSet

  private constructor (readonly path: string, tokens: TokenSet) {
    super()
    this.#tokens = tokens
  }

  static async open (path: string): Promise<TokenFile> {
    return new TokenFile(path, await loadTokenFile(path))
  }

  get tokens (): TokenSet {
    return this.#tokens
  }

  async reload (log: FastifyBaseLogger): Promise<void> {
    try {
      this.#tokens = await loadTokenFile(this.path, this.#tokens)
      log.info({ tokens: this.#tokens.size }, 'tokens file reloaded')
    } catch (err) {
      log.error({ err }, 'tokens file not reloaded; the tokens loaded before stay in force')
      return
    }
    this.emit('reloaded')
  }
}

/**
 * Finds out who sent a request, once per request: the static tokens are
 * asked for tokens without dots, the identity provider's JWT verifier for
 * JWS compact tokens. Refused tokens count against the client address's
 * failure budget; an address that spent it gets its tokens refused unread.
 * The token itself is never kept or logged.
 */
export class Authenticator {
  constructor (readonly tokenFile: TokenFile | undefined, readonly jwt: JwtVerifier | undefined, readonly failures?: AuthFailureBudget) {}

  /**
   * Who sent the request: at once for a static token (no promise on the
   * common path), a promise when a JWT must be verified. Remembered on the
   * request, so the rate limiter and the scope check ask once.
   */
  identify (request: FastifyRequest): Identification | Promise<Identification> {
    const known = identified.get(request)
    if (known !== undefined) return known
    const found = this.#identify(request)
    const remember = (id: Identification): Identification => {
      identified.set(request, id)
      if (id.kind === 'invalid') this.failures?.fail(request.ip)
      return id
    }
    if (found instanceof Promise) {
      const pending = found.then(remember)
      identified.set(request, pending)
      return pending
    }
    return remember(found)
  }

  #identify (request: FastifyRequest): Identification | Promise<Identification> {
    const header = request.headers.authorization
    if (header === undefined) return ANONYMOUS
    const space = header.indexOf(' ')
    // RFC 6750 §3.1: a request with another scheme (Basic, ...) lacks bearer credentials, like one without any.
    if ((space === -1 ? header : header.slice(0, space)).toLowerCase() !== 'bearer') return ANONYMOUS
    const wait = this.failures?.retryAfter(request.ip) ?? 0
    if (wait > 0) return { kind: 'throttled', retryAfterSeconds: wait }
    const token = space === -1 ? '' : header.slice(space + 1).trim()
    if (token.length > MAX_TOKEN_LENGTH || !B64TOKEN.test(token)) {
      return { kind: 'invalid', reason: 'the Authorization header is not "Bearer <token>"' }
    }
    if (this.jwt !== undefined && looksLikeJwt(token)) return this.#verifyJwt(this.jwt, token)
    const principal = this.tokenFile?.tokens.find(token)
    return principal === undefined ? { kind: 'invalid', reason: 'the token is not known' } : { kind: 'principal', principal }
  }

  /**
   * Whether a principal this authenticator proved earlier would be accepted
   * now: its static token is still in the tokens file with the same name and
   * scopes, its JWT has not expired (a JWT cannot be withdrawn before then).
   */
  stillValid (principal: Principal, now = Date.now()): boolean {
    if (principal.expiresAt !== undefined && now >= principal.expiresAt) return false
    return principal.kind === 'jwt' || this.tokenFile?.tokens.holds(principal) === true
  }

  async #verifyJwt (jwt: JwtVerifier, token: string): Promise<Identification> {
    try {
      return { kind: 'principal', principal: await jwt.verify(token) }
    } catch (err) {
      if (err instanceof TokenRejected) return { kind: 'invalid', reason: err.message }
      if (err instanceof KeysUnavailable) return { kind: 'unavailable', reason: err.message, retryAfterSeconds: err.retryAfterSeconds }
      throw err
    }
  }
}

export interface AuthPluginOptions {
  authenticator: Authenticator
  /** Reads pass without a token (a token that is sent is still checked). */
  publicRead: boolean
  reject: Reject
}

/**
 * Bearer-token authentication and scope checks (RFC 6750). Every route gets
 * the check, which reads what the route declares (`config.rqs`, see
 * src/http/routes): `public` passes, `read`, `write`, `metrics` and `admin` need the
 * scope of that name, and a route that declares nothing is refused — deny
 * by default, so a route nobody thought about is never open.
 */
async function authPlugin (app: FastifyInstance, opts: AuthPluginOptions): Promise<void> {
  const { authenticator, publicRead, reject } = opts

  const tokenFile = authenticator.tokenFile
  if (tokenFile !== undefined) {
    const reload = (): void => { void tokenFile.reload(app.log) }
    process.on('SIGHUP', reload)
    app.addHook('onClose', async () => { process.off('SIGHUP', reload) })
  }

  function refuse (request: FastifyRequest, reply: FastifyReply, identification: Identification, scope: Scope): FastifyReply {
    switch (identification.kind) {
      case 'principal':
        return reject(request, reply, 'FORBIDDEN', {
          detail: `This request needs a token with the ${scope} scope`,
          headers: { 'www-authenticate': `${REALM}, error="insufficient_scope", scope="${scope}"` }
        })
      case 'anonymous':
        return reject(request, reply, 'UNAUTHENTICATED', {
          detail: 'This request needs an access token: send Authorization: Bearer <token>',
          headers: { 'www-authenticate': REALM }
        })
      case 'invalid':
        return reject(request, reply, 'UNAUTHENTICATED', {
          detail: `The access token was refused: ${identification.reason}`,
          headers: { 'www-authenticate': `${REALM}, error="invalid_token", error_description="${identification.reason.replace(/"/g, "'")}"` }
        })
      case 'throttled':
        return reject(request, reply, 'RATE_LIMITED', {
          detail: `Too many refused access tokens from this address; retry in ${identification.retryAfterSeconds} s`,
          headers: { 'retry-after': String(identification.retryAfterSeconds) }
        })
      case 'unavailable':
        request.log.warn({ reason: identification.reason }, 'access token not checked: identity provider keys unavailable')
        return reject(request, reply, 'AUTH_UNAVAILABLE', {
          detail: identification.retryAfterSeconds === undefined
            ? 'The access token could not be checked because the identity provider did not answer; retry shortly'
            : `The access token names a key the identity provider's key set did not hold, which is fetched again in at most ${identification.retryAfterSeconds} s; retry then`,
          headers: { 'retry-after': identification.retryAfterSeconds === undefined ? RETRY_AFTER_SECONDS : String(identification.retryAfterSeconds) }
        })
    }
  }

  function allowed (identification: Identification, scope: Scope): boolean {
    if (identification.kind === 'principal') return identification.principal.scopes.has(scope)
    return identification.kind === 'anonymous' && publicRead && scope === 'read'
  }

  /**
   * The check of one route: callback style, so a static token is checked
   * without a promise. It reads the declaration when a request comes, not
   * when the route is added: the scopes that declare a route's service and
   * access (mountRest, a service's plugin) see the route after this root hook.
   */
  function guard (route: RouteOptions): onRequestHookHandler {
    let reported = false
    return function checkAccess (request, reply, done) {
      const declaration = declared(route.config)
      if (declaration === undefined) {
        if (!reported) request.log.error({ route: route.url }, 'route refused: it declares no service and access (config.rqs)')
        reported = true
        reject(request, reply, 'FORBIDDEN', { detail: 'This route declares no access rule, so it is refused while authentication is on' })
        return
      }
      // OPTIONS only lists the methods (Allow); preflights are answered before this.
      if (declaration.access === 'public' || request.method === 'OPTIONS') { done(); return }
      const scope: Scope = declaration.access
      const decide = (identification: Identification): void => {
        if (allowed(identification, scope)) done()
        else refuse(request, reply, identification, scope) // answered: the request goes no further
      }
      const identification = authenticator.identify(request)
      if (identification instanceof Promise) identification.then(decide, done)
      else decide(identification)
    }
  }

  app.addHook('onRoute', (route: RouteOptions) => { addRouteHook(route, guard(route)) })
}

/** Appends a route-level onRequest hook (they run after the server-wide ones, so CORS preflights are answered first). */
function addRouteHook (route: RouteOptions, hook: onRequestHookHandler): void {
  const current = route.onRequest
  if (current === undefined) route.onRequest = [hook]
  else if (Array.isArray(current)) {
    // A HEAD route copied from its GET route arrives with the GET route's hooks: do not add a second check.
    if (current.some((h) => h.name === 'checkAccess')) return
    route.onRequest = [...current, hook]
  } else route.onRequest = [current, hook]
}

export const auth = fp(authPlugin, { name: 'rqs-auth', fastify: '5.x' })
