import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { helmetHeaders } from '../../../src/http/security/headers.js'
import { security, writeTokensFile, type TokensFile } from './helpers.js'

const ada = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }

/** The names of every hook on every route, as Fastify prints them. */
function hookNames (server: RunningServer): Set<string> {
  const printed = server.app.printRoutes({ includeHooks: true, commonPrefix: false })
  return new Set([...printed.matchAll(/"([A-Za-z0-9_$]+)\(\)"/g)].map((m) => m[1] as string))
}

describe('with no security option (npm start)', () => {
  let server: RunningServer
  beforeAll(async () => { server = await startServer() })
  afterAll(async () => { await server?.close() })

  it('registers no hook of its own on any route: the request path costs what it did', () => {
    // The server's own hooks (request id, mounts, compression) and Fastify's HEAD handler: all there was before issue 11;
    // since issue 19 routes that take content also read Content-Encoding and Content-Type before parsing,
    // and the change feed's route closes the connection of every answer that is not a stream.
    expect([...hookNames(server)].sort()).toEqual(['anonymous', 'closeConnection', 'headRouteOnSendHandler', 'onRequest', 'onSend', 'readContentHeaders'])
    for (const hook of ['checkAccess', 'limitRate', 'addSecurityHeaders', 'varyByOrigin', 'observeRequest', 'audit']) expect(hookNames(server)).not.toContain(hook)
  })

  it('answers as the spec says: no token needed, no extra headers, no /metrics, no CORS', async () => {
    const created = await request(`${server.origin}/students`, { method: 'POST', json: ada })
    expect(created.status).toBe(201)
    for (const header of ['content-security-policy', 'x-content-type-options', 'x-frame-options', 'referrer-policy', 'ratelimit', 'ratelimit-policy', 'www-authenticate', 'access-control-allow-origin']) {
      expect(created.headers.get(header), header).toBeNull()
    }
    expect((await request(`${server.origin}/metrics`)).status).toBe(404)
    expect((await request(`${server.origin}/graphql`, { method: 'OPTIONS', headers: { origin: 'https://a.example', 'access-control-request-method': 'POST' } })).status).toBe(405)
  })
})

describe('with every option on', () => {
  let server: RunningServer
  let tokens: TokensFile<'ci'>
  beforeAll(async () => {
    tokens = await writeTokensFile({ ci: ['read', 'write', 'metrics'] })
    server = await startServer({
      security: security({ authTokensFile: tokens.path, corsOrigins: '*', securityHeaders: true, rateLimit: { max: 100, windowMs: 60_000 }, overload: true, metrics: true, auditLog: true })
    })
  })
  afterAll(async () => {
    await server?.close()
    await tokens?.remove()
  })

  it('each feature hooks in by name (so the check above would see one)', () => {
    expect([...hookNames(server)]).toEqual(expect.arrayContaining([
      'addSecurityHeaders', 'handleCors', 'varyByOrigin', 'onRequest', 'limitRate', 'checkAccess', 'observeRequest', 'audit', 'rememberCreatedId'
    ]))
  })
})

describe('--security-headers', () => {
  let server: RunningServer
  beforeAll(async () => { server = await startServer({ security: security({ securityHeaders: true }) }) })
  afterAll(async () => { await server?.close() })

  it('on every response: nosniff, no-referrer, framing refused, a CSP without inline scripts, no HSTS on plain HTTP', async () => {
    for (const [path, init] of [['/students', {}], ['/nowhere', {}], ['/graphiql', {}], ['/', { headers: { accept: 'text/html' } }], ['/healthz', {}]] as const) {
      const res = await request(`${server.origin}${path}`, init)
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff')
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer')
      expect(res.headers.get('x-frame-options'), path).toBe('DENY')
      const csp = res.headers.get('content-security-policy') ?? ''
      expect(csp, path).toContain("frame-ancestors 'none'")
      expect(csp, path).toContain("script-src 'self';")
      expect(csp, path).toContain("object-src 'none'")
      expect(res.headers.get('strict-transport-security'), path).toBeNull()
    }
  })

  it('are the headers helmet itself sets for these options, worked out once', () => {
    expect(helmetHeaders()).toMatchObject({
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'cross-origin-opener-policy': 'same-origin',
      'content-security-policy': expect.stringContaining("default-src 'self'")
    })
    expect(Object.keys(helmetHeaders())).not.toContain('strict-transport-security')
  })
})
