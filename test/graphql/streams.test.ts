import { createServer, type Server } from 'node:http'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { readFile, writeFile } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import type { ConfigOverrides } from '../../src/options.js'
import { request, startServer, type RunningServer } from '../helpers/server.js'
import { connectFeed } from '../helpers/sse.js'
import { bearer, security, writeTokensFile } from '../http/security/helpers.js'

/**
 * GraphQL subscriptions are long-lived streams like the change feed's
 * (issue 36): they end when their token is withdrawn or expires, with
 * graphql-sse's own last messages (a `next` carrying the error, then
 * `complete`), and they take their slots from the same budget as /events,
 * per client (429, Retry-After) and in all (503), refused before any byte of
 * a stream.
 */

let server: RunningServer | undefined
const cleanups: Array<() => unknown> = []

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await server?.close()
  server = undefined
})

async function start (overrides: ConfigOverrides = {}): Promise<RunningServer> {
  server = await startServer(overrides)
  return server
}

interface Stream {
  status: number
  headers: http.IncomingHttpHeaders
  /** The raw body as received. */
  text: string
  events: EventSourceMessage[]
  /** Resolves when the server ends the response. */
  ended: Promise<void>
  waitFor: (test: (events: EventSourceMessage[]) => boolean, ms?: number) => Promise<void>
  close: () => void
}

const STUDENTS = 'subscription { studentsChanged { kind record { firstName } } }'

/** A subscription at /graphql/stream over POST (JSON body) or GET (query in the URL), on a connection of its own. */
async function subscribe (method: 'GET' | 'POST', headers: Record<string, string> = {}, query = STUDENTS): Promise<Stream> {
  const { origin } = server as RunningServer
  const url = method === 'GET' ? `${origin}/graphql/stream?query=${encodeURIComponent(query)}` : `${origin}/graphql/stream`
  const req = http.request(url, { method, agent: false, headers: { accept: 'text/event-stream', ...(method === 'POST' ? { 'content-type': 'application/json' } : {}), ...headers } })
  req.end(method === 'POST' ? JSON.stringify({ query }) : undefined)
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => { req.once('response', resolve).once('error', reject) })
  const waiters = new Set<() => void>()
  const stream: Stream = {
    status: res.statusCode ?? 0,
    headers: res.headers,
    text: '',
    events: [],
    ended: new Promise<void>((resolve) => { res.once('close', resolve) }),
    waitFor: async (test, ms = 5000) => {
      if (test(stream.events)) return
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => { waiters.delete(check); reject(new Error(`timed out; events: ${JSON.stringify(stream.events)}`)) }, ms)
        const check = (): void => { if (test(stream.events)) { clearTimeout(timer); waiters.delete(check); resolve() } }
        waiters.add(check)
      })
    },
    close: () => { req.destroy() }
  }
  const parser = createParser({ onEvent: (event) => { stream.events.push(event); for (const w of [...waiters]) w() } })
  res.setEncoding('utf8')
  res.on('data', (chunk: string) => { stream.text += chunk; parser.feed(chunk) })
  cleanups.push(() => { req.destroy() })
  return stream
}

/** A subscription that is live: graphql-sse has written its first comment, so the change log is followed. */
async function live (method: 'GET' | 'POST', headers: Record<string, string> = {}): Promise<Stream> {
  const stream = await subscribe(method, headers)
  expect(stream.status).toBe(200)
  await expect.poll(() => stream.text.length > 0).toBe(true)
  return stream
}

const graphqlSlots = (): number | undefined => server?.app.streams.openOfKind('graphql')

async function createStudent (headers: Record<string, string> = {}, firstName = 'Ada'): Promise<void> {
  const made = await request(`${(server as RunningServer).origin}/students`, { method: 'POST', json: { firstName, lastName: 'Lovelace', age: 36 }, headers })
  expect(made.status).toBe(201)
}

/** The stream's last two events: graphql-sse's end of a subscription whose credential went. */
function endedFor (stream: Stream, reason: 'revoked' | 'expired'): void {
  const [next, complete] = stream.events.slice(-2)
  expect(next?.event).toBe('next')
  expect(JSON.parse(next?.data as string)).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED', reason } }] })
  expect(complete?.event).toBe('complete')
}

