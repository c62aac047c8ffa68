import http from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type RunningServer } from '../helpers/server.js'
import { ConfigError, resolveConfig } from '../../src/options.js'

/**
 * Issue 10, defect 7: the Host header was copied into the `type` and `help`
 * links of problem details (`Host: evil.example` → "http://evil.example/…").
 * The links now come from --public-url, or are relative.
 */
async function getWithHost (origin: string, path: string, host: string): Promise<{ status: number, body: any }> {
  const url = new URL(path, origin)
  return await new Promise((resolve, reject) => {
    const req = http.request({ hostname: url.hostname, port: url.port, path: url.pathname + url.search, headers: { host } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { text += chunk })
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }) })
    })
    req.on('error', reject)
    req.end()
  })
}

const HOSTS = ['evil.example', 'evil.example:8080', '127.0.0.1:1', 'localhost', '[::1]:9']

describe('problem links never come from the Host header (issue 10, defect 7)', () => {
  let relative: RunningServer
  let configured: RunningServer
  beforeAll(async () => {
    // Any Host reaches the services (--allowed-hosts *): the links must not follow it even then.
    relative = await startServer({ security: { allowedHosts: '*' } })
    configured = await startServer({ publicUrl: 'https://api.example.com/rqs', security: { allowedHosts: '*' } })
  })
  afterAll(async () => {
    await relative.close()
    await configured.close()
  })

  it('without --public-url the links are relative, whatever Host says', async () => {
    for (const host of HOSTS) {
      const res = await getWithHost(relative.origin, '/addresses/99', host)
      expect(res.status).toBe(404)
      expect(res.body.type, host).toBe('/errors/ADDRESS_NOT_FOUND')
      expect(res.body.errors[0].help).toBe('/errors/ADDRESS_NOT_FOUND')
    }
  })

  it('with --public-url they start with it, whatever Host says', async () => {
    for (const host of HOSTS) {
      const res = await getWithHost(configured.origin, '/nothing', host)
      expect(res.body.type, host).toBe('https://api.example.com/rqs/errors/ROUTE_NOT_FOUND')
      expect(res.body.errors[0].help).toBe('https://api.example.com/rqs/errors/ROUTE_NOT_FOUND')
    }
  })

  it('--public-url / RQS_PUBLIC_URL: an http(s) URL, trailing slash dropped; anything else stops the server', () => {
    expect(resolveConfig({ 'public-url': 'https://api.example.com/' }, {}).publicUrl).toBe('https://api.example.com')
    expect(resolveConfig({}, { RQS_PUBLIC_URL: 'http://h:8080/base/' }).publicUrl).toBe('http://h:8080/base')
    expect(resolveConfig({}, {}).publicUrl).toBeUndefined()
    for (const bad of ['api.example.com', 'ftp://x', 'https://u:p@x', 'https://x/?a=1', 'https://x/#f', 'javascript:alert(1)']) {
      expect(() => resolveConfig({ 'public-url': bad }, {}), bad).toThrow(ConfigError)
    }
  })
})
