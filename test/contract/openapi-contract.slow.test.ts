import { Validator } from '@seriousme/openapi-schema-validator'
import openapiTS, { astToString } from 'openapi-typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { StoreUnavailableError } from '../../src/domain/index.js'
import { ContractChecker, ContractRecorder } from '../helpers/contract.js'
import { request, startServer, type RunningServer } from '../helpers/server.js'
import { withRecordStores } from '../helpers/stores.js'
import { memoryStores, type Stores } from '../helpers/built-ins.js'

/**
 * The API description cannot drift: a broad set of requests (every route and
 * method of the router, success and error answers of each service) runs
 * against servers that record every answer, and each answer is held against
 * the server's own /openapi.json (status, media type, body, headers); every
 * route of the router must be in the document. Any other test can record
 * too: `startServer(overrides, deps, { contract: new ContractRecorder() })`.
 */

const V2 = 'application/vnd.rqs.v2+json'
const V1 = 'application/vnd.rqs.v1+json'
const ada = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }
const berlin = { name: 'Ada Lovelace', city: 'Berlin', postalCode: '10115' }
const MAX_ID = '9223372036854775807'

const recorder = new ContractRecorder()
let server: RunningServer
let doc: any

beforeAll(async () => {
  server = await startServer({}, {}, { contract: recorder })
  doc = (await request(`${server.origin}/openapi.json`)).body
})
afterAll(async () => { await server.close() })

/** Sends a request; the recorder keeps the answer. */
async function send (path: string, init: RequestInit & { json?: unknown } = {}, origin = server.origin): Promise<Awaited<ReturnType<typeof request>>> {
  return await request(`${origin}${path}`, init)
}

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 (checked by @seriousme/openapi-schema-validator)', async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(doc))
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
  })

  it('names its schemas, describes every answer and gives every operation an id', () => {
    for (const name of ['Student', 'StudentEnvelope', 'StudentInput', 'ErrorEnvelope', 'Address', 'AddressPage', 'AddressPut', 'Problem', 'ErrorEntry', 'GraphQLResponse', 'Catalogue', 'Directory']) {
      expect(doc.components.schemas[name], name).toBeDefined()
    }
    const text = JSON.stringify(doc)
    expect(text).not.toContain('Default Response')
    expect(text).not.toMatch(/"[A-Za-z]+":\{\}/) // no stray `"id": {}`
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }])
    const ids = new Set<string>()
    for (const item of Object.values<any>(doc.paths)) {
      for (const op of Object.values<any>(item)) {
        expect(op.operationId).toMatch(/^[a-z][A-Za-z0-9]+$/)
        ids.add(op.operationId)
      }
    }
    expect(ids.size).toBeGreaterThan(30)
  })

  it('says what the issue found missing: media types, statuses, headers, int64 ids, optional limit, 204 deletes', () => {
    const paths = doc.paths
    const student = paths['/students/{id}']
    expect(Object.keys(student.get.responses['200'].content)).toEqual([V2, V1, 'application/json'])
    expect(student.get.responses['404'].content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/Problem' })
    expect(student.get.responses['404'].content['application/json'].examples.STUDENT_NOT_FOUND.value).toEqual({ isSuccessful: false, body: 'Student with id 7 was not found' })
    expect(student.get.responses['304']).toBeDefined()
    expect(student.delete.responses['200']).toBeDefined() // v1
    expect(student.delete.responses['204']).toBeDefined() // v2
    expect(student.put.responses['405'].headers.Allow).toBeDefined() // v1 has no PUT /{id}
    expect(paths['/v2/students/{id}'].delete.responses['204'].content).toBeUndefined()
    expect(paths['/v2/students/{id}'].delete.responses['200']).toBeUndefined()
    const address = paths['/addresses/{id}']
    for (const status of ['200', '201', '400', '406', '412', '413', '415', '503']) expect(address.put.responses[status], status).toBeDefined()
    for (const status of ['200', '304', '400', '404', '406', '412', '503']) expect(address.get.responses[status], status).toBeDefined()
    expect(address.put.responses['412'].content['application/problem+json'].examples.RECORD_EXISTS.value.errors[0].message).toBe('A record with this id already exists.')
    expect(address.put.responses['201'].headers.Location).toBeDefined()
    expect(address.put.responses['503'].headers['Retry-After']).toBeDefined()
    expect(address.put.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(['id', 'If-Match', 'If-None-Match', 'Accept', 'Accept-Language']))
    expect(doc.components.schemas.Address.properties.id).toMatchObject({ type: 'integer', format: 'int64', minimum: 1 })
    const limit = paths['/addresses'].get.parameters.find((p: any) => p.name === 'limit')
    expect(limit.required).toBe(false)
    // A JSON page's default and maximum are said in words: an NDJSON stream has neither (issue 19).
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1 })
    expect(limit.schema.default).toBeUndefined()
    expect(limit.description).toMatch(/^Page size \(1–500, default 50\)\. With `Accept: application\/x-ndjson` it caps the stream instead/)
    expect(paths['/addresses'].get.responses['200'].headers.Link).toBeDefined()
    expect(Object.keys(paths['/graphql'].post.responses['200'].content)).toEqual(['application/json', 'application/graphql-response+json'])
    expect(paths['/graphql'].get.responses['303'].headers.Location).toBeDefined()
  })

  it('gives a client generator (openapi-typescript) a named type for every schema and every operation', async () => {
    const types = astToString(await openapiTS(structuredClone(doc)))
    for (const name of Object.keys(doc.components.schemas)) expect(types, name).toMatch(new RegExp(`\\n {8}${name}: \\{`))
    for (const item of Object.values<any>(doc.paths)) {
      for (const op of Object.values<any>(item)) expect(types).toContain(`    ${op.operationId as string}: {`)
    }
  })
})

