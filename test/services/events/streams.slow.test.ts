import { createServer, type Server } from 'node:http'
import net, { type AddressInfo } from 'node:net'
import { readFile, writeFile } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import { ConfigError } from '../../../src/config.js'
import { resolveConfig, type ConfigOverrides } from '../../../src/options.js'
import { feedStreamCap } from '../../../src/services/events/config.js'
import { StoreUnavailableError } from '../../../src/domain/index.js'
import type { ChangeLog } from '../../../src/domain/index.js'
import { keptAliveGet } from '../../helpers/kept-alive.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { connectFeed, type FeedConnection } from '../../helpers/sse.js'
import { bearer, security, writeTokensFile } from '../../http/security/helpers.js'
import { memoryStores } from '../../helpers/built-ins.js'

/**
 * The change feed's streams are bounded (issue 19): per client and in all,
 * so that streams never take every connection the server accepts; and in
 * time — a stream ends at its maximum age, when its token is withdrawn, and
 * when its JWT expires, each time with a last `event: end` saying why.
 */

let server: RunningServer | undefined
const cleanups: Array<() => unknown> = []

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await server?.close()
  server = undefined
})

async function start (overrides: ConfigOverrides = {}, stores = memoryStores()): Promise<RunningServer> {
  server = await startServer(overrides, { stores })
  return server
}

async function feed (headers: Record<string, string> = {}, path = '/events'): Promise<FeedConnection> {
  const connection = await connectFeed(`${(server as RunningServer).origin}${path}`, headers)
  cleanups.push(() => { connection.close() })
  return connection
}

/** Opens a stream and waits until it is live. */
async function live (headers: Record<string, string> = {}): Promise<FeedConnection> {
  const connection = await feed(headers)
  expect(connection.status).toBe(200)
  await connection.waitForEvent('ready')
  return connection
}

/** The stream's last event, which must be `end`, as its reason. */
async function endReason (connection: FeedConnection): Promise<string> {
  await connection.ended
  const last = connection.events.at(-1)
  expect(last?.event).toBe('end')
  expect(last?.id).toBeUndefined() // the client's Last-Event-ID stays where it was
  return JSON.parse(last?.data as string).reason
}

const subscribers = (): number | undefined => server?.app.changeFeed?.subscribers

