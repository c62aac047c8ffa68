import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../helpers/server.js'
import { expectShape, security } from '../http/security/helpers.js'

let server: RunningServer
const logLines: string[] = []

beforeAll(async () => {
  // The server runs in this process, so blocking this event loop blocks the server's.
  server = await startServer(
    { logLevel: 'warn', security: security({ overload: true, maxEventLoopDelayMs: 100, overloadSampleIntervalMs: 100, metrics: true }) },
    { logStream: { write: (line: string) => { logLines.push(line) } } }
  )
})
afterAll(async () => { await server?.close() })

/** Keeps the event loop busy in slices of 250 ms, as CPU-bound work would, while `work` runs in the gaps. */
async function whileBusy<T> (work: () => Promise<T>): Promise<T> {
  let busy = true
  const hog = (): void => {
    if (!busy) return
    const end = Date.now() + 250
    while (Date.now() < end) { /* busy */ }
    setTimeout(hog, 5)
  }
  hog()
  try {
    // The check samples every 100 ms: wait until it has seen the busy loop.
    await expect.poll(async () => (await request(`${server.origin}/students`)).status, { timeout: 10_000, interval: 50 }).toBe(503)
    return await work()
  } finally {
    busy = false
  }
}

async function get (path: string, init: RequestInit & { json?: unknown } = {}): Promise<Awaited<ReturnType<typeof request>>> {
  return await request(`${server.origin}${path}`, init)
}

describe('overload shedding (--overload, @fastify/under-pressure)', () => {
  it('a blocked event loop gives 503 + Retry-After in each service shape, /readyz 503; /healthz and /metrics still answer', async () => {
    // Start-up itself (module loading, compilation) may have kept the loop busy: wait until that has passed.
    await expect.poll(async () => (await request(`${server.origin}/students`)).status, { timeout: 10_000, interval: 100 }).toBe(200)
    const [students, addresses, graphql, ready, health, metrics] = await whileBusy(async () => [
      await get('/students'),
      await get('/addresses'),
      await get('/graphql', { method: 'POST', json: { query: '{ albums { title } }' } }),
      await get('/readyz'),
      await get('/healthz'),
      await get('/metrics')
    ])
    for (const [res, shape] of [[students, 'envelope'], [addresses, 'problem'], [graphql, 'graphql']] as const) {
      expectShape(res, shape, 503, 'OVERLOADED')
      expect(res.headers.get('retry-after')).toBe('5')
      // Issue 19: which limit was passed is for the operators (log, /metrics), not for anonymous clients.
      expect(res.text).toContain('The server is overloaded; retry in 5 s')
      expect(res.text).not.toMatch(/eventLoop|heapUsed|rss/i)
    }
    expect(logLines.some((line) => line.includes('"type":"eventLoopDelay"') && line.includes('overloaded: refusing requests'))).toBe(true)
    expect(metrics?.text).toMatch(/rqs_overload_refusals_total\{reason="eventLoopDelay"\} [1-9]/)
    expect(ready?.status).toBe(503)
    expect(ready?.body).toEqual({ status: 'unavailable' })
    expect(ready?.headers.get('retry-after')).toBe('5')
    expect(health?.status).toBe(200)
    expect(metrics?.status).toBe(200)
    expect(metrics?.text).toMatch(/rqs_rejected_requests_total\{code="OVERLOADED"\} [1-9]/)
  })

  it('recovers by itself once the event loop is free again', async () => {
    await whileBusy(async () => await get('/students'))
    await expect.poll(async () => (await request(`${server.origin}/students`)).status, { timeout: 10_000, interval: 100 }).toBe(200)
    expect((await request(`${server.origin}/readyz`)).status).toBe(200)
  })
})
