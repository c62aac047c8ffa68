import { afterAll, beforeAll, expect, it } from 'vitest'
import { makeConfig, resolveConfig, type Config, type ConfigOverrides } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { declarationsOf, SERVICES } from '../../../src/services/index.js'
import { openStores } from '../../../src/stores/index.js'
import type { RecordStore, RecordStores } from '../../../src/domain/index.js'
import { deadlineLeft, deadlinesHeld } from '../../../src/lib/deadline.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { DECLARATIONS, declarationFiles } from '../collections/fixture.js'

/**
 * The per-request read budget (`--read-budget`) alike on every store:
 * read-budget.slow.test.ts runs it on memory and SQLite, read-budget-pg.test.ts on
 * PostgreSQL. A request whose reads outlast it is answered 503 STORE_TIMEOUT
 * in its transport's shape (problem details, GraphQL errors), never a 500;
 * and a request that reads for long lets /healthz answer meanwhile.
 */
const BOOKS = 20_000
/** Four searches that match nothing, each with its count: every one reads the whole collection. */
const SEARCHES = `{ ${Array.from({ length: 4 }, (_, i) => `s${i}: books(first: 1, filter: {q: "no such text ${i}"}) { totalCount nodes { id } }`).join(' ')} }`

export function readBudgetSuite (storeOf: () => Config['store'] | undefined): void {
  const files = declarationFiles()
  let stores: RecordStores
  let overrides: ConfigOverrides
  const servers: RunningServer[] = []

  beforeAll(async () => {
    const collections = fromFile(files.write('books.json', DECLARATIONS), '--collections')
    const store = storeOf()
    overrides = { collections, ...(store === undefined ? {} : { store }) }
    const config = makeConfig(overrides)
    stores = await openStores(config.store, undefined, declarationsOf(SERVICES, config))
    const books = stores.collections.get('books')!
    const inputs = Array.from({ length: BOOKS }, (_, i) => ({ title: `Book number ${i}`, year: 1900 + (i % 100), price: i % 50, available: i % 2 === 0 }))
    for (let i = 0; i < BOOKS; i += 2000) await books.createMany(inputs.slice(i, i + 2000))
  }, 120_000)
  afterAll(async () => {
    for (const server of servers) await server.close()
    await stores?.close()
  })

  /** A server over the seeded stores with a read budget of `ms`; `stores` may be a watched view of them. */
  async function serve (ms: number, more: ConfigOverrides = {}, served: RecordStores = stores): Promise<RunningServer> {
    const defaults = resolveConfig({}, {})
    const server = await startServer({ ...overrides, connections: { ...defaults.connections, readBudgetMs: ms }, ...more }, { stores: served })
    servers.push(server)
    return server
  }

  it('refuses a REST list whose reads outlast the budget: 503 STORE_TIMEOUT as a problem, with Retry-After', async () => {
    const server = await serve(1)
    // The page's search and its count are two reads; the second starts after the first has spent the millisecond.
    const res = await request(`${server.origin}/books?q=${encodeURIComponent('no such text')}&count=true&limit=1`)
    expect(res.status, res.text).toBe(503)
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(res.headers.get('retry-after')).toBe('5')
    expect(res.body.type).toMatch(/\/errors\/STORE_TIMEOUT$/)
    expect(res.body.detail).toMatch(/budget of 1 ms \(--read-budget\); nothing was changed/)
    // Within the default budget the same list answers.
    const roomy = await serve(30_000)
    const ok = await request(`${roomy.origin}/books?q=${encodeURIComponent('no such text')}&count=true&limit=1`)
    expect(ok.status, ok.text).toBe(200)
  })

  it('refuses a GraphQL document whose reads outlast the budget with STORE_TIMEOUT in its errors', async () => {
    const server = await serve(1)
    const res = await request(`${server.origin}/graphql`, { method: 'POST', headers: { accept: 'application/graphql-response+json' }, json: { query: SEARCHES } })
    expect(res.status).toBeLessThan(500)
    const codes = (res.body.errors as Array<{ extensions?: { code?: string } }>).map((e) => e.extensions?.code)
    expect(codes.length).toBeGreaterThan(0)
    expect(new Set(codes)).toEqual(new Set(['STORE_TIMEOUT']))
  })

  it('gives a read by id and a create no deadline, a list its own, and holds none once the answers have gone', async () => {
    const seen = { get: [] as boolean[], query: [] as boolean[], create: [] as boolean[] }
    const server = await serve(30_000, {}, watchReads(stores, 'books', (method) => { seen[method].push(deadlineLeft() !== undefined) }))
    const held = deadlinesHeld()
    const page = await request(`${server.origin}/books?limit=1`)
    expect(page.status, page.text).toBe(200)
    const id = String(page.body.items[0].id)
    expect((await request(`${server.origin}/books/${id}`)).status).toBe(200)
    expect((await request(`${server.origin}/v2/books/${id}`, {})).status).toBeLessThan(500)
    const created = await request(`${server.origin}/books`, { method: 'POST', json: { title: 'A book with no deadline', year: 2001, price: 3, available: true } })
    expect(created.status, created.text).toBe(201)
    // Refused before its handler (validation) and refused by its handler: neither keeps a hold.
    expect((await request(`${server.origin}/books?limit=nope`)).status).toBe(400)
    expect((await request(`${server.origin}/books/0${'9'.repeat(40)}`)).status).toBeLessThan(500)
    expect(seen.query).toContain(true)
    expect(seen.get.length).toBeGreaterThan(0)
    expect(seen.get.every((d) => !d)).toBe(true)
    expect(seen.create).toEqual([false])
    expect(deadlinesHeld()).toBe(held)
  })

  it('holds no deadline while a change feed stream or a GraphQL subscription is open', async () => {
    const server = await serve(30_000)
    const held = deadlinesHeld()
    const streams = new AbortController()
    try {
      const feed = await fetch(`${server.origin}/events`, { headers: { accept: 'text/event-stream' }, signal: streams.signal })
      expect(feed.status).toBe(200)
      const subscription = await fetch(`${server.origin}/graphql/stream`, {
        method: 'POST',
        headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'subscription { studentsChanged { kind } }' }),
        signal: streams.signal
      })
      expect(subscription.status).toBe(200)
      expect(deadlinesHeld()).toBe(held)
    } finally { streams.abort() }
  })

  it('lets /healthz answer while a long GraphQL document reads', async () => {
    // Thirty whole-collection searches and counts (the most aliases a document may have), uncapped by the cost model and within the budget.
    let counting!: () => void
    const counted = new Promise<void>((resolve) => { counting = resolve })
    const server = await serve(60_000, { albums: { ...resolveConfig({}, {}).albums, maxCost: 0 } }, watchCounts(stores, 'books', () => { counting() }))
    const long = `{ ${Array.from({ length: 30 }, (_, i) => `s${i}: books(first: 1, filter: {q: "nothing ${i}"}) { totalCount }`).join(' ')} }`
    const order: string[] = []
    const reading = request(`${server.origin}/graphql`, { method: 'POST', headers: { accept: 'application/graphql-response+json' }, json: { query: long } })
      .then((res) => { order.push('graphql'); return res })
    // The document is being read once its first count began; /healthz is asked then.
    await Promise.race([counted, reading.then((res) => { throw new Error(`answered before it counted: ${res.status} ${res.text}`) })])
    const health = await request(`${server.origin}/healthz`)
    order.push('healthz')
    expect(health.status).toBe(200)
    const res = await reading
    expect(res.status, res.text).toBe(200)
    expect(res.body.data.s29).toEqual({ totalCount: 0 })
    expect(order).toEqual(['healthz', 'graphql'])
  })
}

