import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../helpers/server.js'
import { jsonNestingDepth, MAX_JSON_DEPTH, nestsTooDeep } from '../../src/http/rest/json-depth.js'

/**
 * Issue 10, defect 5: valid JSON nested 20 000 deep was answered "The request
 * body is not valid JSON: Maximum call stack size exceeded" (the address
 * book's exact-integer re-parse recursed once per level). Every JSON body is
 * now measured before it is parsed: a clear 400 NESTING_TOO_DEEP, in each
 * service's own shape.
 */
let server: RunningServer
beforeAll(async () => { server = await startServer() })
afterAll(async () => { await server.close() })

const nest = (n: number, inner = '1'): string => '['.repeat(n) + inner + ']'.repeat(n)
// The id beyond 2^53 made the address book re-parse the whole text recursively: the original failure.
const deepAddress = `{"id":9007199254740993,"name":${nest(20_000)},"city":"c","postalCode":"p"}`
const deepStudent = `{"firstName":${nest(20_000)},"lastName":"b","age":1}`
const json = { 'content-type': 'application/json' }

describe('deep but valid JSON bodies (issue 10, defect 5)', () => {
  it('the address book answers a problem NESTING_TOO_DEEP (POST and PUT), not "Maximum call stack"', async () => {
    for (const [method, path] of [['POST', '/addresses'], ['PUT', '/addresses/7'], ['PUT', '/v2/addresses/7']]) {
      const res = await request(`${server.origin}${path as string}`, { method, body: deepAddress, headers: json })
      expect(res.status, path).toBe(400)
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      expect(res.body.errors).toEqual([expect.objectContaining({ error: 'NESTING_TOO_DEEP', detail: `The request body nests arrays or objects deeper than ${MAX_JSON_DEPTH} levels` })])
      expect(res.text).not.toMatch(/call stack/i)
    }
    expect((await request(`${server.origin}/addresses/7`)).status).toBe(404)
  })

  it('student v1 answers the envelope with the same message; v2 a problem; a versioned Content-Type too', async () => {
    const v1 = await request(`${server.origin}/students`, { method: 'POST', body: deepStudent, headers: json })
    expect(v1.status).toBe(400)
    expect(v1.body).toEqual({ isSuccessful: false, body: `The request body nests arrays or objects deeper than ${MAX_JSON_DEPTH} levels` })
    const v2 = await request(`${server.origin}/students`, { method: 'POST', body: deepStudent, headers: { 'content-type': 'application/vnd.rqs.v2+json', accept: 'application/vnd.rqs.v2+json' } })
    expect(v2.status).toBe(400)
    expect(v2.body.errors[0].error).toBe('NESTING_TOO_DEEP')
    expect((await request(`${server.origin}/students`)).body.body).toEqual([])
  })

  it(`${MAX_JSON_DEPTH} levels still parse (and are then judged by the schema as usual)`, async () => {
    // Students v1 drops a member that is no field (the spec's behaviour); the address book refuses it, naming it.
    const v1 = await request(`${server.origin}/students`, { method: 'POST', body: `{"firstName":"A","lastName":"B","age":30,"extra":${nest(MAX_JSON_DEPTH - 1)}}`, headers: json })
    expect(v1.status).toBe(201)
    const address = await request(`${server.origin}/addresses`, { method: 'POST', body: `{"name":"n","city":"c","postalCode":"p","extra":${nest(MAX_JSON_DEPTH - 1)}}`, headers: json })
    expect(address.status).toBe(400)
    expect(address.body.errors[0].error).toBe('FIELD_UNKNOWN')
  })

  it('measures nesting in one pass, ignoring brackets inside strings and stopping at the limit', () => {
    expect(jsonNestingDepth('{"a":[1,{"b":2}]}', 64)).toBe(3)
    expect(jsonNestingDepth('{"a":"[[[[\\"[[[["}', 64)).toBe(1)
    expect(jsonNestingDepth(nest(65), 64)).toBe(-1)
    expect(jsonNestingDepth(nest(64), 64)).toBe(64)
    expect(jsonNestingDepth('"\\\\"[', 64)).toBe(1)
  })

  it('leaves out the walk only where the text is too short to pass the limit', () => {
    // A level takes a character: `limit` characters of brackets are `limit` levels at most.
    expect(nestsTooDeep('['.repeat(4), 4)).toBe(false)
    expect(nestsTooDeep('['.repeat(5), 4)).toBe(true)
    expect(nestsTooDeep(nest(MAX_JSON_DEPTH))).toBe(false)
    expect(nestsTooDeep(nest(MAX_JSON_DEPTH + 1))).toBe(true)
    expect(nestsTooDeep(`{"a":"${'['.repeat(100)}"}`)).toBe(false)
  })
})
