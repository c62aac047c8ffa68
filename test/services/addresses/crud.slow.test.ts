import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { berlin, expectProblem, hamburg, MAX_ID, sendRaw } from './helpers.js'

let server: RunningServer
let base: string

beforeEach(async () => {
  server = await startServer()
  base = `${server.origin}/addresses`
})
afterEach(async () => { await server.close() })

describe('POST /addresses (not idempotent)', () => {
  it('creates a new record each time: 201, Location, the stored address with a generated id', async () => {
    const first = await request(base, { method: 'POST', json: berlin })
    const second = await request(base, { method: 'POST', json: berlin })
    expect(first.status).toBe(201)
    expect(second.status).toBe(201)
    expect(first.text).toBe('{"id":1,"name":"Ada Lovelace","city":"Berlin","postalCode":"10115"}')
    expect(second.body).toEqual({ id: 2, ...berlin })
    expect(first.headers.get('location')).toBe('/addresses/1')
    expect(second.headers.get('location')).toBe('/addresses/2')
    expect((await request(`${server.origin}/addresses/2`)).body).toEqual({ id: 2, ...berlin })
  })

  it('ignores a submitted id (the service generates ids)', async () => {
    const res = await request(base, { method: 'POST', json: { ...berlin, id: 77 } })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({ id: 1, ...berlin })
    expect((await request(`${base}/1`)).body).toEqual({ id: 1, ...berlin })
    expect((await request(`${base}/77`)).status).toBe(404)
  })

  it('never generates an id a PUT already created', async () => {
    await request(`${base}/1`, { method: 'PUT', json: berlin })
    await request(`${base}/2`, { method: 'PUT', json: berlin })
    const res = await request(base, { method: 'POST', json: hamburg })
    expect(res.body.id).toBe(3)
    expect((await request(`${base}/1`)).body).toEqual({ id: 1, ...berlin })
  })

  it('requires name, city and postalCode as strings, reporting every failure', async () => {
    const res = await request(base, { method: 'POST', json: { city: 5, postalCode: null } })
    const body = expectProblem(res, 400, 'VALIDATION_FAILED')
    const entries = body.errors.map((e: any) => `${e.error} ${e.detail}`)
    expect(entries).toEqual(expect.arrayContaining([
      'FIELD_REQUIRED body.name is required',
      expect.stringMatching(/^FIELD_TYPE body\.city /),
      expect.stringMatching(/^FIELD_TYPE body\.postalCode /)
    ]))
    expect(entries).toHaveLength(3)
    expect((await request(base)).body.items).toEqual([])
  })

  it('applies the length limits: name and city 1–200, postalCode 1–32 (empty refused since issue 22: it showed as a blank cell)', async () => {
    const tooLong = await request(base, { method: 'POST', json: { name: 'x'.repeat(201), city: '', postalCode: '1'.repeat(33) } })
    const body = expectProblem(tooLong, 400, 'VALIDATION_FAILED')
    expect(body.errors.map((e: any) => e.error).sort()).toEqual(['FIELD_TOO_LONG', 'FIELD_TOO_LONG', 'FIELD_TOO_SHORT'])
    const empty = await request(base, { method: 'POST', json: { name: 'x'.repeat(200), city: 'Hong Kong', postalCode: '' } })
    expect(expectProblem(empty, 400, 'VALIDATION_FAILED').errors.map((e: any) => e.error)).toEqual(['FIELD_TOO_SHORT'])
    const ok = await request(base, { method: 'POST', json: { name: 'x'.repeat(200), city: 'Hong Kong', postalCode: '1'.repeat(32) } })
    expect(ok.status).toBe(201)
  })
})

