import { AsyncLocalStorage, createHook } from 'node:async_hooks'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { makeConfig, resolveConfig, type Config, type ConfigOverrides } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { declarationsOf, SERVICES } from '../../../src/services/index.js'
import { openStores } from '../../../src/stores/index.js'
import type { RecordStore, RecordStores } from '../../../src/domain/index.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { DECLARATIONS, declarationFiles } from '../collections/fixture.js'

/**
 * The read budget (`--read-budget`, the time one read of a store may take)
 * alike on every store: read-budget.slow.test.ts runs it on memory and
 * SQLite, read-budget-pg.test.ts on PostgreSQL. A request one of whose reads
 * outlasts it is answered 503 STORE_TIMEOUT in its transport's shape (problem
 * details, GraphQL errors), never a 500; a request that reads for long lets
 * /healthz answer meanwhile; and no request sets up an asynchronous context
 * for it (once used, Node 20 makes every later request of the process dearer).
 */
const BOOKS = 20_000
/** Four searches that match nothing, each with its count: every one reads the whole collection. */
const SEARCHES = `{ ${Array.from({ length: 4 }, (_, i) => `s${i}: books(first: 1, filter: {q: "no such text ${i}"}) { totalCount nodes { id } }`).join(' ')} }`

export function readBudgetSuite (storeOf: () => Config['store'] | undefined): void {
  const files = declarationFiles()
  let overrides: ConfigOverrides
  /** Stores opened with a budget of that many ms, seeded (a SQL store's second opening shares the first's rows). */
  const opened = new Map<number, RecordStores>()
  const servers: RunningServer[] = []

  beforeAll(async () => {
    const collections = fromFile(files.write('books.json', DECLARATIONS), '--collections')
    const store = storeOf()
    overrides = { collections, ...(store === undefined ? {} : { store }) }
  })
  afterAll(async () => {
    for (const server of servers) await server.close()
    for (const stores of opened.values()) await stores.close()
  })

  /** The seeded stores whose reads may take `ms` each. */
  async function storesWithBudget (ms: number): Promise<RecordStores> {
    let stores = opened.get(ms)
    if (stores !== undefined) return stores
    // A SQL store's rows are in its database, seeded by its first opening; each memory store has its own.
    const seeded = opened.size > 0 && storeOf() !== undefined
    const config = makeConfig(overrides)
    stores = await openStores(config.store, undefined, declarationsOf(SERVICES, config), ms)
    opened.set(ms, stores)
    const books = stores.collections.get('books')!
    if (!seeded) {
      const inputs = Array.from({ length: BOOKS }, (_, i) => ({ title: `Book number ${i}`, year: 1900 + (i % 100), price: i % 50, available: i % 2 === 0 }))
      for (let i = 0; i < BOOKS; i += 2000) await books.createMany(inputs.slice(i, i + 2000))
    }
    return stores
  }

  /** A server over stores seeded and opened with a read budget of `ms` (`watch`: a view of them). */
  async function serve (ms: number, more: ConfigOverrides = {}, watch: (stores: RecordStores) => RecordStores = (stores) => stores): Promise<RunningServer> {
    const defaults = resolveConfig({}, {})
    const server = await startServer({ ...overrides, connections: { ...defaults.connections, readBudgetMs: ms }, ...more }, { stores: watch(await storesWithBudget(ms)) })
    servers.push(server)
    return server
  }

  it('refuses a REST list whose read outlasts the budget: 503 STORE_TIMEOUT as a problem, with Retry-After', async () => {
    const server = await serve(1)
    // A search through every record, and its count: each a read of the whole collection, longer than a millisecond.
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
  }, 120_000)

  it('refuses a GraphQL document whose reads outlast the budget with STORE_TIMEOUT in its errors', async () => {
    const server = await serve(1)
    const res = await request(`${server.origin}/graphql`, { method: 'POST', headers: { accept: 'application/graphql-response+json' }, json: { query: SEARCHES } })
    expect(res.status).toBeLessThan(500)
    const codes = (res.body.errors as Array<{ extensions?: { code?: string } }>).map((e) => e.extensions?.code)
    expect(codes.length).toBeGreaterThan(0)
    expect(new Set(codes)).toEqual(new Set(['STORE_TIMEOUT']))
  })

  it('sets up no asynchronous context for it: no AsyncLocalStorage runs and no async hook is enabled, whatever the requests', async () => {
    const server = await serve(30_000)
    const run = vi.spyOn(AsyncLocalStorage.prototype, 'run')
    const enterWith = vi.spyOn(AsyncLocalStorage.prototype, 'enterWith')
    const hooks = Object.getPrototypeOf(createHook({})) as { enable: () => unknown }
    const enable = vi.spyOn(hooks, 'enable')
    const streams = new AbortController()
    try {
      const page = await request(`${server.origin}/books?limit=2&count=true&q=${encodeURIComponent('number 1')}`)
      expect(page.status, page.text).toBe(200)
      const id = String(page.body.items[0].id)
      expect((await request(`${server.origin}/books/${id}`)).status).toBe(200)
      expect((await request(`${server.origin}/books/aggregate?count=true&groupBy=year`)).status).toBeLessThan(500)
      const created = await request(`${server.origin}/books`, { method: 'POST', json: { title: 'A book read by no context', year: 2001, price: 3, available: true } })
      expect(created.status, created.text).toBe(201)
      const graph = await request(`${server.origin}/graphql`, { method: 'POST', json: { query: '{ books(first: 2) { totalCount nodes { id title } } }' } })
      expect(graph.status, graph.text).toBe(200)
      const feed = await fetch(`${server.origin}/events`, { headers: { accept: 'text/event-stream' }, signal: streams.signal })
      expect(feed.status).toBe(200)
      const subscription = await fetch(`${server.origin}/graphql/stream`, {
        method: 'POST',
        headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'subscription { studentsChanged { kind } }' }),
        signal: streams.signal
      })
      expect(subscription.status).toBe(200)
      expect(run).not.toHaveBeenCalled()
      expect(enterWith).not.toHaveBeenCalled()
      expect(enable).not.toHaveBeenCalled()
    } finally {
      streams.abort()
      run.mockRestore()
      enterWith.mockRestore()
      enable.mockRestore()
    }
  })

  it('lets /healthz answer while a long GraphQL document reads', async () => {
    // Thirty whole-collection searches and counts (the most aliases a document may have), uncapped by the cost model and within the budget.
    let counting!: () => void
    const counted = new Promise<void>((resolve) => { counting = resolve })
    const server = await serve(60_000, { albums: { ...resolveConfig({}, {}).albums, maxCost: 0 } }, (stores) => watchCounts(stores, 'books', () => { counting() }))
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
