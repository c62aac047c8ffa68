import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { resolveConfig } from '../../../src/options.js'
import { contentSecurityPolicy, helmetHeaders } from '../../../src/http/security/headers.js'
import { security, writeTokensFile, type TokensFile } from './helpers.js'

const ada = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }

/** The names of every hook on every route, as Fastify prints them, and of the steps the server's start hook runs. */
function hookNames (server: RunningServer): Set<string> {
  const printed = server.app.printRoutes({ includeHooks: true, commonPrefix: false })
  return new Set([...[...printed.matchAll(/"([A-Za-z0-9_$]+)\(\)"/g)].map((m) => m[1] as string), ...server.app.requestStart?.names ?? []])
}

describe('with no security option (npm start)', () => {
  let server: RunningServer
  beforeAll(async () => { server = await startServer() })
  afterAll(async () => { await server?.close() })

  it('registers no hook of its own on any route but the Host check and the protective headers (issue 19)', () => {
    // The server's own hooks (its start: the deadline's watch and the request id, each representation's negotiation, compression, the read budget's deadline and its release), Fastify's HEAD handler, the two on by default (issue 19),
    // the Content-Encoding and Content-Type check of routes that take content (issue 19), the change feed's
    // route closing the connection of every answer that is not a stream, and the record routes' own check of a
    // write's members (POST, PUT, PATCH: an undeclared member is refused, not dropped).
    expect([...hookNames(server)].sort()).toEqual(['addPagePolicy', 'addProtectiveHeaders', 'anonymous', 'checkBodyMembers', 'checkHost', 'closeConnection', 'headRouteOnSendHandler', 'negotiateRepresentation', 'onRequest', 'onSend', 'readContentHeaders', 'requestStart', 'watchRequest'])
    for (const hook of ['checkAccess', 'limitRate', 'addSecurityHeaders', 'varyByOrigin', 'observeRequest', 'audit']) expect(hookNames(server)).not.toContain(hook)
  })

  it('decides per route, as it is added, which routes carry the page policy: pages do, routes that answer data only do not (issue 35)', () => {
    const printed = server.app.printRoutes({ includeHooks: true, commonPrefix: false }).split('\n')
    const hooksOf = (route: RegExp): string => {
      const at = printed.findIndex((line) => route.test(line))
      expect(at, String(route)).toBeGreaterThanOrEqual(0)
      return printed[at + 1] ?? ''
    }
    expect(hooksOf(/\/:id \(GET\) \{"apiVersion":"1"\}/)).not.toContain('addPagePolicy')
    expect(hooksOf(/graphql \(GET\)/)).not.toContain('addPagePolicy')
    expect(hooksOf(/graphiql \(GET\)/)).toContain('addPagePolicy')
  })

  it('runs the synchronous steps of every request\'s start in one onRequest hook, in their order (issue 35)', () => {
    // Fastify's hook runner costs each hook a call, a sent-check and a step of its iteration: a record read meets two hooks, not four.
    expect(server.app.requestStart?.names).toEqual(['watchRequest', 'checkHost', 'addProtectiveHeaders'])
    const printed = server.app.printRoutes({ includeHooks: true, commonPrefix: false }).split('\n')
    const at = printed.findIndex((line) => /\/:id \(GET\) \{"apiVersion":"1"\}/.test(line))
    expect(printed[at + 1]).toContain('(onRequest) ["requestStart()","negotiateRepresentation()"]')
    // No onResponse hook on a read by id: Fastify, given no logger, then arms no listeners on its response.
    expect(printed[at + 2]).not.toContain('(onResponse)')
    expect(printed[at + 2]).toMatch(/\/:id \(HEAD\)/)
  })

  it('answers as the spec says: no token needed, no rate limit headers, no /metrics, no CORS', async () => {
    const created = await request(`${server.origin}/students`, { method: 'POST', json: ada })
    expect(created.status).toBe(201)
    for (const header of ['referrer-policy', 'ratelimit', 'ratelimit-policy', 'www-authenticate', 'access-control-allow-origin']) {
      expect(created.headers.get(header), header).toBeNull()
    }
    expect((await request(`${server.origin}/metrics`)).status).toBe(404)
    expect((await request(`${server.origin}/graphql`, { method: 'OPTIONS', headers: { origin: 'https://a.example', 'access-control-request-method': 'POST' } })).status).toBe(405)
  })
})

