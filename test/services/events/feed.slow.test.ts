import { afterEach, describe, expect, it } from 'vitest'
import http from 'node:http'
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { StoreUnavailableError } from '../../../src/domain/index.js'
import type { ChangeLog } from '../../../src/domain/index.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { connectFeed, exactData, type FeedConnection } from '../../helpers/sse.js'
import { memoryStores, type Stores } from '../../helpers/built-ins.js'

/**
 * The change feed over HTTP (issue 14): GET /events against a real listening
 * server, read as a browser's EventSource would read it.
 */
const V2 = { accept: 'application/vnd.rqs.v2+json' }
const MAX_ID = '9223372036854775807'
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

let server: RunningServer | undefined
const feeds: FeedConnection[] = []

afterEach(async () => {
  for (const feed of feeds.splice(0)) feed.close()
  await server?.close()
  server = undefined
})

async function feed (path = '/events', headers: Record<string, string> = {}): Promise<FeedConnection> {
  const connection = await connectFeed(`${(server as RunningServer).origin}${path}`, headers)
  feeds.push(connection)
  return connection
}

/** Opens the feed and waits until it is live. */
async function live (path = '/events', headers: Record<string, string> = {}): Promise<FeedConnection> {
  const connection = await feed(path, headers)
  expect(connection.status).toBe(200)
  await connection.waitForEvent('ready')
  return connection
}

/** The events after `ready` (the changes), as [id, event, data]. */
function changes (connection: FeedConnection): Array<[string | undefined, string | undefined, any]> {
  const ready = connection.events.findIndex((e) => e.event === 'ready')
  return connection.events.slice(ready + 1).map((e) => [e.id, e.event, exactData(e)])
}