describe('PUT /addresses/{id} (idempotent)', () => {
  it('creates under the path id (201 + Location), then repeating it yields the same record (200)', async () => {
    const first = await request(`${base}/42`, { method: 'PUT', json: berlin })
    expect(first.status).toBe(201)
    expect(first.headers.get('location')).toBe('/addresses/42')
    expect(first.body).toEqual({ id: 42, ...berlin })
    const second = await request(`${base}/42`, { method: 'PUT', json: berlin })
    expect(second.status).toBe(200)
    expect(second.text).toBe(first.text)
    expect(second.headers.get('location')).toBeNull()
    const list = await request(base)
    expect(list.body.items).toEqual([{ id: 42, ...berlin }])
  })

  it('on an existing record replaces city and postalCode and keeps the stored name', async () => {
    await request(`${base}/7`, { method: 'PUT', json: berlin })
    const res = await request(`${base}/7`, { method: 'PUT', json: { name: 'Someone Else', city: 'Hamburg', postalCode: '20095' } })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ id: 7, name: 'Ada Lovelace', city: 'Hamburg', postalCode: '20095' })
    expect((await request(`${base}/7`)).body).toEqual(res.body)
  })

  it('needs no name to update, but does to create', async () => {
    const create = await request(`${base}/8`, { method: 'PUT', json: { city: 'Bonn', postalCode: '53111' } })
    const body = expectProblem(create, 400, 'VALIDATION_FAILED')
    expect(body.errors).toEqual([expect.objectContaining({ error: 'FIELD_REQUIRED', message: 'name is required.' })])
    expect((await request(`${base}/8`)).status).toBe(404)

    await request(`${base}/8`, { method: 'PUT', json: berlin })
    const update = await request(`${base}/8`, { method: 'PUT', json: { city: 'Bonn', postalCode: '53111' } })
    expect(update.status).toBe(200)
    expect(update.body).toEqual({ id: 8, name: berlin.name, city: 'Bonn', postalCode: '53111' })
  })

  it('requires city and postalCode', async () => {
    const res = await request(`${base}/9`, { method: 'PUT', json: { name: 'A' } })
    const body = expectProblem(res, 400, 'VALIDATION_FAILED')
    expect(body.errors.map((e: any) => e.detail).sort()).toEqual(['body.city is required', 'body.postalCode is required'])
  })

  it('accepts a body id equal to the path id and rejects a different one with 400, storing nothing', async () => {
    expect((await request(`${base}/5`, { method: 'PUT', json: { id: 5, ...berlin } })).status).toBe(201)
    const res = await request(`${base}/6`, { method: 'PUT', json: { id: 5, ...berlin } })
    expectProblem(res, 400, 'ID_MISMATCH')
    expect((await request(`${base}/6`)).status).toBe(404)
    const typed = await request(`${base}/6`, { method: 'PUT', json: { id: '6', ...berlin } })
    expect(expectProblem(typed, 400, 'VALIDATION_FAILED').errors[0].error).toBe('FIELD_TYPE')
  })
})

