import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { connectFeed, exactData, type FeedConnection } from '../../helpers/sse.js'
import { eventually, Receiver } from '../webhooks/receiver.js'
import { FAST, register } from '../webhooks/delivery.suite.js'

/**
 * The change feed, a record's history and the webhooks follow the
 * collections as they are while the server runs (the admin API of
 * collections): a collection created after the start is carried and can be
 * named, a field added to one is in the changes sent after it, and a removed
 * one is named no more.
 */
const BOOKS = { type: 'object', properties: { title: { type: 'string', maxLength: 100 } }, required: ['title'] }
const WITH_PAGES = { type: 'object', properties: { title: { type: 'string', maxLength: 100 }, pages: { type: 'integer' } }, required: ['title'] }

describe('the feed and the webhooks follow collections changed while the server runs', () => {
  let server: RunningServer
  let receiver: Receiver
  const feeds: FeedConnection[] = []
  beforeEach(async () => {
    receiver = await new Receiver().listen()
    server = await startServer({ collections: { declared: [], api: true }, webhooks: FAST })
  })
  afterEach(async () => {
    for (const feed of feeds.splice(0)) feed.close()
    await server.close()
    await receiver.close()
  })

  const open = async (query: string): Promise<FeedConnection> => {
    const feed = await connectFeed(`${server.origin}/events?${query}`)
    feeds.push(feed)
    expect(feed.status).toBe(200)
    await feed.waitForEvent('ready')
    return feed
  }
  const createCollection = async (name: string, schema: unknown): Promise<void> => {
    const res = await request(`${server.origin}/collections`, { method: 'POST', json: { name, schema } })
    expect(res.status, res.text).toBe(201)
  }
  const changeCollection = async (name: string, schema: unknown): Promise<void> => {
    const current = await request(`${server.origin}/collections/${name}`)
    const res = await request(`${server.origin}/collections/${name}`, { method: 'PUT', headers: { 'if-match': current.headers.get('etag') ?? '' }, json: { schema } })
    expect(res.status, res.text).toBe(200)
  }
  const post = async (name: string, body: Record<string, unknown>): Promise<number> => {
    const res = await request(`${server.origin}/${name}`, { method: 'POST', json: body })
    expect(res.status, res.text).toBe(201)
    return res.body.id as number
  }

  it('a collection created after the start: on the feed (named or not), in a record\'s history, to a webhook', async () => {
    await createCollection('books', BOOKS)
    const named = await open('services=books')
    const every = await open('')
    const filtered = await open('services=books&filter=title%20%3D%20%22Kept%22')
    await register(server.origin, { url: receiver.url, events: ['books.*'], description: 'books' })
    const id = await post('books', { title: 'Kept' })
    await post('books', { title: 'Other' })

    await named.waitForEvent('books.created')
    await eventually(() => every.events.filter((e) => e.event === 'books.created').length === 2)
    expect(named.events.filter((e) => e.event === 'books.created').map((e) => exactData(e).record)).toEqual([{ id, title: 'Kept' }, { id: id + 1, title: 'Other' }])
    await eventually(() => receiver.received.length === 2)
    expect(receiver.events().map((e) => [e.type, e.data.record])).toEqual([['books.created', { id, title: 'Kept' }], ['books.created', { id: id + 1, title: 'Other' }]])
    // The filter was read against the collection's fields: only the matching record.
    await eventually(() => every.events.filter((e) => e.event === 'books.created').length === 2)
    expect(filtered.events.filter((e) => e.event === 'books.created').map((e) => exactData(e).record.title)).toEqual(['Kept'])

    const history = await request(`${server.origin}/events/history?collection=books&id=${id}`)
    expect(history.status, history.text).toBe(200)
    expect(history.body.items.map((i: { event: string, data: { record: unknown } }) => [i.event, i.data.record])).toEqual([['books.created', { id, title: 'Kept' }]])
  })

  it('a field added while the server runs is in the changes sent after it, on the feed and to a webhook', async () => {
    await createCollection('books', BOOKS)
    const feed = await open('services=books')
    await register(server.origin, { url: receiver.url, events: ['books.created'], description: 'books' })
    const before = await post('books', { title: 'Before' })
    await eventually(() => receiver.received.length === 1)
    await changeCollection('books', WITH_PAGES)
    const after = await post('books', { title: 'After', pages: 320 })

    // (The change of the declaration may log the records it rewrote: only the first and the last change matter here.)
    const created = (): unknown[] => feed.events.filter((e) => e.event === 'books.created').map((e) => exactData(e).record)
    await eventually(() => created().some((r) => (r as { id: number }).id === after))
    expect(created()[0]).toEqual({ id: before, title: 'Before' })
    expect(created().at(-1)).toEqual({ id: after, title: 'After', pages: 320 })
    await eventually(() => receiver.events().some((e) => e.data.id === after))
    expect(receiver.events()[0]?.data.record).toEqual({ id: before, title: 'Before' })
    expect(receiver.events().at(-1)?.data.record).toEqual({ id: after, title: 'After', pages: 320 })
  })

  it('a webhook\'s filter may name a field added while the server runs, and is read against it', async () => {
    await createCollection('books', BOOKS)
    await changeCollection('books', WITH_PAGES)
    await register(server.origin, { url: receiver.url, events: ['books.created'], filter: 'pages > 100', description: 'long books' })
    await post('books', { title: 'Short', pages: 50 })
    const long = await post('books', { title: 'Long', pages: 320 })
    await eventually(() => receiver.received.length >= 1)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(receiver.events().map((e) => e.data.record)).toEqual([{ id: long, title: 'Long', pages: 320 }])
  })

  it('a removed collection is named no more: 400 on /events, /events/history and a new webhook', async () => {
    await createCollection('books', BOOKS)
    const current = await request(`${server.origin}/collections/books`)
    const removed = await request(`${server.origin}/collections/books?confirm=books`, { method: 'DELETE', headers: { 'if-match': current.headers.get('etag') ?? '' } })
    expect(removed.status, removed.text).toBe(200)
    const feed = await request(`${server.origin}/events?services=books`, { headers: { accept: 'text/event-stream' } })
    expect(feed.status).toBe(400)
    expect(feed.body.errors[0].error).toBe('FEED_SERVICE_UNKNOWN')
    const history = await request(`${server.origin}/events/history?collection=books&id=1`)
    expect(history.status).toBe(400)
    expect(history.body.errors[0].error).toBe('FEED_SERVICE_UNKNOWN')
    const hook = await request(`${server.origin}/webhooks`, { method: 'POST', json: { url: receiver.url, events: ['books.*'] } })
    expect(hook.status).toBe(400)
    expect(hook.body.errors[0].error).toBe('WEBHOOK_EVENTS_INVALID')
  })
})
