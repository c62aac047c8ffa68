import { get } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'

let server: RunningServer
beforeAll(async () => { server = await startServer() })
afterAll(async () => { await server.close() })

describe('entry point and documentation (versioning rule 4: clients follow links)', () => {
  it('GET / with Accept: application/json lists every service, the OpenAPI document and the docs', async () => {
    const res = await request(`${server.origin}/`, { headers: { accept: 'application/json' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('vary')).toMatch(/Accept/)
    const links = res.body.links
    for (const rel of ['self', 'students', 'addresses', 'albums', 'albums-editor', 'service-desc', 'service-doc', 'help', 'errors']) expect(links[rel], rel).toBeDefined()
    expect(links.students.href).toBe('/students')
    expect(links.addresses.href).toBe('/addresses')
    // Every advertised link resolves.
    for (const [rel, link] of Object.entries<any>(links)) {
      // The GraphQL endpoint needs a query to answer 200.
      const href = rel === 'albums' ? `${link.href}?query=${encodeURIComponent('{ albums { title } }')}` : link.href
      // The change feed never ends: its headers tell.
      const target = await request(`${server.origin}${href}`, link.type === 'text/event-stream' ? { method: 'HEAD' } : {})
      expect(target.status, `${rel} ${link.href}`).toBe(200)
    }
  })

  it('carries the same directory as Link headers (RFC 8288)', async () => {
    const res = await request(`${server.origin}/`)
    expect(res.headers.get('link')).toContain('</students>; rel="students"')
    expect(res.headers.get('link')).toContain('</openapi.json>; rel="service-desc"')
  })

  it('browsers get an HTML landing page with the same links', async () => {
    const res = await request(`${server.origin}/`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } })
    expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    expect(res.text).toContain('href="/students"')
    expect(res.text).toContain('href="/openapi.json"')
    expect(res.text).not.toMatch(/src="https?:/)
    // The snippets carry the origin the browser used, so they run as shown.
    expect(res.text).toContain(`curl -s -X POST ${server.origin}/students`)
    expect(res.text).toContain(`curl -H 'accept: application/json' ${server.origin}/`)
  })

  it('the landing page takes its origin from a plain Host header only, escaped', async () => {
    // Any Host reaches the page here (--allowed-hosts *), so that even an odd one is seen not to be echoed.
    const anyHost = await startServer({ security: { allowedHosts: '*' } })
    // fetch may not set Host; node:http may.
    const page = async (host: string): Promise<string> => await new Promise((resolve, reject) => {
      get(`${anyHost.origin}/`, { headers: { accept: 'text/html', host } }, (res) => {
        let text = ''
        res.setEncoding('utf8').on('data', (chunk: string) => { text += chunk }).on('end', () => { resolve(text) })
      }).on('error', reject)
    })
    try {
      expect(await page('rqs.example:8443')).toContain('curl -s -X POST http://rqs.example:8443/students')
      // A Host that is no plain host name (here with a quote and angle brackets) is not echoed.
      const odd = await page('x"><script>')
      expect(odd).not.toContain('<script>')
      expect(odd).toContain('curl -s -X POST http://127.0.0.1:8080/students')
    } finally {
      await anyHost.close()
    }
  })

  it('serves an OpenAPI 3.1 document built from the route schemas, covering v1 and v2 paths', async () => {
    const res = await request(`${server.origin}/openapi.json`)
    expect(res.status).toBe(200)
    expect(res.body.openapi).toBe('3.1.0')
    for (const path of ['/students', '/students/{id}', '/v2/students/{id}', '/addresses', '/addresses/{id}']) expect(res.body.paths[path], path).toBeDefined()
    expect(res.body.paths['/students/{id}'].get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/StudentEnvelope' })
    expect(res.body.components.schemas.StudentEnvelope.properties.isSuccessful).toBeDefined()
  })

  it('serves the docs, the versioning policy included, as Markdown', async () => {
    const res = await request(`${server.origin}/docs/versioning.md`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/markdown/)
    expect(res.text).toContain('# Versioning policy')
    expect((await request(`${server.origin}/docs/../package.json`)).status).toBe(404)
  })
})