async function poll (read: () => unknown, expected: unknown, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (read() !== expected) {
    if (Date.now() > deadline) expect(read()).toBe(expected)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('GET /events', () => {
  it('answers text/event-stream with a retry hint, then `ready` carrying the position; listed in the directory', async () => {
    server = await startServer()
    const connection = await live()
    expect(connection.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(connection.headers.get('cache-control')).toBe('no-cache')
    expect(connection.retry).toBe(2000)
    expect(connection.events).toEqual([{ id: '0', event: 'ready', data: '{}' }])
    const directory = await request(`${server.origin}/`)
    expect(directory.body.links.events).toEqual({ href: '/events', title: 'Change feed (Server-Sent Events)', type: 'text/event-stream' })
    expect(directory.headers.get('link')).toContain('</events>; rel="events"; type="text/event-stream"')
    const head = await fetch(`${server.origin}/events`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
  })

  it('sends one event per create, replace and delete, through both student versions and the address book, each record in its v2 representation', async () => {
    server = await startServer()
    const { origin } = server
    const connection = await live()

    const v1 = await request(`${origin}/students`, { method: 'POST', json: { firstName: 'Ada', lastName: 'Lovelace', age: 36 } })
    await request(`${origin}/students`, { method: 'PUT', json: { id: 0, firstName: 'Ada', lastName: 'King', age: 36 } })
    const v2 = await request(`${origin}/students`, { method: 'POST', headers: V2, json: { firstName: 'Alan', lastName: 'Turing', age: 41 } })
    const v2put = await request(`${origin}/students/1`, { method: 'PUT', headers: V2, json: { firstName: 'Alan', lastName: 'Turing', age: 42 } })
    expect((await request(`${origin}/students/0`, { method: 'DELETE' })).status).toBe(200)
    expect((await request(`${origin}/students/1`, { method: 'DELETE', headers: V2 })).status).toBe(204)
    const posted = await request(`${origin}/addresses`, { method: 'POST', json: { name: 'Home', city: 'Berlin', postalCode: '10115' } })
    const created = await request(`${origin}/addresses/${MAX_ID}`, { method: 'PUT', json: { name: 'Max', city: 'Kiel', postalCode: '24103' } })
    const updated = await request(`${origin}/addresses/${MAX_ID}`, { method: 'PUT', json: { name: 'ignored', city: 'Bonn', postalCode: '53111' } })
    expect([posted.status, created.status, updated.status]).toEqual([201, 201, 200])
    expect((await request(`${origin}/addresses/${MAX_ID}`, { method: 'DELETE' })).status).toBe(204)
    // Writes that change nothing send nothing.
    expect((await request(`${origin}/students/7`, { method: 'DELETE', headers: V2 })).status).toBe(404)
    expect((await request(`${origin}/addresses/${MAX_ID}`, { method: 'DELETE' })).status).toBe(404)

    await connection.waitFor(11)
    const at = expect.stringMatching(ISO)
    expect(changes(connection)).toEqual([
      ['1', 'students.created', { id: 0, record: v1.body.body, at }],
      ['2', 'students.replaced', { id: 0, record: { id: 0, firstName: 'Ada', lastName: 'King', age: 36 }, at }],
      ['3', 'students.created', { id: 1, record: v2.body, at }],
      ['4', 'students.replaced', { id: 1, record: v2put.body, at }],
      ['5', 'students.deleted', { id: 0, record: null, at }],
      ['6', 'students.deleted', { id: 1, record: null, at }],
      ['7', 'addresses.created', { id: posted.body.id, record: posted.body, at }],
      ['8', 'addresses.created', { id: BigInt(MAX_ID), record: { id: BigInt(MAX_ID), name: 'Max', city: 'Kiel', postalCode: '24103' }, at }],
      ['9', 'addresses.replaced', { id: BigInt(MAX_ID), record: { id: BigInt(MAX_ID), name: 'Max', city: 'Bonn', postalCode: '53111' }, at }],
      ['10', 'addresses.deleted', { id: BigInt(MAX_ID), record: null, at }]
    ])
    // Exactly as the address routes write the record: every digit of the 64-bit id, same members in the same order.
    expect(connection.events[9]?.data).toBe(`{"id":${MAX_ID},"record":${updated.text},"at":"${exactData(connection.events[9] as EventSourceMessage).at as string}"}`)
  })

  it('?services= narrows the feed; an unknown service is a 400 problem; other methods 405; a client that refuses event streams 406', async () => {
    server = await startServer()
    const { origin } = server
    const students = await live('/events?services=students')
    const addresses = await live('/events?services=addresses')
    const both = await live('/events?services=addresses,students')
    await request(`${origin}/students`, { method: 'POST', json: { firstName: 'Ada', lastName: 'Lovelace', age: 36 } })
    await request(`${origin}/addresses`, { method: 'POST', json: { name: 'Home', city: 'Berlin', postalCode: '10115' } })
    await both.waitFor(3)
    await students.waitFor(2)
    await addresses.waitFor(2)
    expect(changes(students).map(([id, event]) => [id, event])).toEqual([['1', 'students.created']])
    expect(changes(addresses).map(([id, event]) => [id, event])).toEqual([['2', 'addresses.created']])
    expect(changes(both).map(([id, event]) => [id, event])).toEqual([['1', 'students.created'], ['2', 'addresses.created']])

    const unknown = await request(`${origin}/events?services=students,albums`, { headers: { accept: 'text/event-stream', 'accept-language': 'de' } })
    expect(unknown.status).toBe(400)
    expect(unknown.headers.get('content-type')).toBe('application/problem+json; charset=utf-8')
    expect(unknown.body).toMatchObject({
      type: '/errors/FEED_SERVICE_UNKNOWN',
      status: 400,
      title: 'Unbekannter Dienst',
      errors: [{ error: 'FEED_SERVICE_UNKNOWN', message: 'Der Änderungs-Feed kann nur Studenten und Adressen verfolgen.' }]
    })
    expect((await request(`${origin}/events?services=`)).body.errors[0].error).toBe('FEED_SERVICE_UNKNOWN')
    expect((await request(`${origin}/events?services=students&services=addresses`)).body.type).toBe('/errors/VALIDATION_FAILED')
    const post = await request(`${origin}/events`, { method: 'POST' })
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
    const json = await request(`${origin}/events`, { headers: { accept: 'application/json' } })
    expect(json.status).toBe(406)
    expect(json.body.errors[0].error).toBe('NOT_ACCEPTABLE')
  })

  it('with only the students service running, carries students only and refuses ?services=addresses', async () => {
    server = await startServer({ addresses: { enabled: false } })
    const connection = await live()
    await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'Ada', lastName: 'Lovelace', age: 36 } })
    await connection.waitFor(2)
    expect((await request(`${server.origin}/events?services=addresses`)).body.detail).toContain('use students')
  })

  it('is left out with --no-events: no route, no link', async () => {
    server = await startServer({ events: { enabled: false } })
    expect((await request(`${server.origin}/events`)).status).toBe(404)
    expect((await request(`${server.origin}/`)).body.links.events).toBeUndefined()
  })

  it('numbers concurrent writes in the order they were stored, without gaps', async () => {
    server = await startServer()
    const { origin } = server
    const connection = await live()
    await Promise.all([
      ...Array.from({ length: 40 }, async (_, i) => await request(`${origin}/students`, { method: 'POST', json: { firstName: 'S', lastName: `n${i}`, age: i } })),
      ...Array.from({ length: 40 }, async (_, i) => await request(`${origin}/addresses`, { method: 'POST', json: { name: `n${i}`, city: 'Berlin', postalCode: '10115' } }))
    ])
    await connection.waitFor(81)
    const received = changes(connection)
    expect(received.map(([id]) => Number(id))).toEqual(Array.from({ length: 80 }, (_, i) => i + 1))
    expect(received.filter(([, event]) => event === 'students.created').map(([, , data]) => data.id)).toEqual(Array.from({ length: 40 }, (_, i) => i))
  })

  it('resumes after a disconnect from Last-Event-ID: every change missed, in order, then `ready`, then live ones', async () => {
    server = await startServer()
    const { origin } = server
    const first = await live()
    for (let i = 0; i < 3; i++) await request(`${origin}/students`, { method: 'POST', json: { firstName: 'S', lastName: `n${i}`, age: i } })
    await first.waitFor(4)
    first.close()
    await poll(() => server?.app.changeFeed?.subscribers, 0)

    // Missed while away: a replace, a delete and an address.
    await request(`${origin}/students`, { method: 'PUT', json: { id: 1, firstName: 'S', lastName: 'changed', age: 1 } })
    await request(`${origin}/students/2`, { method: 'DELETE' })
    await request(`${origin}/addresses/${MAX_ID}`, { method: 'PUT', json: { name: 'Max', city: 'Kiel', postalCode: '24103' } })

    const again = await feed('/events', { 'last-event-id': first.events.at(-1)?.id as string })
    await again.waitForEvent('ready')
    await request(`${origin}/students`, { method: 'POST', json: { firstName: 'S', lastName: 'live', age: 9 } })
    await again.waitFor(5)
    expect(again.events.map((e) => [e.id, e.event])).toEqual([
      ['4', 'students.replaced'], ['5', 'students.deleted'], ['6', 'addresses.created'], ['6', 'ready'], ['7', 'students.created']
    ])
    expect(exactData(again.events[2] as EventSourceMessage).id).toBe(BigInt(MAX_ID))

    // Nothing missed: straight to ready.
    const current = await live('/events', { 'last-event-id': '7' })
    expect(current.events).toEqual([{ id: '7', event: 'ready', data: '{}' }])
  })

  it('sends `event: reset` first when the Last-Event-ID is older than what is kept, unknown or not one of ours', async () => {
    const stores = memoryStores({ memoryChangesKept: 5 })
    server = await startServer({}, { stores })
    for (let i = 0; i < 8; i++) await stores.students.create({ firstName: 'S', lastName: `n${i}`, age: i })
    await new Promise((resolve) => setImmediate(resolve)) // the memory store delivers on a microtask

    const kept = await live('/events', { 'last-event-id': '3' }) // 4 … 8 are kept
    expect(kept.events.map((e) => e.id)).toEqual(['4', '5', '6', '7', '8', '8'])
    for (const lastEventId of ['2', '9', '-1', 'abc', '1e3']) {
      const connection = await live('/events', { 'last-event-id': lastEventId })
      expect(connection.events, lastEventId).toEqual([{ id: '8', event: 'reset', data: '{}' }, { id: '8', event: 'ready', data: '{}' }])
    }
  })

  it('answers 503 (a problem) when the store cannot tell where to resume', async () => {
    const stores = memoryStores()
    const real = stores.changes
    const changes: ChangeLog = {
      since: async (after, limit) => await real.since(after, limit),
      window: async () => { throw new StoreUnavailableError() },
      subscribe: async (listener) => await real.subscribe(listener),
      ofRecord: async (collection, id, limit) => await real.ofRecord(collection, id, limit)
    }
    server = await startServer({}, { stores: { ...stores, changes } })
    const res = await request(`${server.origin}/events`, { headers: { 'last-event-id': '0' } })
    expect(res.status).toBe(503)
    expect(res.body.errors[0].error).toBe('STORE_UNAVAILABLE')
    expect(server.app.changeFeed?.subscribers).toBe(0)
  })

  it('sends a heartbeat comment at the configured interval', async () => {
    server = await startServer({ events: { heartbeatMs: 50 } })
    const connection = await live()
    await poll(() => connection.comments.length >= 2, true)
    expect(new Set(connection.comments)).toEqual(new Set(['heartbeat']))
  })

  it('forgets a subscriber that disconnects, and ends every stream when the server closes', async () => {
    server = await startServer()
    const a = await live()
    const b = await live()
    expect(server.app.changeFeed?.subscribers).toBe(2)
    a.close()
    await poll(() => server?.app.changeFeed?.subscribers, 1)
    await server.close()
    await b.ended
    expect(server.app.changeFeed?.subscribers).toBe(0)
    server = undefined
  })

  it('holds a client that does not read to a bounded queue, and when it reads again it gets every change, in order', async () => {
    const stores: Stores = memoryStores({ memoryChangesKept: 100_000 })
    server = await startServer({}, { stores })
    const { port } = new URL(server.origin)

    // A client that stops reading: Node's http client stops taking data from the socket when paused.
    const received: EventSourceMessage[] = []
    const parser = createParser({ onEvent: (event) => { received.push(event) } })
    const res = await new Promise<http.IncomingMessage>((resolve) => {
      http.get({ host: '127.0.0.1', port, path: '/events', headers: { accept: 'text/event-stream' } }, resolve)
    })
    res.setEncoding('utf8')
    res.on('data', (chunk: string) => { parser.feed(chunk) })
    await poll(() => received.some((e) => e.event === 'ready'), true)
    res.pause()

    // ~20 MB of changes: far more than the socket buffers hold.
    const name = 'N'.repeat(200)
    const city = 'C'.repeat(200)
    const total = 40_000
    await Promise.all(Array.from({ length: total }, async (_, i) => await stores.addresses.create({ name, city, postalCode: String(i) })))
    const hub = server.app.changeFeed
    // The server fills the socket, then the connection's buffer (Node's 16 KiB) a page a turn, and
    // queues no more than that and one message, however long the client does not read.
    await poll(() => (hub?.queuedBytes ?? 0) >= 16 * 1024, true)
    for (let i = 0; i < 5; i++) {
      expect(hub?.queuedBytes).toBeLessThanOrEqual(17 * 1024)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }

    res.resume()
    await poll(() => received.length, total + 1, 60_000)
    const ids = received.slice(1).map((e) => Number(e.id))
    expect(ids).toEqual(Array.from({ length: total }, (_, i) => i + 1))
    expect(received.filter((e) => e.event !== 'addresses.created').map((e) => e.event)).toEqual(['ready'])
    res.destroy()
  }, 90_000)
})
