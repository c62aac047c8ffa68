import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Stores } from '../../helpers/built-ins.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { connectFeed, exactData, type FeedConnection } from '../../helpers/sse.js'
import type { StoreKind } from '../../stores/harness.js'
import { DECLARATIONS, declarationFiles } from '../collections/fixture.js'

/**
 * Filtered live updates (issue 31, item 7), on every store: `/events?services=books&filter=…`
 * sends the changes of records that match after the change, or that matched
 * before it as far as the stream saw, live and when resuming; a parameter the
 * feed does not take, or a filter it cannot read, is a 400.
 */
const declarations = declarationFiles().write('books.json', DECLARATIONS)
const book = (title: string, year: number): Record<string, unknown> => ({ title, year, price: 1, available: true })

export function filteredFeedSuite (kinds: StoreKind[]): void {
  for (const kind of kinds) {
    describe.skipIf(kind.skip !== undefined)(`filtered change feed, ${kind.name} store${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
      let stores: Stores
      let server: RunningServer
      const feeds: FeedConnection[] = []
      beforeAll(kind.setup)
      afterAll(kind.teardown)
      beforeEach(async () => {
        const collections = fromFile(declarations, '--collections')
        stores = await kind.fresh({ collections: collections.declared.map((c) => c.declaration) })
        server = await startServer({ collections }, { stores })
      })
      afterEach(async () => {
        for (const feed of feeds.splice(0)) feed.close()
        await server.close()
        await stores.close()
      })

      const open = async (query: string, headers: Record<string, string> = {}): Promise<FeedConnection> => {
        const feed = await connectFeed(`${server.origin}/events?${query}`, headers)
        feeds.push(feed)
        expect(feed.status).toBe(200)
        await feed.waitForEvent('ready')
        return feed
      }
      const post = async (body: Record<string, unknown>): Promise<number> => {
        const res = await request(`${server.origin}/books`, { method: 'POST', json: body })
        expect(res.status).toBe(201)
        return res.body.id as number
      }
      const put = async (id: number, body: Record<string, unknown>): Promise<void> => {
        expect((await request(`${server.origin}/books/${id}`, { method: 'PUT', json: body })).status).toBe(200)
      }
      const remove = async (id: number): Promise<void> => {
        expect((await request(`${server.origin}/books/${id}`, { method: 'DELETE' })).status).toBe(204)
      }
      /** The changes a feed got (a resumed one's catch-up comes before `ready`), as [event, id, year or null], once the marker (a matching book titled END) arrived. */
      const received = async (feed: FeedConnection): Promise<Array<[string | undefined, number, number | null]>> => {
        await post(book('END', 2999))
        const deadline = Date.now() + 10_000
        while (!feed.events.some((e) => e.event === 'books.created' && exactData(e).record?.title === 'END')) {
          if (Date.now() > deadline) throw new Error(`no marker: ${feed.events.map((e) => e.data).join(' | ')}`)
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
        return feed.events.filter((e) => e.event?.startsWith('books.') === true && exactData(e).record?.title !== 'END')
          .map((e) => [e.event, exactData(e).id as number, (exactData(e).record?.year ?? null) as number | null])
      }

      /** The writes both tests make: each kind of change into, inside, out of and outside the filter. */
      const writes = async (): Promise<Record<string, number>> => {
        const old = await post(book('Old', 1990)) // never matches: not sent
        const fresh = await post(book('Fresh', 2005)) // created matching: sent
        await put(fresh, book('Fresh', 1995)) // leaves the filter: sent (it matched before)
        await put(fresh, book('Fresh', 1996)) // outside before and after: not sent
        await put(old, book('Old', 2001)) // enters the filter: sent
        const brief = await post(book('Brief', 2010))
        await remove(brief) // deleted while matching: sent
        await remove(fresh) // deleted outside the filter: not sent
        return { old, fresh, brief }
      }

      it('sends only changes of records matching before or after them', async () => {
        const feed = await open(`services=books&filter=${encodeURIComponent('year > 2000')}`)
        const whole = await open('services=books')
        const { old, fresh, brief } = await writes()
        expect(await received(feed)).toEqual([
          ['books.created', fresh, 2005],
          ['books.replaced', fresh, 1995],
          ['books.replaced', old, 2001],
          ['books.created', brief, 2010],
          ['books.deleted', brief, null]
        ])
        // The unfiltered stream beside it has every change.
        expect((await received(whole)).length).toBe(8)
      })

      it('filters a resumed stream (Last-Event-ID) the same way', async () => {
        const first = await open('services=books')
        const position = (first.events.find((e) => e.event === 'ready') as { id: string }).id
        first.close()
        const { old, fresh, brief } = await writes()
        const resumed = await open(`services=books&filter=${encodeURIComponent("year > 2000 && title != 'x'")}`, { 'last-event-id': position })
        expect(await received(resumed)).toEqual([
          ['books.created', fresh, 2005],
          ['books.replaced', fresh, 1995],
          ['books.replaced', old, 2001],
          ['books.created', brief, 2010],
          ['books.deleted', brief, null]
        ])
      })

      it.each([
        ['services=books&year[gt]=2000', 'unknown query parameter "year[gt]" (a filter is written filter=, e.g. filter=year > 2000)'],
        ['services=books&sevrices=books', 'unknown query parameter "sevrices"'],
        [`filter=${encodeURIComponent('year > 2000')}`, 'filter applies to the changes of one collection'],
        [`services=books,students&filter=${encodeURIComponent('year > 2000')}`, 'filter applies to the changes of one collection'],
        [`services=books&filter=${encodeURIComponent('year >')}`, "filter: expected a value after '>' at 7"],
        [`services=students&filter=${encodeURIComponent('year > 1')}`, 'filter: unknown field "year"']
      ])('refuses ?%s with 400 INVALID_QUERY', async (query, detail) => {
        const res = await request(`${server.origin}/events?${query}`, { headers: { accept: 'text/event-stream', 'accept-language': 'de' } })
        expect(res.status).toBe(400)
        expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8')
        expect(res.body.type).toBe('/errors/INVALID_QUERY')
        expect(res.body.title).toBe('Ungültige Abfrage')
        expect(res.body.detail).toContain(detail)
        expect(server.app.changeFeed?.subscribers).toBe(0)
      })
    })
  }
}