describe('every answer agrees with the document', () => {
  it('the student service, v1 and v2, by header and by URI', async () => {
    await send('/students')
    await send('/students', { method: 'POST', json: ada })
    await send('/students/0')
    await send('/students/0', { method: 'HEAD' })
    await send('/students/0', { headers: { accept: V1 } })
    await send('/students', { method: 'PUT', json: { id: 0, ...ada } })
    await send('/students', { method: 'PUT', json: { id: 9, ...ada } })
    await send('/students/abc')
    await send('/students/9')
    await send('/students', { method: 'POST', body: '[1]', headers: { 'content-type': 'application/json' } })
    await send('/students', { method: 'POST', body: '{"firstName":', headers: { 'content-type': 'application/json' } })
    await send('/students', { method: 'POST', json: { firstName: '', age: -1 } })
    await send('/students', { method: 'POST', body: 'x', headers: { 'content-type': 'text/csv' } })
    // Nested past the JSON depth limit (issue 10): 400 NESTING_TOO_DEEP, in the envelope and as a problem.
    const deep = `{"firstName":${'['.repeat(100)}${']'.repeat(100)}}`
    await send('/students', { method: 'POST', body: deep, headers: { 'content-type': 'application/json' } })
    await send('/addresses', { method: 'POST', body: deep, headers: { 'content-type': 'application/json' } })
    await send('/students', { method: 'POST', body: JSON.stringify({ ...ada, pad: 'x'.repeat(1_100_000) }), headers: { 'content-type': 'application/json' } })
    await send('/students/0', { method: 'PUT', json: ada })
    await send('/students/0', { method: 'PATCH', json: ada })
    await send('/students/0', { headers: { accept: 'application/vnd.rqs.v9+json' } })
    await send('/students/nothing/here')
    await send('/students/assets/index.html')
    await send('/students/assets/missing.txt')
    await send('/students/assets/missing.txt', { headers: { accept: V2 } })
    for (const base of ['/v2/students', '/students']) {
      const headers: Record<string, string> = base === '/students' ? { accept: V2 } : {}
      const created = await send(base, { method: 'POST', json: ada, headers })
      const url = `${base}/${created.body.id as number}`
      const etag = created.headers.get('etag') as string
      await send(url, { headers })
      await send(url, { headers: { ...headers, 'if-none-match': etag } })
      await send(url, { headers: { ...headers, 'if-match': '"stale"' } })
      await send(url, { method: 'PUT', json: ada, headers: { ...headers, 'if-match': etag } })
      await send(url, { method: 'PUT', json: ada, headers: { ...headers, 'if-match': '"stale"' } })
      await send(url, { method: 'PUT', json: ada, headers: { ...headers, 'if-none-match': '*' } })
      await send(url, { method: 'PUT', json: { ...ada, id: 12345 }, headers })
      await send(base, { method: 'PUT', json: { id: created.body.id, ...ada }, headers })
      await send(base, { method: 'POST', json: [ada], headers: { ...headers, 'accept-language': 'de' } })
      await send(base, { method: 'POST', body: 'x', headers: { ...headers, 'content-type': 'text/plain' } })
      await send(`${base}/abc`, { headers })
      await send(`${base}/999`, { method: 'DELETE', headers })
      await send(url, { method: 'DELETE', headers })
      await send(base, { headers })
    }
    await send('/v1/students/0')
    await send('/v1/students/0', { headers: { accept: V2 } })
    await send('/v1/students', { method: 'DELETE' })
    await send('/v2/students/assets/index.html')
    expect(recorder.exchanges.length).toBeGreaterThan(50)
  })

  it('the address book', async () => {
    const created = await send('/addresses', { method: 'POST', json: berlin })
    const etag = created.headers.get('etag') as string
    await send('/addresses/1')
    await send('/addresses/1', { headers: { 'if-none-match': etag } })
    await send('/addresses/1', { method: 'PUT', json: { city: 'Kiel', postalCode: '24103' }, headers: { 'if-match': etag } })
    await send('/addresses/1', { method: 'PUT', json: berlin, headers: { 'if-match': etag } })
    await send('/addresses/1', { method: 'PUT', json: berlin, headers: { 'if-none-match': '*' } })
    await send(`/addresses/${MAX_ID}`, { method: 'PUT', body: `{"id":${MAX_ID},"name":"Max","city":"Kiel","postalCode":"24103"}`, headers: { 'content-type': 'application/json' } })
    await send(`/addresses/${MAX_ID}`)
    await send('/addresses/2', { method: 'PUT', json: { id: 3, ...berlin } })
    await send('/addresses/4', { method: 'PUT', json: { city: 'Bonn', postalCode: '53111' } })
    for (const body of [berlin, berlin, berlin]) await send('/addresses', { method: 'POST', json: body })
    const page = await send('/addresses?limit=2&city=Berlin')
    await send(page.body.next as string)
    await send('/addresses?limit=0')
    await send('/addresses?cursor=nope')
    await send('/addresses/0')
    await send('/addresses/99')
    await send('/addresses', { method: 'POST', json: { city: 5 }, headers: { 'accept-language': 'fr;q=0.9, de;q=0.8' } })
    await send('/addresses', { method: 'POST', body: '{"__proto__":{"x":1},"name":"a","city":"b","postalCode":"c"}', headers: { 'content-type': 'application/json' } })
    await send('/addresses', { method: 'POST', body: '', headers: { 'content-type': 'application/json' } })
    await send('/addresses', { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } })
    await send('/addresses', { headers: { accept: 'text/csv' } })
    await send('/addresses/1', { method: 'DELETE', headers: { 'if-match': '"stale"' } })
    await send('/addresses/1', { method: 'DELETE' })
    await send('/addresses/1', { method: 'DELETE' })
    await send('/v1/addresses/2', { headers: { accept: V2 } })
    await send('/v2/addresses?limit=1')
    await send('/addresses/1', { method: 'OPTIONS' })
  })

  it('the album query service, the entry point, the catalogue and health', async () => {
    const query = encodeURIComponent('{ albums { title recordNo } }')
    await send(`/graphql?query=${query}`)
    await send(`/graphql?query=${query}`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } })
    await send('/graphql', { method: 'POST', json: { query: '{ albums(titleFilter: "Sounds") { title artist } }' } })
    await send('/graphql', { method: 'POST', json: { query: '{ albums { year } }' }, headers: { accept: 'application/graphql-response+json' } })
    await send('/graphql', { method: 'POST', json: { query: '{ albums { year } }' } })
    await send('/graphql', { method: 'POST', json: { query: '{' } })
    await send('/graphql', { method: 'POST', body: 'not json', headers: { 'content-type': 'application/json' } })
    await send('/graphql', { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } })
    await send('/graphql', { method: 'POST', json: { query: '{ albums { title } }' }, headers: { accept: 'text/csv' } })
    await send(`/graphql?query=${encodeURIComponent('mutation { x }')}`)
    await send('/graphql', { method: 'PUT' })
    await send('/graphql/schema.graphql')
    await send('/graphiql')
    await send('/')
    await send('/', { headers: { accept: 'text/html' } })
    await send('/errors')
    await send('/errors', { headers: { accept: 'text/html', 'accept-language': 'de' } })
    await send('/errors/ADDRESS_NOT_FOUND')
    await send('/errors/NOPE')
    await send('/errors', { method: 'POST' })
    await send('/healthz')
    await send('/readyz')
    await send('/openapi.json')
    await send('/nowhere')
  })

  it('every method of every route the router has', async () => {
    const sample = (url: string): string => url.replace(/:(\w+)/g, (_, name: string) => name === 'code' ? 'INTERNAL' : '1').replace(/\*$/, 'index.html')
    for (const route of recorder.routes) {
      if (ContractChecker.skipped(sample(route.url))) continue
      for (const method of route.methods) {
        // fetch cannot send CONNECT; test/reliability/connect.test.ts asks it over a raw socket.
        if (method === 'CONNECT') continue
        // The change feed streams without end: ask it for what it cannot give (406), which still checks its errors.
        const endless = route.url === '/events' ? { headers: { accept: 'application/json' } } : {}
        await send(sample(route.url), { method, ...endless, ...(method === 'POST' || method === 'PUT' || method === 'PATCH' ? { json: {} } : {}) })
      }
    }
  })

  it('a store that is down (503 with Retry-After) and a deprecated version', async () => {
    const down = outage()
    const second = new ContractRecorder()
    const broken = await startServer({ versioning: { deprecated: [1], sunset: new Date('2030-01-01T00:00:00Z') } }, { stores: down }, { contract: second })
    try {
      const at = broken.origin
      await send('/students', {}, at)
      await send('/students/0', { headers: { accept: V2 } }, at)
      await send('/students', { method: 'POST', json: ada }, at)
      await send('/addresses/1', {}, at)
      await send('/addresses', { method: 'POST', json: berlin }, at)
      await send('/readyz', {}, at)
      await send('/v1/students/3', {}, at)
      const checker = new ContractChecker((await request(`${at}/openapi.json`)).body)
      expect(second.exchanges.filter((x) => x.status === 503).length).toBeGreaterThanOrEqual(5)
      expect(second.exchanges.some((x) => x.headers.deprecation !== undefined)).toBe(true)
      expect(second.exchanges.flatMap((x) => checker.check(x))).toEqual([])
    } finally {
      await broken.close()
    }
  })

  it('holds all answers against /openapi.json', () => {
    const checker = new ContractChecker(doc)
    const checked = recorder.exchanges.filter((x) => !ContractChecker.skipped(x.url))
    expect(checked.length).toBeGreaterThan(150)
    const failures = checked.flatMap((x) => checker.check(x))
    expect(failures).toEqual([])
    // Some of each kind were there to check.
    const statuses = new Set(checked.map((x) => x.status))
    for (const status of [200, 201, 204, 303, 304, 400, 404, 405, 406, 412, 413, 415]) expect(statuses.has(status), String(status)).toBe(true)
  })

  it('every route the router has is in the document', () => {
    expect(new ContractChecker(doc).uncovered(recorder.routes)).toEqual([])
  })
})

