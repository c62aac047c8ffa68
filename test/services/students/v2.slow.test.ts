import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { memoryStores, type Stores } from '../../helpers/built-ins.js'

const ada = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }
const alan = { firstName: 'Alan', lastName: 'Turing', age: 41 }
let server: RunningServer
let stores: Stores
let v2: string

beforeEach(async () => {
  stores = memoryStores()
  server = await startServer({}, { stores })
  v2 = `${server.origin}/v2/students`
})
afterEach(async () => { await server.close() })

function expectProblem (res: { status: number, headers: Headers, body: any }, status: number, code: string): void {
  expect(res.status).toBe(status)
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  expect(res.body.status).toBe(status)
  const codes = [res.body.type.split('/').pop(), ...res.body.errors.map((e: any) => e.error)]
  expect(codes).toContain(code)
}

describe('student representation v2', () => {
  it('POST answers 201 with the plain Student, Location and a strong ETag', async () => {
    const res = await request(v2, { method: 'POST', json: ada })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({ id: 0, ...ada })
    expect(res.headers.get('location')).toBe('/v2/students/0')
    expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/)
    const header = await request(`${server.origin}/students`, { method: 'POST', headers: { accept: 'application/vnd.rqs.v2+json' }, json: alan })
    expect(header.headers.get('location')).toBe('/students/1')
  })

  it('GET lists plain Students and reads one with its ETag', async () => {
    await request(v2, { method: 'POST', json: ada })
    expect((await request(v2)).body).toEqual([{ id: 0, ...ada }])
    const one = await request(`${v2}/0`)
    expect(one.body).toEqual({ id: 0, ...ada })
    expect(one.headers.get('etag')).toBe((await request(`${v2}/0`)).headers.get('etag'))
  })

  it('keeps the spec id rule', async () => {
    for (const s of [ada, alan, ada]) await request(v2, { method: 'POST', json: s })
    expect((await request(`${v2}/0`, { method: 'DELETE' })).status).toBe(204)
    const next = await request(v2, { method: 'POST', json: alan })
    expect(next.body.id).toBe(2)
    expect((await request(v2)).body).toHaveLength(2)
  })

  it('errors are problem details: 404, 400 with one entry per field, 400 for a bad id, 415 for a non-JSON body', async () => {
    expectProblem(await request(`${v2}/5`), 404, 'STUDENT_NOT_FOUND')
    expectProblem(await request(`${v2}/abc`), 400, 'INVALID_ID')
    const invalid = await request(v2, { method: 'POST', json: { firstName: 7, age: 'x' } })
    expectProblem(invalid, 400, 'VALIDATION_FAILED')
    expect(invalid.body.errors.length).toBeGreaterThanOrEqual(3)
    expectProblem(await request(v2, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify(ada) }), 415, 'UNSUPPORTED_MEDIA_TYPE')
    expectProblem(await request(v2, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"firstName":' }), 400, 'MALFORMED_JSON')
    expectProblem(await request(`${v2}/0`, { method: 'POST', json: ada }), 405, 'METHOD_NOT_ALLOWED')
    expect((await stores.students.list())).toEqual([])
  })

  it('a JSON array PUT is "a JSON object is expected" in v2 (a POSTed array is a bulk create), while v1 keeps the spec\'s "JSON data is expected"', async () => {
    const res = await request(`${v2}/0`, { method: 'PUT', json: [ada] })
    expectProblem(res, 400, 'JSON_EXPECTED')
    expect(res.body.title).toBe('JSON object expected')
    expect(res.body.errors[0].message).toBe('A JSON object is expected.')
    const german = await request(`${v2}/0`, { method: 'PUT', json: [ada], headers: { 'accept-language': 'de' } })
    expect(german.body.errors[0].message).toBe('Es wird ein JSON-Objekt erwartet.')
    const v1 = await request(`${server.origin}/students`, { method: 'POST', json: [ada] })
    expect(v1.status).toBe(400)
    expect(v1.body).toEqual({ isSuccessful: false, body: 'JSON data is expected' })
  })

  it('If-None-Match: * on an existing student is 412 saying the record exists', async () => {
    await request(v2, { method: 'POST', json: ada })
    const res = await request(`${v2}/0`, { method: 'PUT', json: alan, headers: { 'if-none-match': '*' } })
    expectProblem(res, 412, 'RECORD_EXISTS')
    expect(res.body.errors[0].message).toBe('A record with this id already exists.')
  })

  it('PUT /{id} replaces (never creates), and a body id that differs is 400', async () => {
    await request(v2, { method: 'POST', json: ada })
    const res = await request(`${v2}/0`, { method: 'PUT', json: alan })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ id: 0, ...alan })
    expectProblem(await request(`${v2}/7`, { method: 'PUT', json: alan }), 404, 'STUDENT_NOT_FOUND')
    expectProblem(await request(`${v2}/0`, { method: 'PUT', json: { ...ada, id: 3 } }), 400, 'ID_MISMATCH')
    // PUT / with the id in the body, as in v1, still works.
    const legacy = await request(v2, { method: 'PUT', json: { id: 0, ...ada } })
    expect(legacy.body).toEqual({ id: 0, ...ada })
    expect(await stores.students.list()).toEqual([{ id: 0, ...ada }])
  })

  it('If-None-Match on GET answers 304; If-Match guards PUT and DELETE against lost updates (412)', async () => {
    await request(v2, { method: 'POST', json: ada })
    const read = await request(`${v2}/0`)
    const etag = read.headers.get('etag') as string
    const notModified = await fetch(`${v2}/0`, { headers: { 'if-none-match': etag } })
    expect(notModified.status).toBe(304)

    // Two clients read the same version; the first update wins, the second is refused.
    const first = await request(`${v2}/0`, { method: 'PUT', headers: { 'if-match': etag }, json: alan })
    expect(first.status).toBe(200)
    expect(first.headers.get('etag')).not.toBe(etag)
    const second = await request(`${v2}/0`, { method: 'PUT', headers: { 'if-match': etag }, json: { ...ada, age: 99 } })
    expectProblem(second, 412, 'PRECONDITION_FAILED')
    expectProblem(await request(`${v2}/0`, { method: 'DELETE', headers: { 'if-match': etag } }), 412, 'PRECONDITION_FAILED')
    expect(await stores.students.get(0)).toEqual({ id: 0, ...alan })

    const current = first.headers.get('etag') as string
    expect((await request(`${v2}/0`, { method: 'DELETE', headers: { 'if-match': current } })).status).toBe(204)
    // RFC 9110 §13.2.1: a missing record is 404 whatever the preconditions say.
    expectProblem(await request(`${v2}/0`, { method: 'DELETE', headers: { 'if-match': current } }), 404, 'STUDENT_NOT_FOUND')
  })

  it('answers 500 RECORD_NOT_CREATED without internals when the store fails', async () => {
    const broken = memoryStores()
    broken.collections.get('students')!.create = async () => { throw new Error('disk on fire') }
    const srv = await startServer({}, { stores: broken })
    try {
      const res = await request(`${srv.origin}/v2/students`, { method: 'POST', json: ada })
      expectProblem(res, 500, 'RECORD_NOT_CREATED')
      expect(res.text).not.toContain('disk on fire')
    } finally { await srv.close() }
  })
})
