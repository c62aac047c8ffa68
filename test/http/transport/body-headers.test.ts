import http from 'node:http'
import { gzipSync } from 'node:zlib'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { expectProblem } from '../../services/addresses/helpers.js'
import { memoryStores, type Stores } from '../../helpers/built-ins.js'

/**
 * Issue 19, item 10: the headers that describe a request's content.
 * A Content-Type on a DELETE without content is no reason to refuse it; a
 * coded body (Content-Encoding: gzip) is refused instead of being parsed as
 * if it were plain JSON.
 */
let server: RunningServer
let stores: Stores

beforeEach(async () => {
  stores = memoryStores()
  server = await startServer({}, { stores })
})
afterEach(async () => { await server.close() })

const ada = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }
const berlin = { name: 'Ada', city: 'Berlin', postalCode: '10115' }

/** Exactly these headers on the wire (fetch would add or drop Content-Length on its own). */
async function raw (method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number, headers: http.IncomingHttpHeaders, body: any }> {
  return await new Promise((resolve, reject) => {
    const req = http.request(`${server.origin}${path}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) })
      })
    })
    req.on('error', reject)
    req.end(body)
  })
}

describe('the hook that reads them', () => {
  it('is on the routes that take content only: a GET route pays nothing', () => {
    const printed = server.app.printRoutes({ includeHooks: true, commonPrefix: false, method: 'GET' })
    expect(printed).toContain('students (GET)')
    expect(printed).not.toContain('readContentHeaders')
    for (const method of ['POST', 'PUT', 'DELETE'] as const) expect(server.app.printRoutes({ includeHooks: true, commonPrefix: false, method })).toContain('readContentHeaders')
  })
})

describe('a Content-Type on a request without content', () => {
  it('is ignored on DELETE, with Content-Length: 0 or none, in every service and version', async () => {
    for (let i = 0; i < 4; i++) await stores.students.create(ada)
    const a = await stores.addresses.create(berlin)
    const b = await stores.addresses.create(berlin)
    const json = { 'content-type': 'application/json' }
    const v1 = await raw('DELETE', '/students/0', { ...json, 'content-length': '0' })
    expect(v1).toMatchObject({ status: 200, body: { isSuccessful: true, body: 'Student with id 0 was deleted' } })
    expect((await raw('DELETE', '/students/1', json)).status).toBe(200) // no Content-Length at all
    expect((await raw('DELETE', '/v2/students/2', { 'content-type': 'application/json; charset=utf-8', 'content-length': '0' })).status).toBe(204)
    // Whatever the type: v2 parses no text/plain, and there is nothing to parse anyway.
    expect((await raw('DELETE', '/v2/students/3', { 'content-type': 'text/plain', 'content-length': '0' })).status).toBe(204)
    expect((await raw('DELETE', `/addresses/${a.id}`, { ...json, 'content-length': '0' })).status).toBe(204)
    expect((await raw('DELETE', `/v2/addresses/${b.id}`, { 'content-type': 'application/vnd.rqs.v2+json' })).status).toBe(204)
    expect(await stores.students.list()).toEqual([])
    expect(await stores.addresses.query({ where: [], sort: [] })).toEqual([])
    // A DELETE that does carry content is still read as before: malformed JSON is a 400.
    expectProblem(await request(`${server.origin}/v2/students/9`, { method: 'DELETE', body: '{', headers: json }), 400, 'MALFORMED_JSON')
  })

  it('is still the spec\'s 400 on POST and PUT, which need a body', async () => {
    const json = { 'content-type': 'application/json', 'content-length': '0' }
    expect(await raw('POST', '/students', json)).toMatchObject({ status: 400, body: { isSuccessful: false, body: 'JSON data is expected' } })
    expect(await raw('PUT', '/students', json)).toMatchObject({ status: 400, body: { isSuccessful: false, body: 'JSON data is expected' } })
    expect((await raw('POST', '/v2/students', json)).body.type).toBe('/errors/JSON_EXPECTED')
    expect((await raw('PUT', '/addresses/5', json)).body.type).toBe('/errors/JSON_EXPECTED')
    expect(await stores.students.list()).toEqual([])
  })
})

describe('Content-Encoding on a request body', () => {
  const gzipped = (value: unknown): Buffer => gzipSync(JSON.stringify(value))

  it('is 415 UNSUPPORTED_CONTENT_ENCODING with Accept-Encoding: identity, in each service\'s shape, and stores nothing', async () => {
    const headers = (body: Buffer, coding = 'gzip'): Record<string, string> => ({ 'content-type': 'application/json', 'content-encoding': coding, 'content-length': String(body.length) })
    const v2 = await raw('POST', '/v2/students', headers(gzipped(ada)), gzipped(ada))
    expect(v2.status).toBe(415)
    expect(v2.headers['accept-encoding']).toBe('identity')
    expect(v2.body).toMatchObject({ type: '/errors/UNSUPPORTED_CONTENT_ENCODING', status: 415, detail: 'Content-Encoding "gzip" is not supported: send the body uncompressed (supported: identity)' })
    expect(v2.body.errors[0]).toMatchObject({ error: 'UNSUPPORTED_CONTENT_ENCODING', message: 'The data must be sent uncompressed.' })
    const v1 = await raw('POST', '/students', headers(gzipped(ada)), gzipped(ada))
    expect(v1).toMatchObject({ status: 415, body: { isSuccessful: false, body: expect.stringContaining('Content-Encoding "gzip" is not supported') } })
    const put = await raw('PUT', '/addresses/7', headers(gzipped(berlin), 'br'), gzipped(berlin))
    expect(put).toMatchObject({ status: 415, body: { type: '/errors/UNSUPPORTED_CONTENT_ENCODING' } })
    const german = await raw('POST', '/addresses', { ...headers(gzipped(berlin), 'deflate'), 'accept-language': 'de' }, gzipped(berlin))
    expect(german.body.errors[0].message).toBe('Die Daten müssen unkomprimiert gesendet werden.')
    // A list of codings, even one ending in identity, is still coded.
    expect((await raw('POST', '/v2/students', headers(gzipped(ada), 'gzip, identity'), gzipped(ada))).status).toBe(415)
    const query = Buffer.from(JSON.stringify({ query: '{ albums { title } }' }))
    const graphql = await raw('POST', '/graphql', headers(query), query)
    expect(graphql.status).toBe(415)
    expect(graphql.body.errors[0].extensions.code).toBe('UNSUPPORTED_CONTENT_ENCODING')
    expect(await stores.students.list()).toEqual([])
    expect(await stores.addresses.get(7n)).toBeUndefined()
  })

  it('identity is the body as it is; a coding on a request without content changes nothing', async () => {
    const body = Buffer.from(JSON.stringify(ada))
    const created = await raw('POST', '/v2/students', { 'content-type': 'application/json', 'content-encoding': 'identity', 'content-length': String(body.length) }, body)
    expect(created.status).toBe(201)
    expect((await raw('DELETE', '/v2/students/0', { 'content-encoding': 'gzip', 'content-type': 'application/json', 'content-length': '0' })).status).toBe(204)
    expect((await raw('GET', '/students', { 'content-encoding': 'gzip' })).status).toBe(200)
  })
})
