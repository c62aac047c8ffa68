import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Stores } from '../../helpers/built-ins.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { connectFeed, exactData, type FeedConnection } from '../../helpers/sse.js'
import type { StoreKind } from '../../stores/harness.js'

/**
 * A server whose feed nobody follows reads nothing of the change log: the
 * hub subscribes to the store with its first stream and lets go with its
 * last. A stream opened after 1 000 writes nobody heard starts at the latest
 * change, gets the next ones live, and one resuming from a Last-Event-ID
 * among those writes gets every change after it from the log, in order.
 */
const home = { name: 'Home', city: 'Berlin', postalCode: '10115' }

export function idleFeedSuite (kinds: StoreKind[]): void {
  for (const kind of kinds) {
    describe.skipIf(kind.skip !== undefined)(`change feed nobody follows, ${kind.name} store${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
      let stores: Stores
      let server: RunningServer
      const feeds: FeedConnection[] = []
      beforeAll(kind.setup)
      afterAll(kind.teardown)
      beforeEach(async () => {
        stores = await kind.fresh()
        server = await startServer({}, { stores })
      })
      afterEach(async () => {
        for (const feed of feeds.splice(0)) feed.close()
        await server.close()
        await stores.close()
      })

      const open = async (headers: Record<string, string> = {}): Promise<FeedConnection> => {
        const feed = await connectFeed(`${server.origin}/events?services=addresses`, headers)
        feeds.push(feed)
        expect(feed.status).toBe(200)
        await feed.waitForEvent('ready')
        return feed
      }
      const post = async (postalCode: string): Promise<void> => {
        expect((await request(`${server.origin}/addresses`, { method: 'POST', json: { ...home, postalCode } })).status).toBe(201)
      }
      const hub = (): { holds: number } => server.app.changeFeed as unknown as { holds: number }
      const ids = (feed: FeedConnection): string[] => feed.events.filter((e) => e.event === 'addresses.created').map((e) => e.id ?? '')

      it('reads no change while no stream is open; a stream opened after 1 000 writes gets the next changes live, and a resumed one the missed ones from the log', async () => {
        const base = (await stores.changes.window()).latest
        const reads = stores.changes.feedReads
        expect(hub().holds).toBe(0)
        for (let i = 0; i < 1000; i += 50) await Promise.all(Array.from({ length: 50 }, async (_, j) => { await stores.addresses.create({ ...home, postalCode: String(i + j) }) }))
        await post('over http')
        const latest = base + 1001
        expect((await stores.changes.window()).latest).toBe(latest)
        expect(stores.changes.feedReads).toBe(reads)

        const live = await open()
        expect(live.events.find((e) => e.event === 'ready')?.id).toBe(String(latest))
        expect(hub().holds).toBe(1)
        await post('a')
        await post('b')
        await live.waitFor(3)
        expect(ids(live)).toEqual([String(latest + 1), String(latest + 2)])
        expect(live.events.filter((e) => e.event === 'addresses.created').map((e) => exactData(e).record.postalCode)).toEqual(['a', 'b'])

        const resumed = await open({ 'last-event-id': String(base + 995) })
        expect(ids(resumed)).toEqual(Array.from({ length: 8 }, (_, i) => String(base + 996 + i)))
        // The 1 000 were written 50 at a time: their order in the log is the order they committed in.
        const replayed = resumed.events.filter((e) => e.event === 'addresses.created').map((e) => exactData(e).record.postalCode as string)
        expect(replayed.slice(5)).toEqual(['over http', 'a', 'b'])
        expect(replayed.slice(0, 5).every((code) => Number(code) >= 0 && Number(code) < 1000)).toBe(true)

        live.close()
        resumed.close()
        await expect.poll(() => hub().holds, { timeout: 10_000, interval: 20 }).toBe(0)
        const after = stores.changes.feedReads
        await post('c')
        await stores.changes.window()
        expect(stores.changes.feedReads).toBe(after)
      })
    })
  }
}