describe('64-bit ids', () => {
  it(`round-trips ${MAX_ID} with every digit (raw response text)`, async () => {
    const put = await sendRaw(`${base}/${MAX_ID}`, 'PUT', `{"id":${MAX_ID},"name":"Max","city":"Kiel","postalCode":"24103"}`)
    expect(put.status).toBe(201)
    const expected = `{"id":${MAX_ID},"name":"Max","city":"Kiel","postalCode":"24103"}`
    expect(put.text).toBe(expected)
    expect(put.headers.get('location')).toBe(`/addresses/${MAX_ID}`)
    expect((await request(`${base}/${MAX_ID}`)).text).toBe(expected)
    expect((await request(base)).text).toBe(`{"items":[${expected}]}`)
  })

  it('compares a body id beyond 2^53 exactly (JSON.parse would round both to the same number)', async () => {
    // 9223372036854775806 and 9223372036854775807 are the same IEEE double.
    expect(Number('9223372036854775806')).toBe(Number(MAX_ID))
    const res = await sendRaw(`${base}/${MAX_ID}`, 'PUT', '{"id":9223372036854775806,"name":"Max","city":"Kiel","postalCode":"24103"}')
    expect(expectProblem(res, 400, 'ID_MISMATCH').detail).toContain('9223372036854775806')
    expect((await request(`${base}/${MAX_ID}`)).status).toBe(404)
    const same = await sendRaw(`${base}/9007199254740993`, 'PUT', '{"id":9007199254740993,"name":"A","city":"B","postalCode":"C"}')
    expect(same.status).toBe(201)
    expect(same.text).toContain('"id":9007199254740993,')
  })

  it('rejects a body id beyond 2^53 that is not in plain digits (1e19, 9223372036854775807.0) as FIELD_TYPE', async () => {
    for (const id of ['1e19', `${MAX_ID}.0`]) {
      const res = await sendRaw(`${base}/${MAX_ID}`, 'PUT', `{"id":${id},"name":"Max","city":"Kiel","postalCode":"24103"}`)
      expect(expectProblem(res, 400, 'VALIDATION_FAILED').errors[0]).toMatchObject({ error: 'FIELD_TYPE', detail: 'body.id must be an integer in plain decimal digits' })
    }
    expect((await request(`${base}/${MAX_ID}`)).status).toBe(404)
  })

  it.each([
    ['0'], ['-1'], ['9223372036854775808'], ['99999999999999999999'], ['abc'], ['1.5'], ['01'], ['+1'], ['1e3'], ['0x10'], ['%201']
  ])('answers 400 INVALID_ID for path id %s on GET, PUT and DELETE', async (id) => {
    expectProblem(await request(`${base}/${id}`), 400, 'INVALID_ID')
    expectProblem(await request(`${base}/${id}`, { method: 'PUT', json: berlin }), 400, 'INVALID_ID')
    expectProblem(await request(`${base}/${id}`, { method: 'DELETE' }), 400, 'INVALID_ID')
    expect((await request(base)).body.items).toEqual([])
  })

  it('answers a path id longer than the router accepts (256 chars) with a 414 problem', async () => {
    const res = await request(`${base}/${'1'.repeat(300)}`)
    expectProblem(res, 414, 'CLIENT_ERROR')
  })
})

describe('GET and DELETE /addresses/{id}', () => {
  it('GET answers 404 ADDRESS_NOT_FOUND for an absent record', async () => {
    const body = expectProblem(await request(`${base}/12`), 404, 'ADDRESS_NOT_FOUND')
    expect(body.detail).toBe('No address has the id 12')
    expect(body.instance).toBe('/addresses/12')
  })

  it('DELETE answers 204, then the record is gone (GET and DELETE 404)', async () => {
    await request(base, { method: 'POST', json: berlin })
    const del = await request(`${base}/1`, { method: 'DELETE' })
    expect(del.status).toBe(204)
    expect(del.text).toBe('')
    expectProblem(await request(`${base}/1`), 404, 'ADDRESS_NOT_FOUND')
    expectProblem(await request(`${base}/1`, { method: 'DELETE' }), 404, 'ADDRESS_NOT_FOUND')
  })

  it('HEAD answers like GET without a body', async () => {
    await request(base, { method: 'POST', json: berlin })
    const res = await fetch(`${base}/1`, { method: 'HEAD' })
    expect(res.status).toBe(200)
    expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/)
    expect(await res.text()).toBe('')
  })
})

