import http from 'node:http'
import { sendRaw } from '../fuzz/target.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../helpers/server.js'

/**
 * Defects the fuzz suite (test/fuzz) found beyond the list, one
 * regression test each.
 */
let server: RunningServer
beforeAll(async () => { server = await startServer() })
afterAll(async () => { await server.close() })

describe('found by fuzzing (issue 10)', () => {
  it('a URL rejected before routing still carries X-Request-Id, in the v1 envelope under /students', async () => {
    const res = await request(`${server.origin}/students//%`)
    expect(res.status).toBe(400)
    expect(res.headers.get('x-request-id')).toMatch(/.+/)
    expect(res.body).toEqual({ isSuccessful: false, body: expect.any(String) })
  })

  it('a bad body on its way to an unknown path under a service is answered by that service', async () => {
    const res = await request(`${server.origin}/students//77`, { method: 'POST', headers: { 'content-type': 'application/json' } })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ isSuccessful: false, body: 'JSON data is expected' })
    const problem = await request(`${server.origin}/nothing/here`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' })
    expect(problem.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  })

  it('errors of the GraphiQL bundle files are problems, not GraphQL errors', async () => {
    const dotfile = await request(`${server.origin}/graphiql/.git/config`)
    expect(dotfile.status).toBe(404)
    expect(dotfile.body.errors[0].error).toBe('ROUTE_NOT_FOUND')
    const precondition = await request(`${server.origin}/graphiql/graphiql.js`, { headers: { 'if-match': '"not-it"' } })
    expect(precondition.status).toBe(412)
    expect(precondition.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  })

  it('a client that half-closes after its request still gets the answer, static files included', async () => {
    for (const path of ['/students/assets/index.html', '/docs/errors.md', '/students']) {
      const { text, closed } = await sendRaw(server.origin, Buffer.from(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`), 10_000)
      expect(text, path).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
      expect(closed).toBe(true)
    }
  })

  it('HEAD with headers too large: 431 without a body, which an HTTP client can parse', async () => {
    const { port } = new URL(server.origin)
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'HEAD', path: `/students?x=${'a'.repeat(20_000)}` }, (res) => {
        res.resume()
        res.on('end', () => { resolve(res.statusCode ?? 0) })
      })
      req.on('error', reject)
      req.end()
    })
    expect(status).toBe(431)
  })
})
