import Fastify, { type FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { isRevisioned, KeptPages } from '../../../../src/http/rest/index.js'
import { parseListQuery } from '../../../../src/records/parse.js'
import { ADDRESS_QUERY } from '../../../../src/services/addresses/query.js'
import { memoryStores } from '../../../helpers/built-ins.js'

/**
 * Issue 18, defect 3: the kept address pages were a module-level cache keyed
 * by the request target only, shared by every server in the process and blind
 * to the negotiated version (correct only while address v1 and v2 happened to
 * be identical). A page is now kept by the server that built it, under its
 * version, content type and target.
 */
async function * once<T> (items: T[]): AsyncIterable<readonly T[]> {
  yield items
}

let apps: FastifyInstance[] = []
afterEach(async () => {
  await Promise.all(apps.map(async (app) => { await app.close() }))
  apps = []
})

/** A server with one collection route whose two versions word a page differently, as a future version may. */
async function pageServer (pages: KeptPages, stores: ReturnType<typeof memoryStores>): Promise<FastifyInstance> {
  const app = Fastify()
  apps.push(app)
  const store = stores.addresses
  if (!isRevisioned(store)) throw new Error('the memory store keeps a revision')
  app.decorateRequest('apiVersion', 0)
  app.get<{ Querystring: Record<string, string> }>('/addresses', async (request, reply) => {
    const version = request.headers.accept === 'application/vnd.test.v2+json' ? 2 : 1
    request.apiVersion = version
    reply.type(version === 2 ? 'application/vnd.test.v2+json' : 'application/json')
    const list = parseListQuery(ADDRESS_QUERY, request.query, 'page')
    return await pages.send(reply, { store, path: '/addresses' }, list, request.url,
      (page) => version === 2 ? { items: page.items.map((a) => ({ ...a, id: String(a.id) })), next: page.next ?? null } : page.items.map((a) => ({ ...a, id: String(a.id) })))
  })
  await app.ready()
  return app
}

describe('kept address pages', () => {
  it('are kept per version and content type: the same target in v2 never gets v1\'s page', async () => {
    const stores = memoryStores()
    await stores.addresses.importAll(once([{ id: 1n, name: 'Ada', city: 'Oslo', postalCode: '0150' }]))
    const app = await pageServer(new KeptPages(), stores)
    const v1 = await app.inject({ url: '/addresses?limit=10' })
    const v2 = await app.inject({ url: '/addresses?limit=10', headers: { accept: 'application/vnd.test.v2+json' } })
    expect(JSON.parse(v1.body)).toEqual([{ id: '1', name: 'Ada', city: 'Oslo', postalCode: '0150' }])
    expect(JSON.parse(v2.body)).toEqual({ items: [{ id: '1', name: 'Ada', city: 'Oslo', postalCode: '0150' }], next: null })
    // And each stays kept under its own key.
    expect((await app.inject({ url: '/addresses?limit=10' })).body).toBe(v1.body)
    expect((await app.inject({ url: '/addresses?limit=10', headers: { accept: 'application/vnd.test.v2+json' } })).body).toBe(v2.body)
  })

  it('belong to one server: another server over the same store reads its own', async () => {
    const stores = memoryStores()
    await stores.addresses.importAll(once([{ id: 1n, name: 'Ada', city: 'Oslo', postalCode: '0150' }]))
    let reads = 0
    const query = stores.addresses.query.bind(stores.addresses)
    stores.addresses.query = async (q) => { reads++; return await query(q) }
    const first = await pageServer(new KeptPages(), stores)
    const second = await pageServer(new KeptPages(), stores)
    await first.inject({ url: '/addresses?limit=5' })
    await first.inject({ url: '/addresses?limit=5' })
    expect(reads).toBe(1) // kept by the first server
    await second.inject({ url: '/addresses?limit=5' })
    expect(reads).toBe(2) // not found in the first server's cache
  })
})
