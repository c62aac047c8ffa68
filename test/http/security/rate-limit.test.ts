import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeConfig } from '../../../src/options.js'
import { buildServer } from '../../../src/server.js'
import { runMain } from '../../helpers/cli.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { bearer, expectShape, security, writeTokensFile, type Shape, type TokensFile } from './helpers.js'

const MINUTE = 60_000

describe('rate limit per client address (--rate-limit 3/min --trust-proxy true)', () => {
  let server: RunningServer
  beforeAll(async () => { server = await startServer({ security: security({ rateLimit: { max: 3, windowMs: MINUTE }, trustProxy: true }) }) })
  afterAll(async () => { await server?.close() })

  const from = (client: string): Record<string, string> => ({ 'x-forwarded-for': client })

  it('counts down in RateLimit, announces RateLimit-Policy, and the 4th request is 429 with Retry-After', async () => {
    for (const remaining of [2, 1, 0]) {
      const res = await request(`${server.origin}/students`, { headers: from('203.0.113.1') })
      expect(res.status).toBe(200)
      expect(res.headers.get('ratelimit-policy')).toBe('"default";q=3;w=60')
      expect(res.headers.get('ratelimit')).toMatch(new RegExp(`^"default";r=${remaining};t=\\d+$`))
    }
    const over = await request(`${server.origin}/students`, { headers: from('203.0.113.1') })
    expectShape(over, 'envelope', 429, 'RATE_LIMITED')
    const retryAfter = Number(over.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(over.headers.get('ratelimit')).toBe(`"default";r=0;t=${retryAfter}`)
    // Another client still has its whole budget.
    expect((await request(`${server.origin}/students`, { headers: from('203.0.113.2') })).headers.get('ratelimit')).toMatch(/r=2;/)
  })

  const shapes: Array<[string, string, RequestInit & { json?: unknown }, Shape]> = [
    ['the v1 envelope', '/v1/students/0', {}, 'envelope'],
    ['problem details (addresses)', '/addresses', {}, 'problem'],
    ['problem details (students v2)', '/students', { headers: { accept: 'application/vnd.rqs.v2+json' } }, 'problem'],
    ['GraphQL errors', '/graphql', { method: 'POST', json: { query: '{ albums { title } }' } }, 'graphql']
  ]
  for (const [name, path, init, shape] of shapes) {
    it(`answers 429 in ${name}`, async () => {
      const client = `198.51.100.${shapes.findIndex((s) => s[0] === name) + 1}`
      let res
      for (let i = 0; i < 4; i++) res = await request(`${server.origin}${path}`, { ...init, headers: { ...(init.headers as object), ...from(client) } })
      expectShape(res as Awaited<ReturnType<typeof request>>, shape, 429, 'RATE_LIMITED')
    })
  }

  it('never limits /healthz and /readyz', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await request(`${server.origin}/healthz`, { headers: from('192.0.2.9') })
      expect(res.status).toBe(200)
      expect(res.headers.get('ratelimit')).toBeNull()
    }
    expect((await request(`${server.origin}/readyz`, { headers: from('192.0.2.9') })).status).toBe(200)
  })
})

describe('without --trust-proxy', () => {
  let server: RunningServer
  beforeAll(async () => { server = await startServer({ security: security({ rateLimit: { max: 2, windowMs: MINUTE } }) }) })
  afterAll(async () => { await server?.close() })

  it('X-Forwarded-For does not count: a client cannot dodge the limit by inventing addresses', async () => {
    const statuses = []
    for (let i = 0; i < 3; i++) statuses.push((await request(`${server.origin}/addresses`, { headers: { 'x-forwarded-for': `10.0.0.${i}` } })).status)
    expect(statuses).toEqual([200, 200, 429])
  })
})

describe('rate limit per principal when authenticated', () => {
  let server: RunningServer
  let tokens: TokensFile
  beforeAll(async () => {
    tokens = await writeTokensFile({ alice: ['read'], bob: ['read'] })
    server = await startServer({ security: security({ rateLimit: { max: 2, windowMs: MINUTE }, authTokensFile: tokens.path }) })
  })
  afterAll(async () => {
    await server?.close()
    await tokens?.remove()
  })

  it('each token has its own budget, from the same address; refused tokens count against the address', async () => {
    const as = async (token: string): Promise<number> => (await request(`${server.origin}/students`, { headers: bearer(token) })).status
    expect([await as(tokens.tokens.alice as string), await as(tokens.tokens.alice as string), await as(tokens.tokens.alice as string)]).toEqual([200, 200, 429])
    expect([await as(tokens.tokens.bob as string), await as(tokens.tokens.bob as string)]).toEqual([200, 200])
    expect([await as('rqs_wrong-1'), await as('rqs_wrong-2'), await as('rqs_wrong-3')]).toEqual([401, 401, 429])
  })
})

describe('--redis that cannot be reached at start-up', () => {
  it('stops start-up with a message naming it', async () => {
    const config = makeConfig({ logLevel: 'silent', security: security({ rateLimit: { max: 3, windowMs: MINUTE }, redisUrl: 'redis://127.0.0.1:1' }) })
    await expect(buildServer(config)).rejects.toThrow(/cannot reach Redis at redis:\/\/127\.0\.0\.1:1 /)
  })

  it('rqs serve: one line naming the URL (without its password), the cause and what to do; exit code 1, no warning before it (issue 19)', async () => {
    const { code, stdout, stderr } = await runMain(['serve', '--port', '0', '--rate-limit', '3/min', '--redis', 'redis://rqs:secret@127.0.0.1:1/2'], { RQS_LOG_FORMAT: 'json' })
    expect(code).toBe(1)
    expect(stderr).toBe('rqs: could not start: cannot reach Redis at redis://127.0.0.1:1/2 for --redis (connect ECONNREFUSED 127.0.0.1:1): start Redis there, or give the right URL with --redis / RQS_REDIS_URL\n')
    expect(stderr).not.toContain('Connection is closed')
    expect(stdout).not.toContain('Redis')
  })
})