describe('the checker itself', () => {
  it('fails answers the document does not describe', () => {
    const checker = new ContractChecker(doc)
    const base = { method: 'GET', requestHeaders: {}, headers: { 'x-request-id': 'a', 'content-type': 'application/json' } }
    expect(checker.check({ ...base, url: '/nowhere/at/all', status: 200, body: Buffer.from('{}') })).toEqual([expect.stringContaining('not in the document')])
    expect(checker.check({ ...base, url: '/students/1', status: 418, body: Buffer.from('{}') })).toEqual([expect.stringContaining('status 418 is not documented')])
    expect(checker.check({ ...base, url: '/students/1', status: 200, body: Buffer.from('{"isSuccessful":true,"body":{"id":"x"}}') })).toEqual([expect.stringContaining('does not fit')])
    expect(checker.check({ ...base, url: '/students/1', status: 200, headers: { ...base.headers, 'content-type': 'text/plain' }, body: Buffer.from('hi') })).toEqual([expect.stringContaining('Content-Type text/plain is not documented')])
    expect(checker.check({ ...base, url: '/students', status: 200, headers: { ...base.headers, 'retry-after': '5' }, body: Buffer.from('{"isSuccessful":true,"body":[]}') })).toEqual([expect.stringContaining('sends retry-after')])
    expect(checker.check({ ...base, url: '/v2/students/1', status: 200, headers: { ...base.headers, etag: 'no-quotes' }, body: Buffer.from('{"id":1,"firstName":"a","lastName":"b","age":1}') })).toEqual([expect.stringContaining('header etag')])
    expect(checker.check({ ...base, url: '/v2/students/1', status: 200, body: Buffer.from('{"id":1,"firstName":"a","lastName":"b","age":1}') })).toEqual([expect.stringContaining('required header etag is missing')])
    expect(checker.uncovered([{ url: '/secret/:id', methods: ['GET'] }])).toEqual(['/secret/{id} (GET)'])
  })
})

/** Stores whose every call fails as an unreachable database does. */
function outage (): Stores {
  const fail = async (): Promise<never> => { throw new StoreUnavailableError() }
  const base = memoryStores()
  const down = <T extends object>(store: T): T => new Proxy(store, { get: (target, key) => typeof (target as any)[key] === 'function' ? fail : (target as any)[key] })
  return { ...withRecordStores(base, down), students: down(base.students), addresses: down(base.addresses), ping: fail }
}
