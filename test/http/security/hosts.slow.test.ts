import http from 'node:http'
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeConfig, resolveConfig } from '../../../src/options.js'
import { buildServer } from '../../../src/server.js'
import { allowedHosts } from '../../../src/http/security/hosts.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { expectShape, security, type Response, type Shape } from './helpers.js'

/**
 * Issue 19, item 7: DNS rebinding. A page of evil.example whose name the
 * attacker points at 127.0.0.1 drives a server on localhost from the
 * victim's browser; its requests carry `Host: evil.example`. Without a Host
 * check the server answered them (`POST /students` → 201).
 */

const ada = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }

/** A request with the given Host header (fetch cannot set one). */
async function withHost (origin: string, path: string, host: string, init: { method?: string, json?: unknown, headers?: Record<string, string> } = {}): Promise<Response> {
  const url = new URL(path, origin)
  const body = init.json === undefined ? undefined : JSON.stringify(init.json)
  return await new Promise((resolve, reject) => {
    const headers = { ...init.headers, host, ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }) }
    const req = http.request({ hostname: url.hostname, port: url.port, method: init.method ?? 'GET', path: url.pathname + url.search, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { text += chunk })
      res.on('end', () => {
        const responseHeaders = new Headers()
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') responseHeaders.set(name, value)
        let parsed: unknown
        try { parsed = JSON.parse(text) } catch { parsed = undefined }
        resolve({ status: res.statusCode ?? 0, headers: responseHeaders, text, body: parsed })
      })
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** A request written as it goes on the wire (node:http would add a Host): the status code. */
async function raw (origin: string, head: string): Promise<number> {
  const { hostname, port } = new URL(origin)
  return await new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(`${head}\r\nConnection: close\r\n\r\n`))
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => { text += chunk })
    socket.on('end', () => resolve(Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0)))
    socket.on('error', reject)
  })
}

/** Like raw, with a body: the whole answer. */
async function rawText (origin: string, head: string, body = ''): Promise<string> {
  const { hostname, port } = new URL(origin)
  return await new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(`${head}\r\nConnection: close\r\n\r\n${body}`))
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => { text += chunk })
    socket.on('end', () => resolve(text))
    socket.on('error', reject)
  })
}

