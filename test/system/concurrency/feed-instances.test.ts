import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, tempDir, type TestDatabase } from '../../stores/harness.js'
import { spawnServer, type ServerProcess } from '../../helpers/process.js'
import { request } from '../../helpers/server.js'
import { connectFeed, exactData, type FeedConnection } from '../../helpers/sse.js'

/**
 * The change feed across processes (issue 14): a subscriber on one instance
 * sees every write made through another, in the order the store numbered
 * them, and can resume on either instance. PostgreSQL carries the changes by
 * LISTEN/NOTIFY, an SQLite file by polling its change table.
 */
interface Shared {
  name: string
  skip?: string
  setup: () => Promise<string>
  teardown: () => Promise<void>
}

const tmp = tempDir()
let database: TestDatabase | undefined
const sharedStores: Shared[] = [
  { name: 'SQLite file (two processes)', setup: async () => `sqlite:${join(tmp.dir, 'feed.db')}`, teardown: async () => { tmp.remove() } },
  {
    name: 'PostgreSQL database (two instances)',
    skip: SKIP_POSTGRES ? POSTGRES_SKIP_REASON : undefined,
    setup: async () => { database = await createTestDatabase(); return database.url },
    teardown: async () => { await database?.drop() }
  }
]

const MAX_ID = '9223372036854775807'
const V2 = { accept: 'application/vnd.rqs.v2+json' }

for (const shared of sharedStores) {
  describe.skipIf(shared.skip !== undefined)(`change feed on one ${shared.name}${shared.skip === undefined ? '' : ` (${shared.skip})`}`, () => {
    let servers: ServerProcess[] = []
    const feeds: FeedConnection[] = []

    beforeAll(async () => {
      const spec = await shared.setup()
      servers = await Promise.all([0, 1].map(async () => await spawnServer(['--store', spec, '--pg-pool-size', '4'])))
    }, 60_000)
    afterAll(async () => {
      for (const feed of feeds) feed.close()
      await Promise.all(servers.map(async (s) => await s.stop()))
      await shared.teardown()
    })

    it('a subscriber on B gets every write made through A, each kind, in order; concurrent writes on both arrive numbered without gaps', async () => {
      const [a, b] = servers as [ServerProcess, ServerProcess]
      const feed = await connectFeed(`${b.origin}/events`)
      feeds.push(feed)
      const ready = await feed.waitForEvent('ready')
      const base = Number(ready.id)

      const ada = await request(`${a.origin}/students`, { method: 'POST', headers: V2, json: { firstName: 'Ada', lastName: 'Lovelace', age: 36 } })
      const replaced = await request(`${a.origin}/students/${ada.body.id as number}`, { method: 'PUT', headers: V2, json: { firstName: 'Ada', lastName: 'King', age: 36 } })
      const put = await request(`${a.origin}/addresses/${MAX_ID}`, { method: 'PUT', json: { name: 'Max', city: 'Kiel', postalCode: '24103' } })
      await request(`${a.origin}/students/${ada.body.id as number}`, { method: 'DELETE', headers: V2 })
      await request(`${a.origin}/addresses/${MAX_ID}`, { method: 'DELETE' })

      await feed.waitFor(6)
      const at = expect.any(String)
      expect(feed.events.slice(1).map((e) => [Number(e.id) - base, e.event, exactData(e)])).toEqual([
        [1, 'students.created', { id: ada.body.id, record: ada.body, at }],
        [2, 'students.replaced', { id: ada.body.id, record: replaced.body, at }],
        [3, 'addresses.created', { id: BigInt(MAX_ID), record: { id: BigInt(MAX_ID), name: 'Max', city: 'Kiel', postalCode: '24103' }, at }],
        [4, 'students.deleted', { id: ada.body.id, record: null, at }],
        [5, 'addresses.deleted', { id: BigInt(MAX_ID), record: null, at }]
      ])
      expect(feed.events[3]?.data).toContain(`"record":${put.text}`)

      // 100 writes through both instances at once.
      await Promise.all(Array.from({ length: 100 }, async (_, i) => await request(`${servers[i % 2]?.origin}/students`, { method: 'POST', json: { firstName: 'S', lastName: `n${i}`, age: i } })))
      await feed.waitFor(106, 20_000)
      const concurrent = feed.events.slice(6)
      expect(concurrent.map((e) => Number(e.id) - base)).toEqual(Array.from({ length: 100 }, (_, i) => i + 6))
      // The count rule hands out ids under one lock, and the change is numbered under it: ids ascend.
      const ids = concurrent.map((e) => exactData(e).id as number)
      expect(ids).toEqual([...ids].sort((x, y) => x - y))
    }, 60_000)

    it('a client that drops its connection to B resumes on A with Last-Event-ID and misses nothing', async () => {
      const [a, b] = servers as [ServerProcess, ServerProcess]
      const first = await connectFeed(`${b.origin}/events?services=addresses`)
      feeds.push(first)
      await first.waitForEvent('ready')
      const created = await request(`${a.origin}/addresses`, { method: 'POST', json: { name: 'One', city: 'Berlin', postalCode: '10115' } })
      await first.waitFor(2)
      first.close()

      const missed = []
      for (let i = 0; i < 5; i++) missed.push(await request(`${b.origin}/addresses`, { method: 'POST', json: { name: `n${i}`, city: 'Bonn', postalCode: '53111' } }))
      await request(`${b.origin}/students`, { method: 'POST', json: { firstName: 'not', lastName: 'followed', age: 1 } })

      const resumed = await connectFeed(`${a.origin}/events?services=addresses`, { 'last-event-id': first.events[1]?.id as string })
      feeds.push(resumed)
      await resumed.waitForEvent('ready')
      expect(exactData(first.events[1] as never).record).toEqual(created.body)
      expect(resumed.events.filter((e) => e.event !== 'ready').map((e) => exactData(e).record)).toEqual(missed.map((m) => m.body))
      expect(resumed.events.at(-1)?.event).toBe('ready')
    }, 60_000)
  })
}