describe('stream limits', () => {
  it('a client past its streams gets 429 FEED_TOO_MANY_STREAMS (problem, en/de, Retry-After) and its connection is closed; an ended stream gives its slot back', async () => {
    const { origin } = await start({ events: { maxStreamsPerClient: 2 } })
    const first = await live()
    await live()

    const refused = await request(`${origin}/events`, { headers: { accept: 'text/event-stream', 'accept-language': 'de' } })
    expect(refused.status).toBe(429)
    expect(refused.headers.get('content-type')).toBe('application/problem+json; charset=utf-8')
    expect(refused.headers.get('retry-after')).toBe('30')
    expect(refused.body).toMatchObject({
      type: '/errors/FEED_TOO_MANY_STREAMS',
      status: 429,
      title: 'Zu viele offene Feeds',
      detail: expect.stringContaining('already holds 2 change-feed streams'),
      errors: [{ error: 'FEED_TOO_MANY_STREAMS' }]
    })
    // On a kept-alive connection: the server closes it, so a refusal holds no connection.
    const kept = await keptAliveGet(origin, '/events')
    expect(kept.status).toBe(429)
    expect(kept.headers.connection).toBe('close')
    await kept.ended
    // HEAD starts no stream, so it needs no slot.
    expect((await fetch(`${origin}/events`, { method: 'HEAD' })).status).toBe(200)

    first.close()
    await expect.poll(subscribers).toBe(1)
    await live()
    // Other requests are not limited by the feed.
    expect((await request(`${origin}/students`)).status).toBe(200)
  })

  it('past the server\'s streams, 503 FEED_FULL with Retry-After, connection closed; the cap defaults to half of --max-connections', async () => {
    const { origin } = await start({ events: { maxStreams: 3, maxStreamsPerClient: 0 } })
    for (let i = 0; i < 3; i++) await live()
    const refused = await request(`${origin}/events`, { headers: { accept: 'text/event-stream' } })
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('10')
    expect(refused.body).toMatchObject({ type: '/errors/FEED_FULL', title: 'Change feed full', detail: expect.stringContaining('already serves 3 change-feed streams') })
    const kept = await keptAliveGet(origin, '/events')
    expect([kept.status, kept.headers.connection]).toEqual([503, 'close'])
    await kept.ended
    expect(subscribers()).toBe(3)

    const config = (flags: Record<string, string>, env: NodeJS.ProcessEnv = {}): ReturnType<typeof resolveConfig> => resolveConfig(flags, env)
    expect(feedStreamCap(config({}).events, config({}).connections)).toBe(2048)
    const small = config({ 'max-connections': '40' })
    expect(feedStreamCap(small.events, small.connections)).toBe(20)
    const uncapped = config({ 'max-connections': '0' })
    expect(feedStreamCap(uncapped.events, uncapped.connections)).toBe(Infinity)
    const given = config({ 'max-connections': '40' }, { RQS_EVENTS_MAX_STREAMS: '30', RQS_EVENTS_MAX_STREAMS_PER_CLIENT: '3', RQS_EVENTS_MAX_STREAM_AGE_MS: '10m' })
    expect(feedStreamCap(given.events, given.connections)).toBe(30)
    expect([given.events.maxStreamsPerClient, given.events.maxStreamAgeMs]).toEqual([3, 600_000])
    expect(() => config({ 'max-connections': '40', 'events-max-streams': '40' })).toThrow(ConfigError)
    expect(() => config({ 'max-connections': '40', 'events-max-streams': '40' })).toThrow('--events-max-streams (40) must be below --max-connections (40)')
    expect(() => config({ 'events-max-streams': '0' })).toThrow(ConfigError)
  })

  it('gives the slot back when a stream does not start: the store fails, or the client leaves while the start is read', async () => {
    const stores = memoryStores()
    const real = stores.changes
    let window: ChangeLog['window'] = async () => { throw new StoreUnavailableError() }
    const changes: ChangeLog = {
      since: async (after, limit) => await real.since(after, limit),
      window: async () => await window(),
      subscribe: async (listener) => await real.subscribe(listener),
      ofRecord: async (collection, id, limit) => await real.ofRecord(collection, id, limit)
    }
    const { origin } = await start({ events: { maxStreamsPerClient: 1 } }, { ...stores, changes })
    const resume = { accept: 'text/event-stream', 'last-event-id': '0' }
    expect((await request(`${origin}/events`, { headers: resume })).status).toBe(503)
    expect((await request(`${origin}/events`, { headers: resume })).status).toBe(503) // not 429: the first slot came back

    // The client goes away while the server waits for the store: it half-closes (FIN), or resets (RST).
    for (const leave of ['end', 'reset'] as const) {
      let answer: (() => void) | undefined
      window = async () => { await new Promise<void>((resolve) => { answer = resolve }); return await real.window() }
      const seen = new Promise<void>((resolve) => {
        server?.app.server.once('connection', (socket: net.Socket) => { socket.once(leave === 'end' ? 'end' : 'close', () => { resolve() }) })
      })
      const leaving = net.connect(Number(new URL(origin).port), '127.0.0.1')
      leaving.on('error', () => {})
      leaving.write('GET /events HTTP/1.1\r\nhost: localhost\r\naccept: text/event-stream\r\nlast-event-id: 0\r\n\r\n')
      await expect.poll(() => answer !== undefined).toBe(true)
      if (leave === 'end') leaving.end()
      else leaving.resetAndDestroy()
      await seen // the server saw it leave
      window = async () => await real.window()
      answer?.()
      const next = await live({ 'last-event-id': '0' })
      expect(subscribers()).toBe(1)
      next.close()
      await expect.poll(subscribers).toBe(0)
    }
  })

  it('a client is the principal of its token, else its address: each has its own streams; refusals without a valid token close the connection', async () => {
    const tokens = await writeTokensFile({ a: ['read'], b: ['read'] })
    cleanups.push(tokens.remove)
    const { origin } = await start({ events: { maxStreamsPerClient: 1 }, security: security({ authTokensFile: tokens.path, authPublicRead: true, trustProxy: true }) })
    await live(bearer(tokens.tokens.a))
    expect((await feed(bearer(tokens.tokens.a))).status).toBe(429)
    await live(bearer(tokens.tokens.b))
    // Anonymous readers (--auth-public-read) by address, here as the trusted proxy reports it.
    await live({ 'x-forwarded-for': '192.0.2.1' })
    expect((await feed({ 'x-forwarded-for': '192.0.2.1' })).status).toBe(429)
    await live({ 'x-forwarded-for': '192.0.2.2' })
    expect(subscribers()).toBe(4)

    const refused = await keptAliveGet(origin, '/events', bearer('rqs_unknown'))
    expect([refused.status, refused.headers.connection]).toEqual([401, 'close'])
    await refused.ended
  })

  it('with authentication on, a request without a token is refused (401) and its connection closed', async () => {
    const tokens = await writeTokensFile({ a: ['write'] })
    cleanups.push(tokens.remove)
    const { origin } = await start({ security: security({ authTokensFile: tokens.path }) })
    const anonymous = await keptAliveGet(origin, '/events')
    expect([anonymous.status, anonymous.headers.connection]).toEqual([401, 'close'])
    await anonymous.ended
    const unscoped = await keptAliveGet(origin, '/events', bearer(tokens.tokens.a))
    expect([unscoped.status, unscoped.headers.connection]).toEqual([403, 'close'])
    await unscoped.ended
  })
})