describe('a server listening on loopback (the default 127.0.0.1)', () => {
  let server: RunningServer
  beforeAll(async () => { server = await startServer() })
  afterAll(async () => { await server?.close() })

  it('refuses a write under a foreign Host with 421 HOST_NOT_ALLOWED, and creates nothing', async () => {
    const before = (await request(`${server.origin}/students`)).body.body.length
    const res = await withHost(server.origin, '/students', 'evil.example:8080', { method: 'POST', json: ada })
    expectShape(res, 'envelope', 421, 'HOST_NOT_ALLOWED')
    expect(res.body.body).toContain('evil.example:8080')
    expect(res.body.body).toContain('--allowed-hosts')
    expect((await request(`${server.origin}/students`)).body.body).toHaveLength(before)
  })

  const shapes: Array<[string, Shape, { method?: string, json?: unknown, headers?: Record<string, string> }]> = [
    ['/students/0', 'envelope', {}],
    ['/v2/students', 'problem', {}],
    ['/addresses', 'problem', { method: 'POST', json: { name: 'A', city: 'B', postalCode: '1' } }],
    ['/graphql', 'graphql', { method: 'POST', json: { query: '{ albums { title } }' } }],
    ['/', 'problem', {}],
    ['/app/', 'problem', {}],
    ['/healthz', 'problem', {}],
    ['/openapi.json', 'problem', {}],
    ['/graphiql', 'problem', {}],
    ['/graphql/schema.graphql', 'problem', {}],
    // No route matches: refused all the same, in the shape of the path's service.
    ['/nowhere', 'problem', {}],
    ['/students/0/nothing', 'envelope', {}]
  ]
  for (const [path, shape, init] of shapes) {
    it(`answers ${path} under a foreign Host in its service's shape (${shape})`, async () => {
      expectShape(await withHost(server.origin, path, 'evil.example', init), shape, 421, 'HOST_NOT_ALLOWED')
    })
  }

  it('words the refusal in the client\'s language', async () => {
    const res = await withHost(server.origin, '/addresses', 'rebind.evil.example', { headers: { 'accept-language': 'de' } })
    expectShape(res, 'problem', 421, 'HOST_NOT_ALLOWED')
    expect(res.body.title).toBe('Unbekannter Hostname')
  })

  it('answers localhost, 127.0.0.1 and [::1], with or without the port, in any case, and any IP address', async () => {
    const { port } = new URL(server.origin)
    for (const host of ['localhost', `localhost:${port}`, 'LocalHost:1', '127.0.0.1', `127.0.0.1:${port}`, '[::1]', `[::1]:${port}`, '10.0.0.7:8080', '[fe80::1]']) {
      const res = await withHost(server.origin, '/students', host, { method: 'POST', json: ada })
      expect(res.status, host).toBe(201)
    }
  })

  it('refuses names that only look local, and a Host that is empty', async () => {
    for (const host of ['localhost.evil.example', 'evil.example', '127.0.0.1.nip.io']) {
      expect((await withHost(server.origin, '/students', host)).status, host).toBe(421)
    }
    expect(await raw(server.origin, 'GET /students HTTP/1.1\r\nHost: ')).toBe(421)
  })

  it('answers a request without Host (HTTP/1.0; no browser sends one)', async () => {
    expect(await raw(server.origin, 'GET /healthz HTTP/1.0')).toBe(200)
  })

  // Issue 36, item 9: RFC 9112 §3.2 and §3.2.2.
  it('answers 400 to two Host header lines, whichever comes first, in the service\'s shape; one line passes', async () => {
    for (const [first, second] of [['localhost', 'evil.example'], ['evil.example', 'localhost'], ['localhost', 'localhost']]) {
      const text = await rawText(server.origin, `POST /addresses HTTP/1.1\r\nHost: ${first as string}\r\nHost: ${second as string}\r\nContent-Type: application/json\r\nContent-Length: 2`, '{}')
      expect(text, `${first as string}, ${second as string}`).toMatch(/^HTTP\/1\.1 400 /)
      expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 400, type: expect.stringMatching(/\/errors\/CLIENT_ERROR$/), detail: expect.stringContaining('2 Host header lines') })
    }
    expect(await raw(server.origin, 'GET /students HTTP/1.1\r\nHost: localhost')).toBe(200)
    expect(await raw(server.origin, 'GET /students HTTP/1.1\r\nHOST: localhost\r\nX-Host: evil.example')).toBe(200)
  })

  it('checks the authority of an absolute-form request target like Host: another host is refused with 421', async () => {
    expect(await raw(server.origin, 'GET http://evil.example/students HTTP/1.1\r\nHost: localhost')).toBe(421)
    expect(await raw(server.origin, 'GET http://evil.example:8080/students HTTP/1.1\r\nHost: localhost')).toBe(421)
    expect(await raw(server.origin, 'GET http://localhost/students HTTP/1.1\r\nHost: localhost')).toBe(200)
    expect(await raw(server.origin, 'GET http://127.0.0.1:1/students HTTP/1.1\r\nHost: localhost')).toBe(200)
  })

  it('lets app.inject() through (it sends Host: localhost:80)', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/students' })).statusCode).toBe(200)
  })
})