/** `stores` with the get, query and create of `collection` calling `onRead` with the method's name as they start. */
function watchReads (stores: RecordStores, collection: string, onRead: (method: 'get' | 'query' | 'create') => void): RecordStores {
  const store = stores.collections.get(collection)!
  const watched = new Proxy(store, {
    get (target, key) {
      const value: unknown = Reflect.get(target, key, target)
      if (typeof value !== 'function') return value
      const method = value as (...a: unknown[]) => unknown
      if (key === 'get' || key === 'query' || key === 'create') return (...args: unknown[]) => { onRead(key); return method.apply(target, args) }
      return method.bind(target)
    }
  })
  return { ...stores, collections: new Map([...stores.collections].map(([name, s]) => [name, name === collection ? watched : s])) }
}

/** `stores` with the count of `collection` calling `onCount` as it starts (the rest as it is). */
function watchCounts (stores: RecordStores, collection: string, onCount: () => void): RecordStores {
  const store = stores.collections.get(collection)!
  const watched = new Proxy(store, {
    get (target, key) {
      const value: unknown = Reflect.get(target, key, target)
      if (key === 'count') return async (...args: Parameters<RecordStore['count']>) => { onCount(); return await target.count(...args) }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
    }
  })
  return { ...stores, collections: new Map([...stores.collections].map(([name, s]) => [name, name === collection ? watched : s])) }
}