/**
 * Issue 19, item 8: without --security-headers, /app/ could be framed
 * (clickjacking) and nothing said nosniff. Now every answer says nosniff
 * and refuses framing, and pages carry the Content-Security-Policy.
 */
describe('the protective headers, on by default', () => {
  let server: RunningServer
  beforeAll(async () => { server = await startServer() })
  afterAll(async () => { await server?.close() })

  const PAGES: Array<[string, RequestInit]> = [
    ['/app/', {}], ['/', { headers: { accept: 'text/html' } }], ['/graphiql', {}], ['/docs/', {}], ['/docs/api/', {}], ['/errors', { headers: { accept: 'text/html' } }],
    ['/students/assets/index.html', {}]
  ]
  for (const [path, init] of PAGES) {
    it(`the page ${path}: nosniff, no framing (X-Frame-Options and frame-ancestors), the Content-Security-Policy`, async () => {
      const res = await request(`${server.origin}${path}`, init)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^text\/html/)
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('x-frame-options')).toBe('DENY')
      expect(res.headers.get('content-security-policy')).toBe(contentSecurityPolicy())
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
      // The rest of helmet's set stays with --security-headers.
      expect(res.headers.get('referrer-policy')).toBeNull()
    })
  }

  it('JSON answers and errors of every service: nosniff and no framing, without the page policy\'s bytes on the REST answers', async () => {
    await request(`${server.origin}/students`, { method: 'POST', json: ada })
    for (const path of ['/students/0', '/v2/students/0', '/addresses', '/students/99', '/addresses/x']) {
      const res = await request(`${server.origin}${path}`)
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff')
      expect(res.headers.get('x-frame-options'), path).toBe('DENY')
      expect(res.headers.get('content-security-policy'), path).toBeNull()
    }
    for (const [path, init] of [['/graphql', { method: 'POST', json: { query: '{ albums { title } }' } }], ['/nowhere', {}], ['/healthz', {}]] as const) {
      const res = await request(`${server.origin}${path}`, init)
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff')
      expect(res.headers.get('x-frame-options'), path).toBe('DENY')
    }
    // The GraphQL endpoint declares it answers data only (a browser is sent to the editor): no page policy either.
    for (const init of [{ method: 'POST', json: { query: '{ albums { title } }' } }, { method: 'GET' }] as const) {
      const res = await request(`${server.origin}/graphql?query=${encodeURIComponent('{ albums { title } }')}`, init)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-security-policy')).toBeNull()
    }
  })
})

describe('--no-security-headers', () => {
  let server: RunningServer
  beforeAll(async () => { server = await startServer({ security: security({ protectiveHeaders: false, allowedHosts: '*' }) }) })
  afterAll(async () => { await server?.close() })

  it('sends none of them, and with --allowed-hosts * the server adds no hook of its own', async () => {
    for (const path of ['/app/', '/students']) {
      const res = await request(`${server.origin}${path}`)
      for (const header of ['content-security-policy', 'x-content-type-options', 'x-frame-options']) expect(res.headers.get(header), `${path} ${header}`).toBeNull()
    }
    // What remains are the server's own (see above): no security hook.
    expect([...hookNames(server)].sort()).toEqual(['anonymous', 'checkBodyMembers', 'closeConnection', 'headRouteOnSendHandler', 'negotiateRepresentation', 'onRequest', 'onSend', 'readContentHeaders', 'requestStart', 'watchRequest'])
  })

  it('is the flag --no-security-headers or RQS_NO_SECURITY_HEADERS; it contradicts --security-headers', () => {
    expect(resolveConfig({}, {}).security.protectiveHeaders).toBe(true)
    expect(resolveConfig({ 'no-security-headers': true }, {}).security.protectiveHeaders).toBe(false)
    expect(resolveConfig({}, { RQS_NO_SECURITY_HEADERS: 'true' }).security.protectiveHeaders).toBe(false)
    expect(() => resolveConfig({ 'no-security-headers': true, 'security-headers': true }, {})).toThrow(/contradict/)
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

  it('the page policy of the default set is the same policy', () => {
    expect(helmetHeaders()['content-security-policy']).toBe(contentSecurityPolicy())
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
