import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { expectProblem } from '../../services/addresses/helpers.js'
import { storeKinds } from '../../stores/harness.js'
import type { Stores } from '../../helpers/built-ins.js'

/**
 * Issue 19, item 10: an Idempotency-Key names one request on one resource,
 * however its URL is spelled. `/students/` and `/v1/students` with a key used
 * on `/students` were 422 (the fingerprint was the raw path); they are the
 * same resource and get the kept answer. A genuinely different request under
 * the key (another version, id, query or body) is still 422. On every store,
 * since the stores keep the fingerprint.
 */
const ada = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }
const berlin = { name: 'Ada', city: 'Berlin', postalCode: '10115' }
const V2 = 'application/vnd.rqs.v2+json'
const keyed = (key: string, headers: Record<string, string> = {}): Record<string, string> => ({ 'idempotency-key': key, ...headers })

for (const kind of storeKinds(['memory', 'sqlite', 'postgres'])) { // every store: this file is in the postgres lane
  describe.skipIf(kind.skip !== undefined)(`Idempotency-Key names a resource, not a URL, ${kind.name} store${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
    let stores: Stores
    let server: RunningServer
    let origin: string
    beforeAll(kind.setup)
    afterAll(kind.teardown)
    beforeEach(async () => {
      stores = await kind.fresh()
      server = await startServer({}, { stores })
      origin = server.origin
    })
    afterEach(async () => {
      await server.close()
      await stores.close()
    })

    async function replayed (url: string, init: Parameters<typeof request>[1], first: Awaited<ReturnType<typeof request>>): Promise<void> {
      const again = await request(url, init)
      expect(again.status, `${url}: ${again.text}`).toBe(first.status)
      expect(again.text).toBe(first.text)
      expect(again.headers.get('idempotent-replayed')).toBe('true')
    }

    it('replays a create under /students/ and /v1/students, and one under /v2/students sent by header to /students', async () => {
      const first = await request(`${origin}/students`, { method: 'POST', json: ada, headers: keyed('c-1') })
      expect(first.status).toBe(201)
      await replayed(`${origin}/students/`, { method: 'POST', json: ada, headers: keyed('c-1') }, first)
      await replayed(`${origin}/v1/students`, { method: 'POST', json: ada, headers: keyed('c-1') }, first)
      // Members in another order and the query's parameters in another order are the same request.
      const v2 = await request(`${origin}/students?a=1&b=2`, { method: 'POST', body: '{"firstName":"A","lastName":"B","age":1}', headers: keyed('c-2', { 'content-type': 'application/json', accept: V2 }) })
      expect(v2.status).toBe(201)
      await replayed(`${origin}/v2/students/?b=2&a=1`, { method: 'POST', body: '{"age":1,"lastName":"B","firstName":"A"}', headers: keyed('c-2', { 'content-type': 'application/json' }) }, v2)
      expect(await stores.students.list()).toHaveLength(2)
    })

    it('replays a delete and a put at the same id however written; another id, version, query or body is 422', async () => {
      await stores.students.create(ada)
      await stores.students.create(ada)
      const deleted = await request(`${origin}/v2/students/0`, { method: 'DELETE', headers: keyed('d-1') })
      expect(deleted.status).toBe(204)
      await replayed(`${origin}/v2/students/000`, { method: 'DELETE', headers: keyed('d-1') }, deleted)
      await replayed(`${origin}/students/0`, { method: 'DELETE', headers: keyed('d-1', { accept: V2 }) }, deleted)
      expectProblem(await request(`${origin}/v2/students/1`, { method: 'DELETE', headers: keyed('d-1') }), 422, 'IDEMPOTENCY_KEY_REUSED')
      const v1 = await request(`${origin}/students/1`, { method: 'DELETE', headers: keyed('d-1') })
      expect(v1.status).toBe(422)
      expect(v1.body.isSuccessful).toBe(false)
      expectProblem(await request(`${origin}/v2/students/0?force=1`, { method: 'DELETE', headers: keyed('d-1') }), 422, 'IDEMPOTENCY_KEY_REUSED')
      expect((await stores.students.get(1))?.id).toBe(1) // none of the refused deletes happened

      const put = await request(`${origin}/addresses/77`, { method: 'PUT', json: berlin, headers: keyed('p-1') })
      expect(put.status).toBe(201)
      await replayed(`${origin}/v1/addresses/77`, { method: 'PUT', json: berlin, headers: keyed('p-1') }, put)
      expectProblem(await request(`${origin}/v2/addresses/77`, { method: 'PUT', json: berlin, headers: keyed('p-1') }), 422, 'IDEMPOTENCY_KEY_REUSED')
      expectProblem(await request(`${origin}/addresses/78`, { method: 'PUT', json: berlin, headers: keyed('p-1') }), 422, 'IDEMPOTENCY_KEY_REUSED')
      expectProblem(await request(`${origin}/addresses/77`, { method: 'PUT', json: { ...berlin, city: 'Kiel' }, headers: keyed('p-1') }), 422, 'IDEMPOTENCY_KEY_REUSED')
      expectProblem(await request(`${origin}/addresses/77`, { method: 'DELETE', headers: keyed('p-1') }), 422, 'IDEMPOTENCY_KEY_REUSED')
      expectProblem(await request(`${origin}/addresses`, { method: 'POST', json: berlin, headers: keyed('p-1') }), 422, 'IDEMPOTENCY_KEY_REUSED')
      expect((await stores.addresses.get(77n))?.city).toBe('Berlin')
      expect(await stores.addresses.get(78n)).toBeUndefined()
    })
  })
}
