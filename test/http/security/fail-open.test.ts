import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runMain } from '../../helpers/cli.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { bearer, expectShape, security, writeTokensFile, type TokensFile } from './helpers.js'

/*
 * Issue 18: access used to be decided by classifying the request's path,
 * and whatever the classifier did not recognise as a service was public.
 * `--students-base /app/students --auth-tokens tokens.json` then took
 * POST /app/students without a token (201), and DELETE; so did a base under
 * /docs, /errors or /healthz, and the student service at / took POST / and
 * PUT / (the entry point's path). Now each route declares its access and a
 * base that overlaps the server's paths does not start.
 */

const ada = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }
let tokens: TokensFile<'writer'>
beforeAll(async () => { tokens = await writeTokensFile({ writer: ['read', 'write'] }) })
afterAll(async () => { await tokens?.remove() })

describe('bases that used to fail open do not start: one line, exit 2', () => {
  it.each([
    [['--students-base', '/app/students'], 'students at /app/students (--students-base) overlaps app at /app: choose another --students-base'],
    [['--students-base', '/docs/students'], "students at /docs/students (--students-base) overlaps the server's own /docs: choose another --students-base"],
    [['--students-base', '/errors/students'], "students at /errors/students (--students-base) overlaps the server's own /errors: choose another --students-base"],
    [['--students-base', '/healthz'], "students at /healthz (--students-base) overlaps the server's own /healthz: choose another --students-base"],
    [['--addresses-base', '/docs'], "addresses at /docs/addresses (--addresses-base) overlaps the server's own /docs: choose another --addresses-base"],
    [['--albums-base', '/app'], 'albums at /app/graphql (--albums-base) overlaps app at /app: choose another --albums-base']
  ])('rqs serve %j', async (args, message) => {
    const res = await runMain(['serve', '--port', '0', '--log-level', 'silent', '--auth-tokens', tokens.path, ...args])
    expect(res.code).toBe(2)
    expect(res.stderr).toBe(`rqs: ${message}\n`)
    expect(res.stdout).toBe('')
  })
})

describe('the student service at the root, with tokens', () => {
  let server: RunningServer
  beforeAll(async () => { server = await startServer({ students: { base: '/' }, security: security({ authTokensFile: tokens.path }) }) })
  afterAll(async () => { await server?.close() })

  it('POST /, PUT / and DELETE /{id} need a token (POST / and PUT / were public: the entry point\'s path)', async () => {
    expectShape(await request(`${server.origin}/`, { method: 'POST', json: ada }), 'envelope', 401, 'UNAUTHENTICATED')
    expectShape(await request(`${server.origin}/`, { method: 'PUT', json: { id: 0, ...ada } }), 'envelope', 401, 'UNAUTHENTICATED')
    expectShape(await request(`${server.origin}/0`, { method: 'DELETE' }), 'envelope', 401, 'UNAUTHENTICATED')
    expectShape(await request(`${server.origin}/v2/`, { method: 'POST', json: ada }), 'problem', 401, 'UNAUTHENTICATED')
    // The entry point is still public, and the records still open with a token.
    expect((await request(`${server.origin}/healthz`)).status).toBe(200)
    expect((await request(`${server.origin}/`, { method: 'POST', json: ada, headers: bearer(tokens.tokens.writer) })).status).toBe(201)
    expect((await request(`${server.origin}/0`, { method: 'DELETE', headers: bearer(tokens.tokens.writer) })).status).toBe(200)
  })
})

describe('a version no service serves (/v3/…), with tokens', () => {
  let server: RunningServer
  beforeAll(async () => { server = await startServer({ security: security({ authTokensFile: tokens.path }) }) })
  afterAll(async () => { await server?.close() })

  it('is no route: a 404 problem, never a write', async () => {
    for (const [method, path] of [['POST', '/v3/students'], ['DELETE', '/v3/students/0'], ['PUT', '/v3/addresses/1'], ['GET', '/v3/students']]) {
      const res = await request(`${server.origin}${path}`, { method, ...(method === 'GET' || method === 'DELETE' ? {} : { json: ada }) })
      expectShape(res, 'problem', 404, 'ROUTE_NOT_FOUND')
    }
    const list = await request(`${server.origin}/students`, { headers: bearer(tokens.tokens.writer) })
    expect(list.body).toEqual({ isSuccessful: true, body: [] })
  })
})
