import { afterEach, describe, expect, it } from 'vitest'
import type { ChangeLog } from '../../../src/domain/index.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { connectFeed, type FeedConnection } from '../../helpers/sse.js'
import { memoryStores } from '../../helpers/built-ins.js'

/**
 * Large replays yield to other work (issue 19, item 12): 200 clients
 * resuming from `Last-Event-ID: 1` pushed other requests to 150–600 ms,
 * because the memory store's reads resolve on a microtask and a replay went
 * on page after page while the connection took the bytes. The feed now reads
 * one page of backlog per event-loop turn, across all streams, and waits for
 * a full connection to drain. Shown by progress, not by time: how many pages
 * the server reads in one turn, and while a GET waits for its answer.
 */

const CHANGES = 10_000
const REPLAYS = 10
/** Changes per page the feed reads (src/services/events/subscriber.ts). */
const PAGE = 200

let server: RunningServer | undefined
const feeds: FeedConnection[] = []

afterEach(async () => {
  for (const feed of feeds.splice(0)) feed.close()
  await server?.close()
  server = undefined
})

describe('a large replay', () => {
  it('reads one page per event-loop turn: a GET sent meanwhile is answered while the replays go on, and every replay gets every change once, in order', async () => {
    const stores = memoryStores({ memoryChangesKept: CHANGES })
    const real = stores.changes
    let pages = 0
    const changes: ChangeLog = {
      since: async (after, limit) => { pages++; return await real.since(after, limit) },
      window: async () => await real.window(),
      subscribe: async (listener) => await real.subscribe(listener),
      ofRecord: async (collection, id, limit) => await real.ofRecord(collection, id, limit)
    }
    const name = 'N'.repeat(100)
    for (let i = 0; i < CHANGES; i++) await stores.addresses.create({ name, city: 'Berlin', postalCode: String(i) })
    // All replays come from one address here: no per-client limit.
    server = await startServer({ events: { maxStreamsPerClient: 0 } }, { stores: { ...stores, changes } })
    const { origin } = server

    // Pages read between two turns of the event loop, seen from a callback that runs once a turn.
    let mostPerTurn = 0
    let probing = true
    const probe = (last: number): void => {
      mostPerTurn = Math.max(mostPerTurn, pages - last)
      const now = pages
      if (probing) setImmediate(() => { probe(now) })
    }
    probe(0)

    for (let i = 0; i < REPLAYS; i++) feeds.push(await connectFeed(`${origin}/events`, { 'last-event-id': '1' }))
    expect(feeds.map((feed) => feed.status)).toEqual(feeds.map(() => 200))
    const total = REPLAYS * Math.ceil((CHANGES - 1) / PAGE)
    await expect.poll(() => pages).toBeGreaterThan(0)

    const sentAt = pages
    const answer = await request(`${origin}/students`)
    const answeredAt = pages
    expect(answer.status).toBe(200)

    // Every change after 1, then `ready` (waitFor counts; waiting for an event by name would scan them all each time).
    await Promise.all(feeds.map(async (feed) => await feed.waitFor(CHANGES, 120_000)))
    probing = false

    // The GET waited a handful of turns, not for the replays: they had most of their pages still to read.
    // (Before, every replay had run to its end before the GET was even sent.)
    expect(answeredAt - sentAt).toBeLessThan(total / 10)
    expect(answeredAt).toBeLessThan(total / 2)
    expect(mostPerTurn).toBe(1)
    const expected = Array.from({ length: CHANGES - 1 }, (_, i) => String(i + 2))
    for (const feed of feeds) {
      expect(feed.events.slice(0, -1).map((e) => e.id)).toEqual(expected)
      expect(feed.events.at(-1)).toEqual({ id: String(CHANGES), event: 'ready', data: '{}' })
    }
  }, 180_000)
})
