import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { overriding, withRecordStores } from '../../helpers/stores.js'
import { expectProblem } from '../../services/addresses/helpers.js'
import { StoreOutcomeUnknownError } from '../../../src/domain/index.js'
import { memoryStores, type Stores } from '../../helpers/built-ins.js'

/**
 * The Idempotency-Key header over HTTP (memory store): a retry gets the
 * original answer and writes nothing, in every write of both REST services
 * and both student versions; misuse is a 4xx in the service's own shape.
 */
const ada = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }
const alan = { firstName: 'Alan', lastName: 'Turing', age: 41 }
const berlin = { name: 'Ada Lovelace', city: 'Berlin', postalCode: '10115' }
const V2 = 'application/vnd.rqs.v2+json'

let server: RunningServer
let stores: Stores
let origin: string

beforeEach(async () => {
  stores = memoryStores()
  server = await startServer({}, { stores })
  origin = server.origin
})
afterEach(async () => { await server.close() })

const keyed = (key: string, headers: Record<string, string> = {}): Record<string, string> => ({ 'idempotency-key': key, ...headers })

/** The parts of an answer a retry must reproduce. */
function essence (res: Awaited<ReturnType<typeof request>>): unknown {
  return { status: res.status, text: res.text, location: res.headers.get('location'), etag: res.headers.get('etag'), type: res.headers.get('content-type') }
}

describe('students v1', () => {
  it('a POST retried with the same key answers the original 201 and creates nothing', async () => {
    const first = await request(`${origin}/students`, { method: 'POST', json: ada, headers: keyed('k-1') })
    expect(first.status).toBe(201)
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    await request(`${origin}/students`, { method: 'POST', json: alan }) // another create in between
    const retry = await request(`${origin}/students`, { method: 'POST', json: ada, headers: keyed('k-1') })
    expect(essence(retry)).toEqual(essence(first))
    expect(retry.headers.get('idempotent-replayed')).toBe('true')
    expect((await request(`${origin}/students`)).body.body).toEqual([{ id: 0, ...ada }, { id: 1, ...alan }])
  })

  it('the same key with another body is a 422 envelope, and writes nothing', async () => {
    await request(`${origin}/students`, { method: 'POST', json: ada, headers: keyed('k-2') })
    const other = await request(`${origin}/students`, { method: 'POST', json: alan, headers: keyed('k-2') })
    expect(other.status).toBe(422)
    expect(other.body).toEqual({ isSuccessful: false, body: expect.stringContaining('Idempotency-Key was already used for a different request') })
    expect((await request(`${origin}/students`)).body.body).toHaveLength(1)
  })

  it('a member order does not make another request; a quoted key is the same key', async () => {
    const first = await request(`${origin}/students`, { method: 'POST', body: '{"firstName":"A","lastName":"B","age":1}', headers: keyed('k-3', { 'content-type': 'application/json' }) })
    const again = await request(`${origin}/students`, { method: 'POST', body: '{"age":1,"lastName":"B","firstName":"A"}', headers: keyed('"k-3"', { 'content-type': 'application/json' }) })
    expect(again.status).toBe(201)
    expect(again.text).toBe(first.text)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
  })

  it('replays PUT and DELETE; a write that found nothing keeps nothing', async () => {
    await request(`${origin}/students`, { method: 'POST', json: ada })
    const missing = await request(`${origin}/students`, { method: 'PUT', json: { id: 5, ...alan }, headers: keyed('put-5') })
    expect(missing.status).toBe(404)
    const put = await request(`${origin}/students`, { method: 'PUT', json: { id: 0, ...alan }, headers: keyed('put-0') })
    expect(put.status).toBe(200)
    expect(essence(await request(`${origin}/students`, { method: 'PUT', json: { id: 0, ...alan }, headers: keyed('put-0') }))).toEqual(essence(put))

    const deleted = await request(`${origin}/students/0`, { method: 'DELETE', headers: keyed('del-0') })
    expect(deleted.body).toEqual({ isSuccessful: true, body: 'Student with id 0 was deleted' })
    const again = await request(`${origin}/students/0`, { method: 'DELETE', headers: keyed('del-0') })
    expect(essence(again)).toEqual(essence(deleted)) // not the 404 a plain retry gets
    expect((await request(`${origin}/students/0`, { method: 'DELETE' })).status).toBe(404)
  })

  it('refuses a malformed key with 400 in the envelope', async () => {
    for (const key of ['', 'has space', 'x'.repeat(256), '""', 'ünï']) {
      const res = await request(`${origin}/students`, { method: 'POST', json: ada, headers: { 'idempotency-key': key } })
      expect(res.status, key).toBe(400)
      expect(res.body).toEqual({ isSuccessful: false, body: expect.stringContaining('Idempotency-Key') })
    }
    expect((await request(`${origin}/students`)).body.body).toEqual([])
  })
})

