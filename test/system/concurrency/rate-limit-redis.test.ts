import { randomUUID } from 'node:crypto'
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { bearer, expectShape, security, writeTokensFile, type TokensFile } from '../../http/security/helpers.js'

/** Rate limits shared through Redis by several instances, and what happens while Redis is cut off (test/http/security/rate-limit.test.ts has the rest). */
const REDIS_URL = process.env.RQS_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const MINUTE = 60_000

async function redisReachable (): Promise<boolean> {
  const { hostname, port } = new URL(REDIS_URL)
  return await new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) })
    socket.setTimeout(1000)
    socket.once('connect', () => { socket.end(); resolve(true) })
    socket.once('error', () => resolve(false))
    socket.once('timeout', () => { socket.destroy(); resolve(false) })
  })
}

const hasRedis = await redisReachable()
const title = hasRedis ? 'several instances sharing Redis (--redis)' : `several instances sharing Redis: SKIPPED because nothing answers at ${REDIS_URL} (set RQS_TEST_REDIS_URL)`

describe.skipIf(!hasRedis)(title, () => {
  let a: RunningServer
  let b: RunningServer
  let tokens: TokensFile
  // A principal name of its own, so parallel runs on one Redis do not share a counter.
  const client = `client-${randomUUID()}`

  beforeAll(async () => {
    tokens = await writeTokensFile({ [client]: ['read'] })
    const options = security({ rateLimit: { max: 3, windowMs: MINUTE }, redisUrl: REDIS_URL, authTokensFile: tokens.path })
    a = await startServer({ security: options })
    b = await startServer({ security: options })
  })
  afterAll(async () => {
    await a?.close()
    await b?.close()
    await tokens?.remove()
  })

  it('share one budget: 2 requests on one instance and 1 on the other use it up, the next on either is 429', async () => {
    const token = tokens.tokens[client] as string
    const at = async (server: RunningServer): Promise<Awaited<ReturnType<typeof request>>> => await request(`${server.origin}/students`, { headers: bearer(token) })
    expect((await at(a)).headers.get('ratelimit')).toMatch(/r=2;/)
    expect((await at(b)).headers.get('ratelimit')).toMatch(/r=1;/)
    expect((await at(a)).status).toBe(200)
    expectShape(await at(b), 'envelope', 429, 'RATE_LIMITED')
    expectShape(await at(a), 'envelope', 429, 'RATE_LIMITED')
  })

  it('lets requests through while Redis is unreachable, and limits again once it is back', async () => {
    // A TCP relay in front of Redis that the test can cut.
    const { hostname, port } = new URL(REDIS_URL)
    const sockets = new Set<Socket>()
    let open = true
    const relay = createServer((client) => {
      if (!open) { client.destroy(); return }
      const upstream = createConnection({ host: hostname, port: Number(port || 6379) })
      for (const s of [client, upstream]) { sockets.add(s); s.on('error', () => {}); s.on('close', () => sockets.delete(s)) }
      client.pipe(upstream).pipe(client)
    })
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve))
    const relayUrl = `redis://127.0.0.1:${(relay.address() as AddressInfo).port}`
    const name = `cut-${randomUUID()}`
    const cutTokens = await writeTokensFile({ [name]: ['read'] })
    const server = await startServer({ security: security({ rateLimit: { max: 1, windowMs: MINUTE }, redisUrl: relayUrl, authTokensFile: cutTokens.path }) })
    try {
      const status = async (): Promise<number> => (await request(`${server.origin}/students`, { headers: bearer(cutTokens.tokens[name] as string) })).status
      expect([await status(), await status()]).toEqual([200, 429])
      open = false
      for (const s of sockets) s.destroy()
      expect([await status(), await status(), await status()]).toEqual([200, 200, 200])
      // Issue 19: nobody counts meanwhile, so no header claims a budget (they said r=1;t=0 before).
      const during = await request(`${server.origin}/students`, { headers: bearer(cutTokens.tokens[name] as string) })
      expect(during.status).toBe(200)
      expect(during.headers.get('ratelimit')).toBeNull()
      expect(during.headers.get('ratelimit-policy')).toBeNull()
      open = true
      await expect.poll(status, { timeout: 15_000, interval: 200 }).toBe(429)
    } finally {
      await server.close()
      for (const s of sockets) s.destroy()
      relay.close()
      await cutTokens.remove()
    }
  }, 30_000)
})
