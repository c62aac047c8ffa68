import { Ajv2020 } from 'ajv/dist/2020.js'
import ajvFormats from 'ajv-formats'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fromFile } from '../../../src/services/collections/config.js'
import { parseNonNegativeInteger } from '../../../src/http/rest/ids.js'
import { parseAddressId } from '../../../src/services/addresses/id.js'
import { decimalAtMost } from '../../../src/http/openapi/path-ids.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { security, writeTokensFile } from '../security/helpers.js'
import { DECLARATIONS, declarationFiles } from '../../services/collections/fixture.js'

/**
 * Swagger UI works as shipped (issue 22): realistic examples that fit their
 * schemas, PUT examples whose ids agree, each version's media type first,
 * path id schemas that take exactly what the routes take, the security
 * refusals listed when (and only when) their feature is on, and the page
 * in rqs' name with a way back to `/`.
 */

const V2 = 'application/vnd.rqs.v2+json'
const V1 = 'application/vnd.rqs.v1+json'
const METHODS = ['get', 'put', 'post', 'delete', 'patch']
type Json = Record<string, any>

const files = declarationFiles()
let plain: RunningServer
let guarded: RunningServer
let doc: Json
let guardedDoc: Json

beforeAll(async () => {
  const tokens = await writeTokensFile({ writer: ['read', 'write'] })
  const collections = fromFile(files.write('books.json', DECLARATIONS), '--collections')
  plain = await startServer({ collections })
  // The overload guard is on, so the document lists its 503; its bound is far, so a loaded machine never sheds these requests.
  guarded = await startServer({ collections, security: security({ authTokensFile: tokens.path, rateLimit: { max: 1000, windowMs: 60_000 }, overload: true, maxEventLoopDelayMs: 60_000 }) })
  doc = await documentOf(plain.origin)
  guardedDoc = await documentOf(guarded.origin)
})

/** The OpenAPI document; a refusal a loaded machine may give (503 and its Retry-After) is asked again, a few times, then named. */
async function documentOf (origin: string): Promise<Json> {
  let res = await request(`${origin}/openapi.json`)
  for (let attempt = 0; attempt < 5 && res.status !== 200; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 1000))
    res = await request(`${origin}/openapi.json`)
  }
  expect(res.status, `GET ${origin}/openapi.json: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200)
  return res.body
}
afterAll(async () => { await plain.close(); await guarded.close() })

function operations (d: Json): Array<{ path: string, method: string, op: Json }> {
  return Object.entries<Json>(d.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m] !== undefined).map((method) => ({ path, method, op: item[method] })))
}

/** An ajv that resolves the document's component references. */
function validatorFor (d: Json): (schema: unknown, value: unknown) => string | undefined {
  const base = 'https://rqs.test/openapi.json'
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  ajvFormats.default(ajv)
  ajv.addFormat('int64', { type: 'number', validate: Number.isInteger })
  const rebased = JSON.parse(JSON.stringify(d).replaceAll('"#/components/', `"${base}#/components/`))
  ajv.addSchema({ $id: base, components: rebased.components })
  return (schema, value) => {
    const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${base}#/components/`)))
    return validate(value) ? undefined : ajv.errorsText(validate.errors)
  }
}