describe('students v2', () => {
  it('replays the 201 with its Location, ETag and body byte for byte, in the negotiated type', async () => {
    const post = (): ReturnType<typeof request> => request(`${origin}/students`, { method: 'POST', json: ada, headers: keyed('v2-post', { accept: V2 }) })
    const first = await post()
    expect(first.status).toBe(201)
    expect(first.headers.get('location')).toBe('/students/0')
    const retry = await post()
    expect(essence(retry)).toEqual(essence(first))
    expect(retry.headers.get('content-type')).toMatch(/^application\/vnd\.rqs\.v2\+json/)
  })

  it('a retried conditional PUT is replayed, not failed by the precondition its first attempt changed', async () => {
    const created = await request(`${origin}/v2/students`, { method: 'POST', json: ada })
    const etag = created.headers.get('etag') as string
    const put = (): ReturnType<typeof request> => request(`${origin}/v2/students/0`, { method: 'PUT', json: alan, headers: keyed('v2-put', { 'if-match': etag }) })
    const first = await put()
    expect(first.status).toBe(200)
    expect(first.headers.get('etag')).not.toBe(etag)
    expect(essence(await put())).toEqual(essence(first))
    // Without the key the same retry is (rightly) a 412.
    expectProblem(await request(`${origin}/v2/students/0`, { method: 'PUT', json: alan, headers: { 'if-match': etag } }), 412, 'PRECONDITION_FAILED')
  })

  it('replays a 204 DELETE, and a different request under the key is a 422 problem', async () => {
    await request(`${origin}/v2/students`, { method: 'POST', json: ada })
    const first = await request(`${origin}/v2/students/0`, { method: 'DELETE', headers: keyed('v2-del') })
    expect(first.status).toBe(204)
    const again = await request(`${origin}/v2/students/0`, { method: 'DELETE', headers: keyed('v2-del') })
    expect(again.status).toBe(204)
    expect(again.text).toBe('')
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expectProblem(await request(`${origin}/v2/students/1`, { method: 'DELETE', headers: keyed('v2-del') }), 422, 'IDEMPOTENCY_KEY_REUSED')
    // v1 and v2 of one path are different requests too.
    await request(`${origin}/students`, { method: 'POST', json: ada, headers: keyed('versions') })
    expectProblem(await request(`${origin}/students`, { method: 'POST', json: ada, headers: keyed('versions', { accept: V2 }) }), 422, 'IDEMPOTENCY_KEY_REUSED')
    expectProblem(await request(`${origin}/v2/students`, { method: 'POST', json: ada, headers: keyed('a b') }), 400, 'IDEMPOTENCY_KEY_INVALID')
  })
})

