import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { renderErrorsMarkdown } from '../../../src/http/errors/markdown.js'
import { enabledServices, errorCatalogue, SERVICES } from '../../../src/services/index.js'
import { makeConfig } from '../../../src/options.js'

/** The catalogue of every built-in service (docs/errors.md), and of a server with the default configuration. */
const catalogue = errorCatalogue(SERVICES)
// Declared collections' codes (RECORD_NOT_FOUND) belong to servers that declare some.
const ERROR_CODES = errorCatalogue(enabledServices(makeConfig({}))).codes

let server: RunningServer
beforeAll(async () => { server = await startServer() })
afterAll(async () => { await server.close() })

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

describe('GET /errors and /errors/{code}', () => {
  it('answers JSON by default with the code, status and texts', async () => {
    const res = await request(`${server.origin}/errors/PRECONDITION_FAILED`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.headers.get('vary')).toBe('Accept, Accept-Language')
    expect(res.body).toMatchObject({ code: 'PRECONDITION_FAILED', status: 412, title: 'Precondition failed' })
    expect(res.body.description).toContain('If-Match')
  })

  it('answers HTML to a browser, in the negotiated language', async () => {
    const res = await request(`${server.origin}/errors/ADDRESS_NOT_FOUND`, { headers: { accept: BROWSER_ACCEPT, 'accept-language': 'de-DE,de;q=0.9' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('content-language')).toBe('de')
    expect(res.text).toContain('<html lang="de">')
    expect(res.text).toContain('Adresse nicht gefunden')
    expect(res.text).toContain('404')
  })

  it('lists every code', async () => {
    const json = await request(`${server.origin}/errors`)
    expect(json.body.errors.map((e: any) => e.code)).toEqual(ERROR_CODES)
    const html = await request(`${server.origin}/errors`, { headers: { accept: BROWSER_ACCEPT } })
    for (const code of ERROR_CODES) expect(html.text).toContain(`href="/errors/${code}"`)
  })

  it('an unknown code is a 404 problem', async () => {
    const res = await request(`${server.origin}/errors/NO_SUCH_CODE`)
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(res.body.errors[0].error).toBe('UNKNOWN_ERROR_CODE')
    // Object prototype names are not codes either.
    expect((await request(`${server.origin}/errors/constructor`)).status).toBe(404)
  })

  it('other methods are 405 with Allow', async () => {
    const res = await request(`${server.origin}/errors/INTERNAL`, { method: 'POST', json: {} })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
  })
})

describe('docs/errors.md', () => {
  it('is the catalogue rendered (run `npm run docs:errors` after changing a code or text)', () => {
    const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8')
    expect(doc).toBe(renderErrorsMarkdown(catalogue))
    for (const code of ERROR_CODES) expect(doc).toContain(`| \`${code}\` |`)
  })
})