describe('examples', () => {
  it('every JSON request body and success answer has one, and it fits its schema', () => {
    const check = validatorFor(doc)
    const failures: string[] = []
    let checked = 0
    for (const { path, method, op } of operations(doc)) {
      const media: Array<[string, Json]> = [
        ...Object.entries<Json>(op.requestBody?.content ?? {}).map(([type, m]) => [`${method} ${path} body ${type}`, m] as [string, Json]),
        ...Object.entries<Json>(op.responses).flatMap(([status, r]) => Object.entries<Json>(r.content ?? {}).map(([type, m]) => [`${method} ${path} ${status} ${type}`, m] as [string, Json]))
      ]
      for (const [where, m] of media) {
        if (!/[/+]json$/.test(where.split(' ').at(-1) as string)) continue
        const values = m.example !== undefined ? [m.example] : Object.values<Json>(m.examples ?? {}).map((e) => e.value)
        // The documents about the API (/openapi.json, /errors) describe themselves.
        if (values.length === 0 && /^(get|put|post|delete) \/(v\d\/)?(students|addresses|books|notes|graphql)/.test(where) && /body|\s2\d\d\s/.test(where)) failures.push(`${where}: no example`)
        for (const value of values) {
          checked++
          const error = check(m.schema, value)
          if (error !== undefined) failures.push(`${where}: ${error}`)
        }
      }
    }
    expect(failures).toEqual([])
    expect(checked).toBeGreaterThan(200)
  }, 120_000)

  it('are realistic: Ada Lovelace 36, Alan Turing 41, an address in Oslo, a real GraphQL query with variables', () => {
    const body = (path: string, method: string): unknown => doc.paths[path][method].requestBody.content['application/json'].example
    expect(body('/students', 'post')).toEqual({ firstName: 'Ada', lastName: 'Lovelace', age: 36 })
    expect(doc.paths['/v1/students'].get.responses['200'].content[V1].example.body).toContainEqual({ id: 1, firstName: 'Alan', lastName: 'Turing', age: 41 })
    expect(body('/addresses', 'post')).toEqual({ name: 'Ada Lovelace', city: 'Oslo', postalCode: '0150' })
    const graphql = body('/graphql', 'post') as Json
    expect(graphql.query).toMatch(/albums\(titleFilter: \$title\) \{ title artist/)
    // A fragment of a title the service holds (the filter is case-sensitive): the example finds an album (issue 37).
    expect(graphql.variables).toEqual({ title: 'Sounds' })
    // A declared collection's, from its declaration: a title within its length, a year within its bounds, an ISBN of its pattern.
    expect(body('/books', 'post')).toMatchObject({ title: expect.any(String), year: 42, available: true, isbn: expect.stringMatching(/^[0-9-]{10,17}$/) })
  })

  it('a PUT to an id has a body whose id is the path\'s example, or none', () => {
    let puts = 0
    for (const { path, op } of operations(doc).filter((o) => o.method === 'put' && o.path.endsWith('{id}'))) {
      const id = op.parameters.find((p: Json) => p.in === 'path' && p.name === 'id')
      const pathExample = id.example ?? Object.values<Json>(id.examples ?? {})[0]?.value
      expect(pathExample, path).toBeDefined()
      const example = op.requestBody.content['application/json'].example
      if (example.id !== undefined) expect(String(example.id), path).toBe(pathExample)
      puts++
    }
    expect(puts).toBeGreaterThanOrEqual(6)
  })
})

describe('versions', () => {
  it('each version\'s operations list its own media type first (what Swagger UI sends as Accept)', () => {
    for (const { path, method, op } of operations(doc)) {
      const success = Object.entries<Json>(op.responses).find(([status, r]) => status.startsWith('2') && r.content !== undefined)
      if (success === undefined || Object.keys(success[1].content).includes('*/*')) continue
      const types = Object.keys(success[1].content)
      const first = types[0]
      // (A base path's DELETE answers 200 only in v1 (v2's is a 204 without a body): Swagger UI can only ask for v1's types there.)
      if (path.startsWith('/v2/') || (op.tags?.includes('students v2') === true && types.includes(V2))) expect([first, `${method} ${path}`]).toEqual([V2, `${method} ${path}`])
      if (path.startsWith('/v1/')) expect([first, `${method} ${path}`]).toEqual([V1, `${method} ${path}`])
    }
    // At a base path (chosen by Accept), the newest version first and under its tag.
    expect(Object.keys(doc.paths['/addresses/{id}'].get.responses['200'].content)).toEqual([V2, V1, 'application/json'])
    expect(doc.paths['/students/{id}'].get.tags).toEqual(['students v2'])
    expect(doc.paths['/v1/students/{id}'].get.tags).toEqual(['students v1 (envelope)'])
  })
})

describe('path ids', () => {
  const CANDIDATES = ['0', '01', '-1', '1', '9007199254740991', '9007199254740992', '9223372036854775807', '9223372036854775808', '99999999999999999999', 'abc', '', '1e3', ' 1', '0x1']

  function idSchema (path: string): Json {
    return doc.paths[path].get.parameters.find((p: Json) => p.in === 'path' && p.name === 'id').schema
  }

  it('the schemas take exactly what the routes take', async () => {
    const check = validatorFor(doc)
    const routes: Array<[string, (id: string) => boolean]> = [
      ['/students/{id}', (id) => parseNonNegativeInteger(id) >= 0],
      ['/addresses/{id}', (id) => parseAddressId(id) !== undefined],
      ['/books/{id}', (id) => /^[1-9][0-9]{0,15}$/.test(id) && Number.isSafeInteger(Number(id))]
    ]
    for (const [path, accepts] of routes) {
      for (const id of CANDIDATES) expect([path, id, check(idSchema(path), id) === undefined]).toEqual([path, id, accepts(id)])
    }
    // Asked over HTTP: an id the schema refuses is 400 INVALID_ID, one it takes is never 400.
    for (const [path] of routes) {
      for (const id of CANDIDATES.filter((c) => c !== '' && c !== ' 1')) {
        const url = `${plain.origin}${path.replace('{id}', encodeURIComponent(id))}`
        const init = { headers: { accept: path.startsWith('/students') ? V2 : 'application/json' } }
        // Once more if a kept-alive connection was closed under the request (a loaded machine).
        const res = await request(url, init).catch(async () => await request(url, init))
        expect([path, id, res.status === 400]).toEqual([path, id, check(idSchema(path), id) !== undefined])
      }
    }
    expect(idSchema('/addresses/{id}')).toMatchObject({ type: 'string', format: 'int64' })
    expect(idSchema('/notes/{id}')).toMatchObject({ type: 'string', format: 'uuid' })
    expect(check(idSchema('/notes/{id}'), 'urn:uuid:0b6c1b8e-3f4a-4c2e-9d7a-5e8f1a2b3c4d')).toBeDefined()
    expect(check(idSchema('/notes/{id}'), '0B6C1B8E-3F4A-4C2E-9D7A-5E8F1A2B3C4D')).toBeUndefined()
  })

  it('decimalAtMost bounds a range exactly', () => {
    const pattern = new RegExp(decimalAtMost('1203', { leadingZeros: false, zero: true }), 'u')
    for (let n = 0; n <= 3000; n++) expect([n, pattern.test(String(n))]).toEqual([n, n <= 1203])
    expect(pattern.test('0012')).toBe(false)
    const zeros = new RegExp(decimalAtMost('1203', { leadingZeros: true, zero: true }), 'u')
    expect(['0012', '0000', '1203', '01203'].map((t) => zeros.test(t))).toEqual([true, true, true, false])
  })
})

describe('security answers', () => {
  it('are listed only when their feature is on', () => {
    for (const { op } of operations(doc)) {
      // The change feed and GraphQL subscriptions share a limit on streams (429), whatever the security features.
      for (const status of ['streamChanges', 'subscribe', 'subscribeByGet'].includes(op.operationId as string) ? ['401', '403'] : ['401', '403', '429']) expect(op.responses[status], `${op.operationId as string} ${status}`).toBeUndefined()
    }
    const guardedOps = operations(guardedDoc)
    const records = guardedOps.filter(({ path }) => /^\/(v\d\/)?(students|addresses|books|graphql)/.test(path) && !path.includes('/assets/') && !path.endsWith('schema.graphql'))
    expect(records.length).toBeGreaterThan(30)
    for (const { op } of records) {
      for (const status of ['401', '403', '429', '503']) expect(op.responses[status], `${op.operationId as string} ${status}`).toBeDefined()
      expect(op.responses['401'].description).toContain('UNAUTHENTICATED')
      expect(op.responses['503'].description).toContain('OVERLOADED')
      expect(op.responses['429'].headers['Retry-After']).toBeDefined()
      expect(op.responses['401'].headers['WWW-Authenticate']).toBeDefined()
    }
    // Public documents need no token; probes are never limited nor shed.
    expect(guardedDoc.paths['/openapi.json'].get.responses['401']).toBeUndefined()
    expect(guardedDoc.paths['/openapi.json'].get.responses['429']).toBeDefined()
    expect(guardedDoc.paths['/healthz'].get.responses['429']).toBeUndefined()
    // In the service's shape: v1's envelope, problem details elsewhere.
    expect(guardedDoc.paths['/v1/students'].get.responses['401'].content[V1].examples.UNAUTHENTICATED.value).toMatchObject({ isSuccessful: false })
    expect(guardedDoc.paths['/addresses'].get.responses['429'].content['application/problem+json'].examples.RATE_LIMITED.value.errors[0].error).toBe('RATE_LIMITED')
  })

  it('a refusal the server sends fits what the document says of it', async () => {
    const check = validatorFor(guardedDoc)
    const cases: Array<[string, string]> = [['/v1/students', 'application/json'], ['/addresses', 'application/problem+json'], ['/books/1', 'application/problem+json']]
    for (const [path, type] of cases) {
      const res = await request(`${guarded.origin}${path}`)
      // 503 OVERLOADED when this busy machine passes the event-loop limit: documented too.
      expect([401, 503]).toContain(res.status)
      const template = path === '/books/1' ? '/books/{id}' : path
      expect(check(guardedDoc.paths[template].get.responses[String(res.status)].content[type].schema, res.body)).toBeUndefined()
    }
  })
})

describe('Swagger UI', () => {
  it('has the rqs title, no Fastify logo, and a way back to /', async () => {
    const page = await request(`${plain.origin}/docs/api/`)
    expect(page.status).toBe(200)
    expect(page.text).toContain('<title>rqs — API (Swagger UI)</title>')
    expect(page.text).toMatch(/theme\/rqs-home\.js/)
    const initializer = await request(`${plain.origin}/docs/api/static/swagger-initializer.js`)
    const logo = /img\.src = 'data:image\/svg\+xml;base64,([^']+)'/.exec(initializer.text)?.[1] as string
    expect(Buffer.from(logo, 'base64').toString()).toContain('>rqs</text>')
    expect(Buffer.from(logo, 'base64').toString()).not.toMatch(/fastify/i)
    const script = await request(`${plain.origin}/docs/api/static/theme/rqs-home.js`)
    expect(script.status).toBe(200)
    expect(script.text).toContain("home.href = '/'")
    // The document's own text starts with the link, which Swagger UI shows at the top.
    expect(doc.info.description).toMatch(/^\[← rqs home\]\(\/\)/)
  })
})
