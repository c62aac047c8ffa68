import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resolveConfig } from '../../../src/options.js'
import { AuthFailureBudget } from '../../../src/http/security/auth-failures.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { bearer, expectShape, security, writeTokensFile, type TokensFile } from './helpers.js'

/**
 * Issue 19, item 9: refused tokens on /metrics were never rate limited (it
 * is exempt from --rate-limit), so anyone could try tokens there as fast as
 * the server answered. Now every address has a budget of refused tokens
 * (--auth-failure-limit), on every route, with or without --rate-limit.
 */

let tokens: TokensFile<'scraper' | 'reader'>
let server: RunningServer

beforeAll(async () => {
  tokens = await writeTokensFile({ scraper: ['metrics'], reader: ['read'] })
  // X-Forwarded-For is believed here, so one test process can speak from several addresses.
  server = await startServer({ security: security({ authTokensFile: tokens.path, metrics: true, trustProxy: true, authFailureLimit: { max: 3, windowMs: 60_000 } }) })
})
afterAll(async () => {
  await server?.close()
  await tokens?.remove()
})

function from (address: string, headers: Record<string, string> = {}): RequestInit {
  return { headers: { 'x-forwarded-for': address, ...headers } }
}

describe('the budget of refused tokens per address (--auth-failure-limit)', () => {
  it('/metrics: after 3 refused tokens the 4th try is 429 with Retry-After, and even the right token is refused unread', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await request(`${server.origin}/metrics`, from('198.51.100.1', bearer(`rqs_guess${i}`)))
      expectShape(res, 'problem', 401, 'UNAUTHENTICATED')
    }
    const fourth = await request(`${server.origin}/metrics`, from('198.51.100.1', bearer('rqs_guess3')))
    expectShape(fourth, 'problem', 429, 'RATE_LIMITED')
    expect(Number(fourth.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(Number(fourth.headers.get('retry-after'))).toBeLessThanOrEqual(60)
    // A right guess now would tell nothing: it is not checked.
    expectShape(await request(`${server.origin}/metrics`, from('198.51.100.1', bearer(tokens.tokens.scraper))), 'problem', 429, 'RATE_LIMITED')
  })

  it('counts on every route and answers in each service\'s shape', async () => {
    for (let i = 0; i < 3; i++) await request(`${server.origin}/students`, from('198.51.100.2', bearer(`rqs_guess${i}`)))
    expectShape(await request(`${server.origin}/students`, from('198.51.100.2', bearer(tokens.tokens.reader))), 'envelope', 429, 'RATE_LIMITED')
    const query = { method: 'POST', json: { query: '{ albums { title } }' }, ...from('198.51.100.2', bearer(tokens.tokens.reader)) }
    expectShape(await request(`${server.origin}/graphql`, query), 'graphql', 429, 'RATE_LIMITED')
  })

  it('touches nobody else: other addresses, and requests without a token from the same one', async () => {
    for (let i = 0; i < 4; i++) await request(`${server.origin}/metrics`, from('198.51.100.3', bearer(`rqs_guess${i}`)))
    expect((await request(`${server.origin}/metrics`, from('198.51.100.4', bearer(tokens.tokens.scraper)))).status).toBe(200)
    expectShape(await request(`${server.origin}/students`, from('198.51.100.3')), 'envelope', 401, 'UNAUTHENTICATED')
    expect((await request(`${server.origin}/healthz`, from('198.51.100.3'))).status).toBe(200)
  })

  it('does not count credentials of another scheme (they are no token) nor accepted tokens', async () => {
    for (let i = 0; i < 5; i++) {
      await request(`${server.origin}/students`, from('198.51.100.5', { authorization: 'Basic YWRhOmxvdmVsYWNl' }))
      await request(`${server.origin}/students`, from('198.51.100.5', bearer(tokens.tokens.reader)))
    }
    expect((await request(`${server.origin}/students`, from('198.51.100.5', bearer(tokens.tokens.reader)))).status).toBe(200)
  })

  it('ends with its window', async () => {
    const short = await startServer({ security: security({ authTokensFile: tokens.path, authFailureLimit: { max: 1, windowMs: 1000 } }) })
    try {
      expect((await request(`${short.origin}/students`, { headers: bearer('rqs_guess') })).status).toBe(401)
      expect((await request(`${short.origin}/students`, { headers: bearer(tokens.tokens.reader) })).status).toBe(429)
      await expect.poll(async () => (await request(`${short.origin}/students`, { headers: bearer(tokens.tokens.reader) })).status, { timeout: 5000, interval: 250 }).toBe(200)
    } finally {
      await short.close()
    }
  })

  it('is read from --auth-failure-limit / RQS_AUTH_FAILURE_LIMIT, 30 a minute by default', () => {
    expect(resolveConfig({}, {}).security.authFailureLimit).toEqual({ max: 30, windowMs: 60_000 })
    expect(resolveConfig({ 'auth-failure-limit': '5/10s' }, {}).security.authFailureLimit).toEqual({ max: 5, windowMs: 10_000 })
    expect(resolveConfig({}, { RQS_AUTH_FAILURE_LIMIT: '100/hour' }).security.authFailureLimit).toEqual({ max: 100, windowMs: 3_600_000 })
    expect(() => resolveConfig({ 'auth-failure-limit': 'lots' }, {})).toThrow(/--auth-failure-limit/)
  })
})

describe('AuthFailureBudget', () => {
  it('keeps fixed windows per address and forgets ended ones', () => {
    let now = 0
    const budget = new AuthFailureBudget({ max: 2, windowMs: 10_000 }, () => now)
    budget.fail('a')
    expect(budget.retryAfter('a')).toBe(0)
    budget.fail('a')
    expect(budget.retryAfter('a')).toBe(10)
    now = 9_001
    expect(budget.retryAfter('a')).toBe(1)
    now = 10_000
    expect(budget.retryAfter('a')).toBe(0)
    budget.fail('a')
    expect(budget.retryAfter('a')).toBe(0)
  })

  it('stays bounded when many addresses fail: the oldest window goes first', () => {
    let now = 0
    const budget = new AuthFailureBudget({ max: 1, windowMs: 60_000 }, () => now)
    for (let i = 0; i <= 10_000; i++) {
      budget.fail(`10.0.${i >> 8}.${i & 255}`)
      now++
    }
    expect(budget.retryAfter('10.0.0.0')).toBe(0) // dropped to make room
    expect(budget.retryAfter('10.0.39.16')).toBeGreaterThan(0) // the newest, i = 10000
  })
})
