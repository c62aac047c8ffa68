import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'

let server: RunningServer
let base: string
let dir: string

/** fetch normalises `..`; a raw request sends the path exactly as written, as an attacker would. */
function rawGet (origin: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number, body: string }> {
  const url = new URL(origin)
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method: 'GET', headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => { body += c })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

beforeAll(async () => {
  // A private assets folder beside a secret file that must never be reachable.
  const root = mkdtempSync(join(tmpdir(), 'rqs-assets-'))
  dir = join(root, 'public')
  mkdirSync(join(dir, 'css'), { recursive: true })
  writeFileSync(join(dir, 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
  writeFileSync(join(dir, 'css', 'site.css'), 'body{}')
  writeFileSync(join(dir, 'data.json'), '{"a":1}')
  writeFileSync(join(dir, '.env'), 'SECRET=1')
  writeFileSync(join(root, 'secret.txt'), 'top secret')
  server = await startServer({ students: { assetsDir: dir } })
  base = `${server.origin}/students`
})
afterAll(async () => { await server.close() })

describe('GET /assets/{file}', () => {
  it('serves files with their content type, ETag and Last-Modified', async () => {
    const svg = await request(`${base}/assets/logo.svg`)
    expect(svg.status).toBe(200)
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/)
    expect(svg.headers.get('etag')).toBeTruthy()
    expect(svg.headers.get('last-modified')).toBeTruthy()
    expect(svg.text).toContain('<svg')
    const css = await request(`${base}/assets/css/site.css`)
    expect(css.status).toBe(200)
    expect(css.headers.get('content-type')).toMatch(/^text\/css/)
    const json = await request(`${base}/assets/data.json`)
    expect(json.headers.get('content-type')).toMatch(/^application\/json/)
  })

  it('answers 304 to a matching If-None-Match', async () => {
    const first = await request(`${base}/assets/logo.svg`)
    const etag = first.headers.get('etag') as string
    // fetch adds Cache-Control: no-cache to conditional requests, so send it the way a browser cache would.
    const again = await rawGet(server.origin, '/students/assets/logo.svg', { 'if-none-match': etag })
    expect(again.status).toBe(304)
  })

  it('answers 404 in the envelope for a missing file', async () => {
    const res = await request(`${base}/assets/missing.png`)
    expect(res.status).toBe(404)
    expect(res.body.isSuccessful).toBe(false)
    expect(typeof res.body.body).toBe('string')
  })

  it('never serves dotfiles', async () => {
    const res = await request(`${base}/assets/.env`)
    expect(res.status).toBe(404)
    expect(res.text).not.toContain('SECRET')
  })

  const traversals = [
    '/students/assets/../secret.txt',
    '/students/assets/%2e%2e/secret.txt',
    '/students/assets/%2E%2E%2Fsecret.txt',
    '/students/assets/..%2fsecret.txt',
    '/students/assets/css/../../secret.txt',
    '/students/assets/%2e%2e%5csecret.txt',
    '/students/assets//etc/passwd',
    '/students/assets/%2Fetc%2Fpasswd'
  ]
  for (const path of traversals) {
    it(`never escapes the folder: ${path}`, async () => {
      const res = await rawGet(server.origin, path)
      expect(res.body).not.toContain('top secret')
      expect(res.body).not.toContain('root:')
      expect([400, 404]).toContain(res.status)
      expect(JSON.parse(res.body).isSuccessful).toBe(false)
    })
  }

  it('the default assets folder is the package public/ folder', async () => {
    const srv = await startServer()
    try {
      const res = await request(`${srv.origin}/students/assets/index.html`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    } finally {
      await srv.close()
    }
  })
})
