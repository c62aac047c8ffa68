import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import type { RecordStores } from '../../../src/domain/index.js'
import { overriding, withRecordStores } from '../../helpers/stores.js'
import { memoryStores, type Stores } from '../../helpers/built-ins.js'

const ada = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }
let server: RunningServer
let stores: Stores
let base: string

/** Every bad request must leave the store exactly as it was. */
async function snapshot (): Promise<string> {
  return JSON.stringify(await stores.students.list())
}

beforeAll(async () => {
  stores = memoryStores()
  server = await startServer({ bodyLimit: 64 * 1024 }, { stores })
  base = `${server.origin}/students`
})
afterAll(async () => { await server.close() })
beforeEach(async () => {
  for (const s of await stores.students.list()) await stores.students.delete(s.id)
  await stores.students.create(ada)
})

describe('non-integer id segments (decision: 400 envelope, never 500, never another record)', () => {
  const odd = ['abc', '1.5', '-1', '1e3', '0x10', '%201', '1%20', '+1', '9007199254740992', '99999999999999999999', '0.0', '%00', 'Infinity', 'NaN']
  for (const segment of odd) {
    it(`GET and DELETE /${segment} → 400`, async () => {
      const before = await snapshot()
      for (const method of ['GET', 'DELETE']) {
        const res = await request(`${base}/${segment}`, { method })
        expect(res.status, `${method} ${segment}`).toBe(400)
        expect(res.body).toEqual({ isSuccessful: false, body: 'id must be a non-negative integer' })
      }
      expect(await snapshot()).toBe(before)
    })
  }
})

describe('bodies that are absent or not JSON (spec: 400 "JSON data is expected")', () => {
  const cases: Array<[string, RequestInit]> = [
    ['no body at all', {}],
    ['an empty JSON body', { headers: { 'content-type': 'application/json' } }],
    ['malformed JSON', { headers: { 'content-type': 'application/json' }, body: '{"firstName": "A",' }],
    ['a JSON body sent as text/plain', { headers: { 'content-type': 'text/plain' }, body: JSON.stringify(ada) }],
    ['a form body', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'firstName=A&lastName=B&age=3' }],
    ['a JSON array', { headers: { 'content-type': 'application/json' }, body: '[1,2]' }],
    ['a JSON string', { headers: { 'content-type': 'application/json' }, body: '"hello"' }],
    ['JSON null', { headers: { 'content-type': 'application/json' }, body: 'null' }],
    ['a __proto__ key', { headers: { 'content-type': 'application/json' }, body: '{"__proto__":{"admin":true},"firstName":"A","lastName":"B","age":3}' }],
    ['a constructor.prototype key', { headers: { 'content-type': 'application/json' }, body: '{"constructor":{"prototype":{"admin":true}},"firstName":"A","lastName":"B","age":3}' }]
  ]
  for (const [name, init] of cases) {
    for (const method of ['POST', 'PUT']) {
      it(`${method} with ${name} → 400, store unchanged`, async () => {
        const before = await snapshot()
        const res = await request(base, { method, ...init })
        expect(res.status).toBe(400)
        expect(res.body).toEqual({ isSuccessful: false, body: 'JSON data is expected' })
        expect(await snapshot()).toBe(before)
      })
    }
  }
})

