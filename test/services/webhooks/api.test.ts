import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { generateToken, tokenEntry } from '../../../src/http/security/tokens.js'
import type { ConfigOverrides } from '../../../src/options.js'
import { tempDir } from '../../stores/harness.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { bearer, security, writeTokensFile, type TokensFile } from '../../http/security/helpers.js'
import { webhooksApi } from './api.suite.js'

const tmp = tempDir()
afterAll(() => { tmp.remove() })
let files = 0
const STORES: Array<[string, () => ConfigOverrides]> = [
  ['memory', () => ({})],
  ['SQLite', () => ({ store: { kind: 'sqlite', path: join(tmp.dir, `api-${++files}.db`), url: '' } })]
]

for (const [name, store] of STORES) webhooksApi(name, store)

describe('safe targets', () => {
  let server: RunningServer
  beforeAll(async () => { server = await startServer({ webhooks: { enabled: true } }) })
  afterAll(async () => { await server?.close() })

  it('refuses loopback, private, link-local, CGNAT and metadata addresses without --webhook-allow-hosts', async () => {
    for (const url of ['http://127.0.0.1:9/x', 'http://localhost/x', 'http://[::1]/x', 'http://10.1.2.3/x', 'http://192.168.0.1/x', 'http://172.16.5.4/',
      'http://169.254.169.254/latest/meta-data', 'http://100.64.0.1/', 'http://[fd00:ec2::254]/', 'http://[::ffff:127.0.0.1]/', 'http://0.0.0.0/']) {
      const res = await request(`${server.origin}/webhooks`, { method: 'POST', json: { url, events: ['*'] } })
      expect(res.status, url).toBe(400)
      expect(res.body.type).toBe('/errors/WEBHOOK_URL_REFUSED')
      expect(res.body.errors[0].detail, res.text).toContain('url')
    }
    expect((await request(`${server.origin}/webhooks`)).body.webhooks).toEqual([])
  })
})

describe('who may use the webhooks API', () => {
  it('without authentication: loopback callers only, unless --admin-any-address', async () => {
    const local = await startServer({ webhooks: { enabled: true } })
    const open = await startServer({ webhooks: { enabled: true }, security: security({ adminAnyAddress: true }) })
    try {
      expect((await local.app.inject({ method: 'GET', url: '/webhooks', remoteAddress: '127.0.0.1' })).statusCode).toBe(200)
      const remote = await local.app.inject({ method: 'GET', url: '/webhooks', remoteAddress: '10.1.2.3' })
      expect(remote.statusCode).toBe(403)
      expect(remote.json().type).toBe('/errors/FORBIDDEN')
      for (const [method, url] of [['HEAD', '/webhooks'], ['POST', '/webhooks'], ['DELETE', '/webhooks/wh_0123456789abcdef'], ['POST', '/webhooks/wh_0123456789abcdef/ping']] as const) {
        expect((await local.app.inject({ method, url, remoteAddress: '10.1.2.3' })).statusCode, `${method} ${url}`).toBe(403)
      }
      expect((await local.app.inject({ method: 'GET', url: '/webhooks', remoteAddress: '::ffff:127.0.0.1' })).statusCode).toBe(200)
      // Other routes are not concerned.
      expect((await local.app.inject({ method: 'GET', url: '/students', remoteAddress: '10.1.2.3' })).statusCode).toBe(200)
      expect((await open.app.inject({ method: 'GET', url: '/webhooks', remoteAddress: '10.1.2.3' })).statusCode).toBe(200)
    } finally {
      await local.close()
      await open.close()
    }
  })

  it('with authentication: the admin scope', async () => {
    const tokens: TokensFile<'admin' | 'writer'> = await writeTokensFile({ admin: ['admin'], writer: ['read', 'write', 'metrics'] })
    const server = await startServer({ webhooks: { enabled: true }, security: security({ authTokensFile: tokens.path }) })
    try {
      expect((await request(`${server.origin}/webhooks`)).status).toBe(401)
      const writer = await request(`${server.origin}/webhooks`, { headers: bearer(tokens.tokens.writer) })
      expect(writer.status).toBe(403)
      expect(writer.headers.get('www-authenticate')).toContain('scope="admin"')
      expect((await request(`${server.origin}/webhooks`, { headers: bearer(tokens.tokens.admin) })).status).toBe(200)
    } finally {
      await server.close()
      await tokens.remove()
    }
  })

  it('under record rules, a caller without the admin scope registers none, whatever its roles (a webhook gets every change)', async () => {
    const dir = join(tmp.dir, `rules-${++files}`)
    mkdirSync(dir)
    const editor = generateToken()
    const admin = generateToken()
    await writeFile(join(dir, 'tokens.json'), JSON.stringify({ tokens: [tokenEntry(editor, 'ed', ['read', 'write', 'metrics'], { roles: ['editor', 'admin'] }), tokenEntry(admin, 'ops', ['admin'])] }))
    const server = await startServer({
      webhooks: { enabled: true },
      students: { ids: 'sequence' },
      rules: { source: 'rqs.json', collections: { students: { list: "@request.auth.roles ?= 'editor'", update: "@request.auth.roles ?= 'editor'" } } },
      security: security({ authTokensFile: join(dir, 'tokens.json') })
    })
    try {
      const hook = { url: 'https://hooks.example.com/rqs', events: ['students.*'] }
      const refused = await request(`${server.origin}/webhooks`, { method: 'POST', json: hook, headers: bearer(editor) })
      expect(refused.status).toBe(403)
      expect(refused.headers.get('www-authenticate')).toContain('scope="admin"')
      expect((await request(`${server.origin}/webhooks`, { headers: bearer(admin) })).body.webhooks).toEqual([])
    } finally {
      await server.close()
    }
  })
})

describe('the webhooks API in the API description', () => {
  it('lists its operations under the webhooks tag with their error codes', async () => {
    const server = await startServer({ webhooks: { enabled: true } })
    try {
      const doc = (await request(`${server.origin}/openapi.json`)).body
      expect(Object.keys(doc.paths).filter((p) => p.startsWith('/webhooks')).sort()).toEqual([
        '/webhooks', '/webhooks/{id}', '/webhooks/{id}/deliveries', '/webhooks/{id}/deliveries/{delivery}/retry', '/webhooks/{id}/ping', '/webhooks/{id}/rotate-secret'
      ])
      expect(doc.paths['/webhooks'].post.operationId).toBe('createWebhook')
      expect(JSON.stringify(doc.paths['/webhooks'].post.responses)).toContain('WEBHOOK_URL_REFUSED')
      expect(doc.tags.map((t: { name: string }) => t.name)).toContain('webhooks')
    } finally {
      await server.close()
    }
  })
})