describe('streams end by themselves', () => {
  it('at their maximum age, with `event: end` {"reason":"max-age"}; the client resumes from its Last-Event-ID', async () => {
    const { origin } = await start({ events: { maxStreamAgeMs: 300 } })
    const connection = await live()
    await request(`${origin}/students`, { method: 'POST', json: { firstName: 'Ada', lastName: 'Lovelace', age: 36 } })
    await connection.waitFor(2)
    expect(await endReason(connection)).toBe('max-age')
    await expect.poll(subscribers).toBe(0)

    const lastId = connection.events.filter((e) => e.id !== undefined).at(-1)?.id as string
    expect(lastId).toBe('1')
    await request(`${origin}/students`, { method: 'POST', json: { firstName: 'Alan', lastName: 'Turing', age: 41 } })
    const resumed = await live({ 'last-event-id': lastId })
    expect(resumed.events.slice(0, 2).map((e) => [e.id, e.event])).toEqual([['2', 'students.created'], ['2', 'ready']])
  })

  it('when its token leaves the tokens file (SIGHUP): `event: end` {"reason":"revoked"} and no change after; streams of tokens kept go on', async () => {
    const tokens = await writeTokensFile({ ci: ['read'], app: ['read', 'write'] })
    cleanups.push(tokens.remove)
    const { origin } = await start({ security: security({ authTokensFile: tokens.path }) })
    const retired = await live(bearer(tokens.tokens.ci))
    const kept = await live(bearer(tokens.tokens.app))

    // The ci entry goes; the app entry stays as it was (same hash, name and scopes).
    const file = JSON.parse(await readFile(tokens.path, 'utf8'))
    await writeFile(tokens.path, JSON.stringify({ tokens: file.tokens.filter((t: { name: string }) => t.name === 'app') }))
    process.emit('SIGHUP')
    expect(await endReason(retired)).toBe('revoked')
    expect(subscribers()).toBe(1)
    expect((await feed(bearer(tokens.tokens.ci))).status).toBe(401)

    const received = retired.events.length
    expect((await request(`${origin}/students`, { method: 'POST', json: { firstName: 'Ada', lastName: 'Lovelace', age: 36 }, headers: bearer(tokens.tokens.app) })).status).toBe(201)
    await kept.waitForEvent('students.created')
    expect(retired.events).toHaveLength(received)
  })

  it('when its JWT expires (exp, plus the 30 s of clock tolerance requests get): `event: end` {"reason":"expired"}', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256')
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }
    const jwks: Server = createServer((_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })) })
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve))
    cleanups.push(() => { jwks.close() })
    const url = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`
    await start({ security: security({ authJwksUrl: url, authIssuer: 'https://idp.test/', authAudience: 'rqs', authJwksCooldownMs: 0 }) })

    // Expired 28 s ago: still accepted for about 2 s.
    const exp = Math.floor(Date.now() / 1000) - 28
    const token = await new SignJWT({ scope: 'read' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer('https://idp.test/').setAudience('rqs').setSubject('alice').setExpirationTime(exp)
      .sign(privateKey)
    const connection = await live(bearer(token))
    expect(await endReason(connection)).toBe('expired')
    expect((await feed(bearer(token))).status).toBe(401)
  })

  it('at shutdown, with `event: end` {"reason":"shutdown"}', async () => {
    await start()
    const connection = await live()
    await server?.close()
    server = undefined
    expect(await endReason(connection)).toBe('shutdown')
  })
})