describe('field validation (decision: 400 naming the fields)', () => {
  const cases: Array<[string, object, RegExp[]]> = [
    ['missing lastName', { firstName: 'A', age: 3 }, [/lastName is required/]],
    ['missing everything', {}, [/firstName is required/, /lastName is required/, /age is required/]],
    ['age as a string', { firstName: 'A', lastName: 'B', age: '3' }, [/age must be an integer/]],
    ['age with a fraction', { firstName: 'A', lastName: 'B', age: 3.5 }, [/age must be an integer/]],
    ['negative age', { firstName: 'A', lastName: 'B', age: -1 }, [/age must be an integer from 0/]],
    ['firstName as a number', { firstName: 7, lastName: 'B', age: 3 }, [/firstName must be a non-empty string/]],
    ['empty lastName', { firstName: 'A', lastName: '', age: 3 }, [/lastName must be a non-empty string/]],
    ['a name over 200 characters', { firstName: 'x'.repeat(201), lastName: 'B', age: 3 }, [/firstName/]],
    ['null fields', { firstName: null, lastName: null, age: null }, [/firstName/, /lastName/, /age/]]
  ]
  for (const [name, body, patterns] of cases) {
    it(`POST with ${name} → 400`, async () => {
      const before = await snapshot()
      const res = await request(base, { method: 'POST', json: body })
      expect(res.status).toBe(400)
      expect(res.body.isSuccessful).toBe(false)
      for (const p of patterns) expect(res.body.body).toMatch(p)
      expect(await snapshot()).toBe(before)
    })
    it(`PUT with ${name} → 400`, async () => {
      const before = await snapshot()
      const res = await request(base, { method: 'PUT', json: { id: 0, ...body } })
      expect(res.status).toBe(400)
      for (const p of patterns) expect(res.body.body).toMatch(p)
      expect(await snapshot()).toBe(before)
    })
  }
})

describe('size limit (decision: 413 in the envelope; the default is 1 MiB, here configured to 64 KiB)', () => {
  it('POST with a body over the limit → 413, store unchanged', async () => {
    const before = await snapshot()
    const res = await request(base, { method: 'POST', json: { ...ada, padding: 'x'.repeat(70 * 1024) } })
    expect(res.status).toBe(413)
    expect(res.body).toEqual({ isSuccessful: false, body: 'The request body is larger than the limit of 65536 bytes' })
    expect(await snapshot()).toBe(before)
  })
})

describe('unknown paths and wrong methods under the base answer in the envelope', () => {
  it('404 for a path with no resource', async () => {
    const res = await request(`${base}/0/grades`)
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ isSuccessful: false, body: 'No resource at GET /students/0/grades' })
  })

  const wrong: Array<[string, string, string]> = [
    ['DELETE', '', 'GET, POST, PUT, HEAD, OPTIONS'],
    ['PATCH', '', 'GET, POST, PUT, HEAD, OPTIONS'],
    ['POST', '/0', 'GET, DELETE, HEAD, OPTIONS'],
    ['PUT', '/0', 'GET, DELETE, HEAD, OPTIONS'],
    ['PATCH', '/0', 'GET, DELETE, HEAD, OPTIONS'],
    ['DELETE', '/assets/style.css', 'GET, HEAD, OPTIONS']
  ]
  for (const [method, path, allow] of wrong) {
    it(`${method} ${path || '/'} → 405 with Allow`, async () => {
      const before = await snapshot()
      const res = await request(`${base}${path}`, { method, json: method === 'DELETE' || method === 'GET' ? undefined : { id: 0, ...ada } })
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe(allow)
      expect(res.body.isSuccessful).toBe(false)
      expect(res.body.body).toContain(`Method ${method} is not allowed`)
      expect(await snapshot()).toBe(before)
    })
  }

  it('OPTIONS answers 204 with Allow', async () => {
    const res = await request(`${base}/0`, { method: 'OPTIONS' })
    expect(res.status).toBe(204)
    expect(res.headers.get('allow')).toBe('GET, DELETE, HEAD, OPTIONS')
  })
})

describe('500 when the record could not be stored (spec)', () => {
  /** The memory stores with a students' record store whose create always fails. */
  function brokenStudents (stores: Stores): RecordStores {
    return withRecordStores(stores, (store, name) => name === 'students' ? overriding(store, { create: async () => { throw new Error('disk on fire') } }) : store)
  }

  it('POST answers 500 "Student data could not be created" without internals', async () => {
    const stores = memoryStores()
    const broken = brokenStudents(stores)
    const srv = await startServer({}, { stores: broken })
    try {
      const res = await request(`${srv.origin}/students`, { method: 'POST', json: ada })
      expect(res.status).toBe(500)
      expect(res.body).toEqual({ isSuccessful: false, body: 'Student data could not be created' })
      expect(res.text).not.toContain('disk on fire')
    } finally {
      await srv.close()
    }
  })
})