describe('methods and media types', () => {
  it('answers 405 with Allow for methods a path does not serve, and OPTIONS with 204 + Allow', async () => {
    const post = await request(`${base}/1`, { method: 'POST', json: berlin })
    expectProblem(post, 405, 'METHOD_NOT_ALLOWED')
    expect(post.headers.get('allow')).toBe('GET, PUT, PATCH, DELETE, HEAD, OPTIONS')
    const put = await request(base, { method: 'PUT', json: berlin })
    expectProblem(put, 405, 'METHOD_NOT_ALLOWED')
    expect(put.headers.get('allow')).toBe('GET, POST, PATCH, DELETE, HEAD, OPTIONS')
    const options = await request(base, { method: 'OPTIONS' })
    expect(options.status).toBe(204)
    expect(options.headers.get('allow')).toBe('GET, POST, PATCH, DELETE, HEAD, OPTIONS')
  })

  it('answers 406 when Accept excludes JSON, and serves JSON when it is merely less preferred', async () => {
    await request(base, { method: 'POST', json: berlin })
    expectProblem(await request(`${base}/1`, { headers: { accept: 'text/html' } }), 406, 'NOT_ACCEPTABLE')
    const post = await request(base, { method: 'POST', json: hamburg, headers: { accept: 'application/xml' } })
    expectProblem(post, 406, 'NOT_ACCEPTABLE')
    expect((await request(base)).body.items).toHaveLength(1) // the refused POST stored nothing
    const ok = await request(`${base}/1`, { headers: { accept: 'text/html, application/json;q=0.5' } })
    expect(ok.status).toBe(200)
    expect((await request(`${base}/1`, { headers: { accept: 'application/*' } })).status).toBe(200)
  })

  it('answers 415 for a body that is not JSON, with or without a Content-Type', async () => {
    const text = await request(base, { method: 'POST', body: 'name=A', headers: { 'content-type': 'text/plain' } })
    expectProblem(text, 415, 'UNSUPPORTED_MEDIA_TYPE')
    const form = await request(`${base}/3`, { method: 'PUT', body: 'name=A', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expectProblem(form, 415, 'UNSUPPORTED_MEDIA_TYPE')
    const bare = await request(base, { method: 'POST', body: new Blob(['{"name":"A"}']) })
    expectProblem(bare, 415, 'UNSUPPORTED_MEDIA_TYPE')
    expect((await request(base)).body.items).toEqual([])
  })

  it('accepts application/json with a charset parameter', async () => {
    const res = await request(base, { method: 'POST', body: JSON.stringify(berlin), headers: { 'content-type': 'application/json; charset=utf-8' } })
    expect(res.status).toBe(201)
  })
})

describe('bad input is a 4xx problem and changes nothing', () => {
  const cases: Array<[string, string, number, string]> = [
    ['malformed JSON', '{"name": "A",', 400, 'MALFORMED_JSON'],
    ['a number', '42', 400, 'JSON_EXPECTED'],
    ['a string', '"Berlin"', 400, 'JSON_EXPECTED'],
    ['null', 'null', 400, 'JSON_EXPECTED'],
    ['an empty body', '', 400, 'JSON_EXPECTED'],
    ['a __proto__ key', `{"__proto__":{"isAdmin":true},"name":"A","city":"B","postalCode":"C"}`, 400, 'FORBIDDEN_PROPERTY'],
    ['an escaped __proto__ key', `{"\\u005f_proto__":{"x":1},"name":"A","city":"B","postalCode":"C"}`, 400, 'FORBIDDEN_PROPERTY'],
    ['a constructor.prototype key', `{"constructor":{"prototype":{"x":1}},"name":"A","city":"B","postalCode":"C"}`, 400, 'FORBIDDEN_PROPERTY']
  ]

  it.each(cases)('POST and PUT with %s', async (_label, text, status, code) => {
    expectProblem(await sendRaw(base, 'POST', text), status, code)
    expectProblem(await sendRaw(`${base}/1`, 'PUT', text), status, code)
    expect((await request(base)).body.items).toEqual([])
    expect(({} as any).isAdmin).toBeUndefined()
  })

  it('a 2 MB body is 413 BODY_TOO_LARGE', async () => {
    const big = JSON.stringify({ ...berlin, name: 'x'.repeat(2 * 1024 * 1024) })
    const body = expectProblem(await sendRaw(base, 'POST', big), 413, 'BODY_TOO_LARGE')
    expect(body.detail).toContain('1048576')
    expect((await request(base)).body.items).toEqual([])
  })
})