describe('--allowed-hosts', () => {
  it('adds names to the loopback ones; other names stay refused', async () => {
    const server = await startServer({ security: security({ allowedHosts: ['api.example.com', 'rqs.internal'] }) })
    try {
      for (const host of ['api.example.com', 'API.example.com:443', 'rqs.internal:8080', 'localhost:3000', '192.0.2.1']) {
        expect((await withHost(server.origin, '/students', host)).status, host).toBe(200)
      }
      expect((await withHost(server.origin, '/students', 'evil.example')).status).toBe(421)
      expect((await withHost(server.origin, '/students', 'sub.api.example.com')).status).toBe(421)
    } finally {
      await server.close()
    }
  })

  it('* answers any host, and adds no hook', async () => {
    const server = await startServer({ security: security({ allowedHosts: '*' }) })
    try {
      expect((await withHost(server.origin, '/students', 'evil.example', { method: 'POST', json: ada })).status).toBe(201)
      expect(server.app.printRoutes({ includeHooks: true, commonPrefix: false })).not.toContain('checkHost')
      expect(server.app.requestStart?.names).not.toContain('checkHost')
      expect(await raw(server.origin, 'GET http://evil.example/students HTTP/1.1\r\nHost: localhost')).toBe(200)
    } finally {
      await server.close()
    }
  })

  it('is read from the flag or RQS_ALLOWED_HOSTS: names in lower case, IPv6 in brackets; a port or scheme is refused', () => {
    expect(resolveConfig({ 'allowed-hosts': 'API.Example.com, ::1,[2001:db8::1]' }, {}).security.allowedHosts).toEqual(['api.example.com', '[::1]', '[2001:db8::1]'])
    expect(resolveConfig({}, { RQS_ALLOWED_HOSTS: '*' }).security.allowedHosts).toBe('*')
    expect(resolveConfig({}, {}).security.allowedHosts).toBeUndefined()
    for (const bad of ['localhost:3000', 'https://api.example.com', 'a b', ',']) {
      expect(() => resolveConfig({ 'allowed-hosts': bad }, {}), bad).toThrow(/--allowed-hosts/)
    }
  })
})

describe('the default beyond loopback', () => {
  it('listening on 0.0.0.0 without --public-url: any host (the server is reached by names it cannot know)', async () => {
    expect(allowedHosts(undefined, '0.0.0.0', undefined)).toBeUndefined()
    expect(allowedHosts(undefined, '::', undefined)).toBeUndefined()
    const server = await startServer({ host: '0.0.0.0' })
    try {
      expect((await withHost(server.origin, '/students', 'rqs.internal:8080')).status).toBe(200)
    } finally {
      await server.close()
    }
  })

  it('listening on 0.0.0.0 with --public-url: its host, the loopback names and IP addresses', async () => {
    const hosts = allowedHosts(undefined, '0.0.0.0', 'https://api.example.com/rqs')
    expect(hosts?.names.sort()).toEqual(['0.0.0.0', '127.0.0.1', '[::1]', 'api.example.com', 'localhost'])
    const server = await startServer({ host: '0.0.0.0', publicUrl: 'https://api.example.com/rqs' })
    try {
      for (const host of ['api.example.com', 'localhost:8080', '10.1.2.3:8080']) expect((await withHost(server.origin, '/healthz', host)).status, host).toBe(200)
      expect((await withHost(server.origin, '/healthz', 'rqs.internal')).status).toBe(421)
    } finally {
      await server.close()
    }
  })

  it('remembers the hosts it answered (a bounded set), and refuses the others however many came before', () => {
    const hosts = allowedHosts(undefined, '127.0.0.1', undefined)
    for (let port = 1; port <= 1000; port++) {
      expect(hosts?.allows(`localhost:${port}`)).toBe(true)
      expect(hosts?.allows(`evil.example:${port}`)).toBe(false)
    }
    expect(hosts?.allows('localhost:1')).toBe(true)
    expect(hosts?.allows('LOCALHOST:1000')).toBe(true)
    expect(hosts?.allows('evil.example')).toBe(false)
  })

  it('on loopback, --public-url adds its host (a proxy on the same machine passing the public Host on)', () => {
    expect(allowedHosts(undefined, '127.0.0.1', 'https://api.example.com')?.allows('api.example.com')).toBe(true)
    expect(allowedHosts(undefined, 'localhost', undefined)?.allows('evil.example')).toBe(false)
    expect(allowedHosts(undefined, '::1', undefined)?.allows('[::1]:8080')).toBe(true)
  })
})

describe('app.inject() under the default configuration', () => {
  it('passes, as the tools that build a server and inject requests need', async () => {
    const app = await buildServer(makeConfig({ logLevel: 'silent' }))
    try {
      expect((await app.inject({ method: 'POST', url: '/students', payload: ada })).statusCode).toBe(201)
      expect((await app.inject({ method: 'GET', url: '/students', headers: { host: 'evil.example' } })).statusCode).toBe(421)
    } finally {
      await app.close()
    }
  })
})