describe('a subscription ends with its credential', () => {
  it('when its token leaves the tokens file (SIGHUP), over POST and GET: a last `next` with UNAUTHENTICATED, then `complete`, and no change after; a kept token\'s subscription goes on', async () => {
    const tokens = await writeTokensFile({ ci: ['read'], app: ['read', 'write'] })
    cleanups.push(tokens.remove)
    await start({ security: security({ authTokensFile: tokens.path }) })
    const posted = await live('POST', bearer(tokens.tokens.ci))
    const got = await live('GET', bearer(tokens.tokens.ci))
    const kept = await live('POST', bearer(tokens.tokens.app))
    const feed = await connectFeed(`${(server as RunningServer).origin}/events`, bearer(tokens.tokens.ci))
    cleanups.push(() => { feed.close() })
    await feed.waitForEvent('ready')
    expect(graphqlSlots()).toBe(3)

    const file = JSON.parse(await readFile(tokens.path, 'utf8'))
    await writeFile(tokens.path, JSON.stringify({ tokens: file.tokens.filter((t: { name: string }) => t.name === 'app') }))
    const sent = Date.now()
    process.emit('SIGHUP')
    await Promise.all([posted.ended, got.ended, feed.ended])
    // The reload reads a file: well within a second here.
    expect(Date.now() - sent).toBeLessThan(2000)
    endedFor(posted, 'revoked')
    endedFor(got, 'revoked')
    expect(feed.events.at(-1)).toMatchObject({ event: 'end', data: '{"reason":"revoked"}' })
    await expect.poll(graphqlSlots).toBe(1)

    // A change after the revocation reaches the kept subscription only.
    const seen = [posted.events.length, got.events.length]
    await createStudent(bearer(tokens.tokens.app))
    await kept.waitFor((events) => events.some((e) => e.event === 'next'))
    expect(JSON.parse(kept.events.find((e) => e.event === 'next')?.data as string)).toMatchObject({ data: { studentsChanged: { kind: 'CREATED', record: { firstName: 'Ada' } } } })
    expect([posted.events.length, got.events.length]).toEqual(seen)
    expect((await subscribe('POST', bearer(tokens.tokens.ci))).status).toBe(401)
  })

  it('when its JWT expires (exp plus the 30 s of clock tolerance), over POST and GET', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256')
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }
    const jwks: Server = createServer((_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })) })
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve))
    cleanups.push(() => { jwks.close() })
    const url = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`
    await start({ security: security({ authJwksUrl: url, authIssuer: 'https://idp.test/', authAudience: 'rqs', authJwksCooldownMs: 0 }) })
    // Expired 24 s ago: still accepted for about 6 s, long enough for both streams to open on a loaded machine.
    const token = await new SignJWT({ scope: 'read' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer('https://idp.test/').setAudience('rqs').setSubject('alice').setExpirationTime(Math.floor(Date.now() / 1000) - 24)
      .sign(privateKey)
    const posted = await live('POST', bearer(token))
    const got = await live('GET', bearer(token))
    await Promise.all([posted.ended, got.ended])
    endedFor(posted, 'expired')
    endedFor(got, 'expired')
    await expect.poll(graphqlSlots).toBe(0)
  })
})

describe('one stream budget for /events and GraphQL subscriptions', () => {
  it('past its share a client gets 429 TOO_MANY_CLIENT_SUBSCRIPTIONS with Retry-After, before any stream byte; /events and subscriptions count together; a closed stream gives its slot back', async () => {
    const { origin } = await start({ events: { maxStreamsPerClient: 3 } })
    const first = await live('POST')
    await live('GET')
    const feed = await connectFeed(`${origin}/events`)
    cleanups.push(() => { feed.close() })
    expect(feed.status).toBe(200)

    for (const method of ['POST', 'GET'] as const) {
      const refused = await subscribe(method)
      await refused.ended
      expect(refused.status).toBe(429)
      expect(refused.headers['retry-after']).toBe('30')
      expect(refused.headers['content-type']).toBe('application/json; charset=utf-8')
      expect(refused.headers.connection).toBe('close')
      expect(JSON.parse(refused.text)).toEqual({ errors: [{ message: expect.stringContaining('already holds 3 change-feed streams and GraphQL subscriptions together'), extensions: { code: 'TOO_MANY_CLIENT_SUBSCRIPTIONS' } }] })
    }
    // And the feed refuses this client too: its subscriptions took its share.
    const refusedFeed = await request(`${origin}/events`, { headers: { accept: 'text/event-stream' } })
    expect(refusedFeed.status).toBe(429)
    expect(refusedFeed.body).toMatchObject({ type: '/errors/FEED_TOO_MANY_STREAMS' })

    first.close()
    await expect.poll(graphqlSlots).toBe(1)
    await live('POST')
    // Other requests are not limited by the streams.
    expect((await request(`${origin}/graphql`, { method: 'POST', json: { query: '{ albums { title } }' } })).status).toBe(200)
  })

  it('past the server\'s streams, 503 TOO_MANY_SUBSCRIPTIONS with Retry-After; the feed\'s streams count, and the feed is refused when subscriptions fill the server', async () => {
    const { origin } = await start({ events: { maxStreams: 2, maxStreamsPerClient: 0 } })
    const feed = await connectFeed(`${origin}/events`)
    cleanups.push(() => { feed.close() })
    await live('POST')
    const refused = await subscribe('GET')
    await refused.ended
    expect(refused.status).toBe(503)
    expect(refused.headers['retry-after']).toBe('10')
    expect(JSON.parse(refused.text)).toEqual({ errors: [{ message: expect.stringContaining('already serves as many streams'), extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } }] })
    feed.close()
    await expect.poll(() => server?.app.streams.open).toBe(1)
    await live('GET')
    const full = await request(`${origin}/events`, { headers: { accept: 'text/event-stream' } })
    expect(full.status).toBe(503)
    expect(full.body).toMatchObject({ type: '/errors/FEED_FULL' })
  })

  it('a request graphql-sse refuses (a query, not a subscription) gives its slot back', async () => {
    await start({ events: { maxStreamsPerClient: 1 } })
    for (let i = 0; i < 3; i++) {
      const refused = await subscribe('POST', {}, '{ albums { title } }')
      await refused.ended
      expect(refused.status).not.toBe(429)
    }
    await expect.poll(graphqlSlots).toBe(0)
    await live('POST')
  })
})
