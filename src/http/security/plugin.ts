import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { CoreConfig } from '../../config.js'
import { audit } from '../operations/index.js'
import type { MountTable } from '../rest/index.js'
import { auth, Authenticator, principalOf, TokenFile } from './auth.js'
import { authEnabled, type SecurityConfig } from '../../config/security.js'
import { protectiveHeaders, securityHeaders } from './headers.js'
import { allowedHosts, hostCheck, type HostAllowList } from './hosts.js'
import { AuthFailureBudget } from './auth-failures.js'
import { JwtVerifier } from './jwt.js'
import { rateLimit } from './rate-limit.js'
import { adminLoopback } from './admin-loopback.js'
import { rejecter } from './reject.js'
import type { RequestStart } from '../routes/index.js'

export interface SecurityPluginOptions {
  config: SecurityConfig
  /** The Host header values answered; undefined for any. */
  hosts: HostAllowList | undefined
  /** Which service answers a path no route serves: refusals of such requests take its shape. */
  mounts: MountTable
  /** The server's one hook of synchronous start steps: the Host check and the headers run in it. */
  start?: RequestStart
}

/** The options for `app.register(security, …)` from the server's settings (no service's section). */
export function securityPluginOptions (config: Pick<CoreConfig, 'security' | 'host' | 'publicUrl'>, mounts: MountTable): SecurityPluginOptions {
  return { config: config.security, hosts: allowedHosts(config.security.allowedHosts, config.host, config.publicUrl), mounts }
}

/**
 * Security and operations (issue 11), each part a plugin of its own and
 * registered only when switched on, in the order a request meets them:
 * the Host check, protective or security headers, CORS (preflights answered here), overload shedding,
 * rate limits (which identify the client), authentication and scopes (on
 * every route, as it declares), then the audit log. Register it before the routes.
 * A feature that is off is not even loaded (its library neither: jose, CORS,
 * under-pressure), so a default server holds none of them.
 */
async function securityPlugin (app: FastifyInstance, { config, hosts, mounts, start }: SecurityPluginOptions): Promise<void> {
  const reject = rejecter(mounts)
  if (hosts !== undefined) await app.register(hostCheck, { hosts, reject, start })
  const authenticator = authEnabled(config) ? await createAuthenticator(config) : undefined
  // Features that hold a principal beyond one request (the change feed's streams) check it again through this.
  if (authenticator !== undefined) app.decorate('authenticator', authenticator)
  // The scope check is added to each route as it is registered, so it comes first, to see every route (CORS adds
  // one). Requests still meet it after the hooks below: a route's own hooks run after the server-wide ones.
  if (authenticator !== undefined) await app.register(auth, { authenticator, publicRead: config.authPublicRead, reject })
  // Without authentication, `admin` routes (webhooks) answer this machine only, unless the operator says otherwise.
  else if (!config.adminAnyAddress) await app.register(adminLoopback, { reject })
  if (config.securityHeaders) await app.register(securityHeaders, { start })
  else if (config.protectiveHeaders) await app.register(protectiveHeaders, { start })
  if (config.corsOrigins !== undefined) {
    const { cors } = await import('./cors.js')
    await app.register(cors, { origins: config.corsOrigins })
  }
  if (config.overload) {
    const { overload } = await import('./overload.js')
    await app.register(overload, {
      maxEventLoopDelayMs: config.maxEventLoopDelayMs,
      maxHeapUsedBytes: config.maxHeapUsedBytes,
      maxRssBytes: config.maxRssBytes,
      sampleIntervalMs: config.overloadSampleIntervalMs,
      reject
    })
  }
  if (config.rateLimit !== undefined) await app.register(rateLimit, { limit: config.rateLimit, redisUrl: config.redisUrl, authenticator, reject })
  if (config.auditLog) await app.register(audit, { principalOf })
}

async function createAuthenticator (config: SecurityConfig): Promise<Authenticator> {
  const tokenFile = config.authTokensFile === undefined ? undefined : await TokenFile.open(config.authTokensFile)
  const jwt = config.authJwksUrl === undefined || config.authIssuer === undefined || config.authAudience === undefined
    ? undefined
    : await JwtVerifier.open({ jwksUrl: config.authJwksUrl, issuer: config.authIssuer, audience: config.authAudience, cooldownMs: config.authJwksCooldownMs, rolesClaim: config.authRolesClaim ?? 'roles' })
  return new Authenticator(tokenFile, jwt, new AuthFailureBudget(config.authFailureLimit))
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Who sent a request, and whether that still holds; present when authentication is on. */
    authenticator?: Authenticator
  }
}

export const security = fp(securityPlugin, { name: 'rqs-security', fastify: '5.x' })
