import { afterEach, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { withRecordStores } from '../../helpers/stores.js'
import { StoreUnavailableError } from '../../../src/domain/index.js'
import { resolveConfig } from '../../../src/options.js'
import type { RecordStore } from '../../../src/domain/index.js'
import { berlin, expectProblem } from './helpers.js'
import { memoryStores, type AddressStore, type Stores } from '../../helpers/built-ins.js'

let server: RunningServer | undefined
afterEach(async () => { await server?.close(); server = undefined })

/** The stores with the address book failing with `error` on every call, in its typed view and its record store (the routes'). */
function failing (stores: Stores, error: Error): Stores {
  const down = (store: RecordStore): RecordStore => new Proxy(store, { get: (target, key) => typeof Reflect.get(target, key) === 'function' ? failingStore(error)[key as keyof AddressStore] : Reflect.get(target, key) })
  return { ...withRecordStores(stores, (store, name) => name === 'addresses' ? down(store) : store), addresses: failingStore(error) }
}

function failingStore (error: Error): AddressStore {
  const fail = async (): Promise<never> => { throw error }
  // eslint-disable-next-line require-yield
  async function * batches (): AsyncGenerator<never> { throw error }
  return { create: fail, get: fail, list: fail, put: fail, delete: fail, query: fail, count: fail, batches, importAll: fail }
}

describe('configuration', () => {
  it('mounts the collection at /addresses by default and under --addresses-base otherwise', async () => {
    expect(resolveConfig({}, {}).addresses).toEqual({ enabled: true, base: '/' })
    expect(resolveConfig({ 'addresses-base': '/book/' }, {}).addresses.base).toBe('/book')
    expect(resolveConfig({}, { RQS_ADDRESSES_BASE: '/v1' }).addresses.base).toBe('/v1')
    expect(resolveConfig({ 'no-addresses': true }, {}).addresses.enabled).toBe(false)
    expect(() => resolveConfig({ 'addresses-base': 'book' }, {})).toThrow(/--addresses-base/)

    server = await startServer({ addresses: { base: '/book' } })
    const created = await request(`${server.origin}/book/addresses`, { method: 'POST', json: berlin })
    expect(created.status).toBe(201)
    expect(created.headers.get('location')).toBe('/book/addresses/1')
    expectProblem(await request(`${server.origin}/addresses`), 404, 'ROUTE_NOT_FOUND')
  })

  it('--no-addresses leaves /addresses unmounted (404 problem)', async () => {
    server = await startServer({ addresses: { enabled: false } })
    expectProblem(await request(`${server.origin}/addresses`), 404, 'ROUTE_NOT_FOUND')
  })

  it('works next to a student service mounted at /, which keeps unknown paths', async () => {
    server = await startServer({ students: { base: '/' } })
    expect((await request(`${server.origin}/addresses`, { method: 'POST', json: berlin })).status).toBe(201)
    const unknown = await request(`${server.origin}/no/such/path`)
    expect(unknown.status).toBe(404)
    expect(unknown.body.isSuccessful).toBe(false)
  })
})

describe('store failures', () => {
  it('a store outage is 503 STORE_UNAVAILABLE with Retry-After', async () => {
    const stores = memoryStores()
    server = await startServer({}, { stores: failing(stores, new StoreUnavailableError()) })
    for (const [method, path] of [['GET', '/addresses'], ['GET', '/addresses/1'], ['POST', '/addresses'], ['PUT', '/addresses/1'], ['DELETE', '/addresses/1']] as const) {
      const res = await request(`${server.origin}${path}`, { method, json: method === 'POST' || method === 'PUT' ? berlin : undefined })
      expectProblem(res, 503, 'STORE_UNAVAILABLE')
      expect(res.headers.get('retry-after')).toBe('5')
    }
  })

  it('an unexpected fault is 500 INTERNAL without internals', async () => {
    const stores = memoryStores()
    server = await startServer({}, { stores: failing(stores, new Error('secret connection string pg://u:p@db')) })
    const res = await request(`${server.origin}/addresses/1`)
    const body = expectProblem(res, 500, 'INTERNAL')
    expect(res.text).not.toMatch(/secret|pg:|stack|at .*\.ts/)
    expect(body.detail).toContain(body.traceId)
  })
})
