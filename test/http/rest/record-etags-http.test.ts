import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fromFile } from '../../../src/services/collections/config.js'
import { recordEtag } from '../../../src/http/rest/record-etags.js'
import type { StoredRecord } from '../../../src/domain/index.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { DECLARATIONS, declarationFiles } from '../../services/collections/fixture.js'

/**
 * Issue 28: one ETag scheme for every collection. Whatever the collection
 * (students v2, the address book with 64-bit ids, a declared one), a
 * record's ETag is recordEtag of the record it answers, on a write and on
 * every read, and If-None-Match / If-Match take it.
 */
const files = declarationFiles()
let server: RunningServer

beforeAll(async () => {
  server = await startServer({ collections: fromFile(files.write('books.json', DECLARATIONS), '--collections') })
})
afterAll(async () => { await server.close() })

describe('one ETag scheme for every collection', () => {
  const cases: Array<{ name: string, url: string, method: 'POST' | 'PUT', body: Record<string, unknown>, record: (body: any) => StoredRecord }> = [
    { name: 'students v2', url: '/v2/students', method: 'POST', body: { firstName: 'Ada', lastName: 'Lovelace', age: 36 }, record: (b) => b },
    // Past 2^53: the record's id is the path's, exactly (the JSON parser of the test would round it).
    { name: 'addresses', url: '/addresses/9223372036854775807', method: 'PUT', body: { name: 'Ada', city: 'Oslo', postalCode: '0150' }, record: (b) => ({ ...b, id: 9223372036854775807n }) },
    { name: 'a declared collection', url: '/books', method: 'POST', body: { title: 'Kindred', year: 1979, price: 8, available: true }, record: (b) => b }
  ]

  for (const { name, url, method, body, record } of cases) {
    it(`${name}: the write's ETag, every read's, and preconditions agree with recordEtag`, async () => {
      const written = await request(`${server.origin}${url}`, { method, json: body })
      expect(written.status).toBe(201)
      const etag = recordEtag(record(written.body))
      expect(written.headers.get('etag')).toBe(etag)
      const location = method === 'POST' ? written.headers.get('location') as string : url
      for (let i = 0; i < 2; i++) expect((await request(`${server.origin}${location}`)).headers.get('etag')).toBe(etag)
      expect((await request(`${server.origin}${location}`, { headers: { 'if-none-match': etag } })).status).toBe(304)
      expect((await request(`${server.origin}${location}`, { method: 'DELETE', headers: { 'if-match': '"stale"' } })).status).toBe(412)
      expect((await request(`${server.origin}${location}`, { method: 'DELETE', headers: { 'if-match': etag } })).status).toBe(204)
    })
  }
})
