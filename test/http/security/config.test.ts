import { describe, expect, it } from 'vitest'
import { ConfigError, resolveConfig } from '../../../src/options.js'
import { defaultSecurityConfig } from '../../../src/config/security.js'

describe('security options', () => {
  it('are all off by default, but for the protective headers, the Host check (issue 19) and the failure budget (which needs authentication)', () => {
    expect(resolveConfig({}, {}).security).toEqual(defaultSecurityConfig())
    expect(defaultSecurityConfig()).toMatchObject({ authPublicRead: false, protectiveHeaders: true, securityHeaders: false, trustProxy: false, overload: false, metrics: false, auditLog: false })
    expect(defaultSecurityConfig().allowedHosts).toBeUndefined()
    expect(defaultSecurityConfig().rateLimit).toBeUndefined()
    expect(defaultSecurityConfig().corsOrigins).toBeUndefined()
  })

  it('come from flags and environment variables', () => {
    const config = resolveConfig({ 'rate-limit': '600/min', 'cors-origin': 'https://a.example,http://localhost:3000', 'trust-proxy': '10.0.0.0/8,loopback', 'max-event-loop-delay': '250' }, {
      RQS_AUTH_JWKS: 'https://idp.example/.well-known/jwks.json',
      RQS_AUTH_ISSUER: 'https://idp.example/',
      RQS_AUTH_AUDIENCE: 'rqs',
      RQS_METRICS: 'true',
      RQS_MAX_RSS: '2gb',
      RQS_REDIS_URL: 'redis://127.0.0.1:6379'
    })
    expect(config.security).toMatchObject({
      rateLimit: { max: 600, windowMs: 60_000 },
      corsOrigins: ['https://a.example', 'http://localhost:3000'],
      trustProxy: ['10.0.0.0/8', 'loopback'],
      overload: true,
      maxEventLoopDelayMs: 250,
      maxRssBytes: 2 * 1024 ** 3,
      authJwksUrl: 'https://idp.example/.well-known/jwks.json',
      authIssuer: 'https://idp.example/',
      authAudience: 'rqs',
      metrics: true,
      redisUrl: 'redis://127.0.0.1:6379'
    })
    expect(resolveConfig({ 'cors-origin': '*', 'trust-proxy': 'true', 'rate-limit': '100/15min' }, {}).security).toMatchObject({ corsOrigins: '*', trustProxy: true, rateLimit: { max: 100, windowMs: 900_000 } })
  })

  const invalid: Array<[string, Record<string, string | boolean>, RegExp]> = [
    ['JWT options without their partners', { 'auth-jwks': 'https://idp.example/jwks' }, /--auth-jwks, --auth-issuer and --auth-audience go together/],
    ['a JWKS URL that is not http(s)', { 'auth-jwks': 'ftp://x' }, /--auth-jwks must be a http or https URL/],
    ['a bad rate', { 'rate-limit': 'lots' }, /--rate-limit must be REQUESTS\/WINDOW/],
    ['a zero rate', { 'rate-limit': '0/min' }, /at least 1 request/],
    ['a CORS origin with a path', { 'cors-origin': 'https://a.example/app' }, /is not an origin/],
    ['--redis without --rate-limit', { redis: 'redis://127.0.0.1:6379' }, /--redis holds the rate-limit counters/],
    ['--redis that is not a Redis URL', { redis: 'http://x', 'rate-limit': '1/s' }, /--redis must be a redis or rediss URL/],
    ['--auth-public-read alone', { 'auth-public-read': true }, /--auth-public-read needs/],
    ['a hop count for --trust-proxy (not checkable)', { 'trust-proxy': '2' }, /--trust-proxy must be true, false, or the proxies' addresses/],
    ['an event-loop delay of 0', { 'max-event-loop-delay': '0' }, /--max-event-loop-delay must be at least 1/]
  ]
  for (const [name, flags, message] of invalid) {
    it(`refuses ${name}`, () => {
      expect(() => resolveConfig(flags, {})).toThrow(ConfigError)
      expect(() => resolveConfig(flags, {})).toThrow(message)
    })
  }
})