describe('addresses', () => {
  it('replays POST (same id and Location), a creating PUT (201, not 200) and DELETE', async () => {
    const post = (): ReturnType<typeof request> => request(`${origin}/addresses`, { method: 'POST', json: berlin, headers: keyed('a-post') })
    const first = await post()
    expect(first.status).toBe(201)
    expect(essence(await post())).toEqual(essence(first))
    expect((await request(`${origin}/addresses`)).body.items).toHaveLength(1)

    const put = (): ReturnType<typeof request> => request(`${origin}/addresses/77`, { method: 'PUT', json: berlin, headers: keyed('a-put') })
    const created = await put()
    expect(created.status).toBe(201)
    expect(essence(await put())).toEqual(essence(created))
    expect((await request(`${origin}/addresses/77`, { method: 'PUT', json: berlin })).status).toBe(200) // without a key: an update

    const del = (): ReturnType<typeof request> => request(`${origin}/addresses/77`, { method: 'DELETE', headers: keyed('a-del') })
    expect((await del()).status).toBe(204)
    expect((await del()).status).toBe(204)
  })

  it('shares one key space with the students: a key used there is a 422 problem here', async () => {
    await request(`${origin}/students`, { method: 'POST', json: ada, headers: keyed('shared') })
    expectProblem(await request(`${origin}/addresses`, { method: 'POST', json: berlin, headers: keyed('shared') }), 422, 'IDEMPOTENCY_KEY_REUSED')
    expectProblem(await request(`${origin}/addresses`, { method: 'POST', json: berlin, headers: keyed('x'.repeat(256)) }), 400, 'IDEMPOTENCY_KEY_INVALID')
    expect((await request(`${origin}/addresses`)).body.items).toEqual([])
  })

  it('concurrent requests with one key write once and all get the same answer', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, async () => await request(`${origin}/addresses`, { method: 'POST', json: berlin, headers: keyed('together') })))
    expect(new Set(answers.map((a) => a.text)).size).toBe(1)
    expect(answers.every((a) => a.status === 201)).toBe(true)
    expect((await request(`${origin}/addresses`)).body.items).toHaveLength(1)
  })
})

describe('a write whose outcome is unknown', () => {
  it('is 503 with Retry-After and says so, in each service\'s shape', async () => {
    // The memory store's record stores whose creates never learn whether they committed (every route and view writes through them).
    const create = async (): Promise<never> => { throw new StoreOutcomeUnknownError('no answer') }
    const failing = withRecordStores(stores, (store) => overriding(store, { create }))
    const srv = await startServer({}, { stores: failing })
    try {
      const v1 = await request(`${srv.origin}/students`, { method: 'POST', json: ada })
      expect(v1.status).toBe(503)
      expect(v1.headers.get('retry-after')).toMatch(/^\d+$/)
      expect(v1.body).toEqual({ isSuccessful: false, body: expect.stringContaining('may or may not have been made') })
      const v2 = expectProblem(await request(`${srv.origin}/v2/students`, { method: 'POST', json: ada }), 503, 'WRITE_OUTCOME_UNKNOWN')
      expect(v2.detail).toContain('may or may not have been stored')
      const address = await request(`${srv.origin}/addresses`, { method: 'POST', json: berlin })
      expectProblem(address, 503, 'WRITE_OUTCOME_UNKNOWN')
      expect(address.headers.get('retry-after')).toMatch(/^\d+$/)
      expect(address.text).not.toContain('nothing was changed')
    } finally {
      await srv.close()
    }
  })
})

describe('--student-ids sequence over HTTP', () => {
  it('never gives a deleted id to a new student, in v1 and v2', async () => {
    const srv = await startServer({ students: { ids: 'sequence' } })
    try {
      for (const s of [ada, alan, ada]) expect((await request(`${srv.origin}/students`, { method: 'POST', json: s })).status).toBe(201)
      expect((await request(`${srv.origin}/students/0`, { method: 'DELETE' })).status).toBe(200)
      const next = await request(`${srv.origin}/students`, { method: 'POST', json: alan })
      expect(next.body.body.id).toBe(3) // the spec's rule would give 2 and overwrite student 2
      const v2 = await request(`${srv.origin}/v2/students`, { method: 'POST', json: ada })
      expect(v2.headers.get('location')).toBe('/v2/students/4')
      expect((await request(`${srv.origin}/students`)).body.body.map((s: { id: number }) => s.id)).toEqual([1, 2, 3, 4])
    } finally {
      await srv.close()
    }
  })
})
