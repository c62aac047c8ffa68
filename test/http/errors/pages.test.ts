import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

let server: RunningServer
beforeAll(async () => { server = await startServer() })
afterAll(async () => { await server.close() })

describe('/errors pages', () => {
  it('show a description\'s inline code as <code>, never as backticks', async () => {
    const res = await request(`${server.origin}/errors/FIELD_REQUIRED`, { headers: { accept: BROWSER } })
    expect(res.status).toBe(200)
    const main = res.text.slice(res.text.indexOf('<main'))
    expect(main).toContain('<code>detail</code>')
    expect(main).not.toContain('`')
  })

  it('head every column of the table and sort its rows by code, in both languages', async () => {
    for (const [language, headers] of [['en', ['Code', 'HTTP status', 'Title']], ['de', ['Code', 'HTTP-Status', 'Titel']]] as const) {
      const res = await request(`${server.origin}/errors`, { headers: { accept: BROWSER, 'accept-language': language } })
      const ths = [...res.text.matchAll(/<th[^>]*>([^<]*)<\/th>/g)].map((m) => m[1])
      expect(ths).toEqual(headers)
      const rows = [...res.text.matchAll(/<tr><td><a href="\/errors\/([A-Z_]+)">/g)].map((m) => m[1] as string)
      const json = await request(`${server.origin}/errors`)
      expect(rows.length).toBe(json.body.errors.length)
      expect(rows).toEqual([...rows].sort())
      expect(res.text).toMatch(language === 'en' ? /alphabetical order/ : /alphabetisch/)
    }
  })
})

describe('a 404 in a browser', () => {
  it('is a page in the site look with the status, a sentence and the ways home', async () => {
    const docs = await request(`${server.origin}/docs/`, { headers: { accept: BROWSER } })
    for (const path of ['/no/such/page', '/students/1/nothing', '/v1/students/1/nothing', '/addresses/1/nothing']) {
      const res = await request(`${server.origin}${path}?q=1`, { headers: { accept: BROWSER } })
      expect(res.status, path).toBe(404)
      expect(res.headers.get('content-type'), path).toBe('text/html; charset=utf-8')
      expect(res.headers.get('vary'), path).toMatch(/Accept/)
      expect(res.text).toContain('<link rel="stylesheet" href="/app/rqs.css">')
      expect(res.text).toContain('<h1>404 — Not found</h1>')
      expect(res.text).toContain(`<code>${path}</code>`)
      expect(res.text).toContain('<a href="/">')
      expect(res.text).toContain('<a href="/docs/">')
      // The same protective headers as the other pages.
      for (const header of ['content-security-policy', 'x-content-type-options', 'x-frame-options']) {
        expect(res.headers.get(header), `${path} ${header}`).toBe(docs.headers.get(header))
      }
    }
  })

  it('follows Accept-Language', async () => {
    const res = await request(`${server.origin}/nowhere`, { headers: { accept: BROWSER, 'accept-language': 'de' } })
    expect(res.text).toContain('<html lang="de">')
    expect(res.text).toContain('Nicht gefunden')
  })
})

describe('a 404 for every other client is unchanged', () => {
  it('is a problem outside the services and for v2', async () => {
    for (const accept of [undefined, '*/*', 'application/json']) {
      const res = await request(`${server.origin}/no/such/page`, { headers: accept === undefined ? {} : { accept } })
      expect(res.status).toBe(404)
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      expect(res.body).toMatchObject({ type: '/errors/ROUTE_NOT_FOUND', status: 404, detail: 'No resource at GET /no/such/page' })
    }
  })

  it('is the v1 envelope on a student v1 path', async () => {
    const res = await request(`${server.origin}/v1/students/1/nothing`)
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.body.isSuccessful).toBe(false)
  })
})

describe('406', () => {
  it('names NDJSON and CSV among the types of a collection, and only there', async () => {
    for (const path of ['/students', '/students/', '/addresses', '/v2/students', '/v1/addresses']) {
      const res = await request(`${server.origin}${path}`, { headers: { accept: 'application/xml' } })
      expect(res.status, path).toBe(406)
      expect(res.body.detail, path).toMatch(/available as: .*application\/json.*, application\/x-ndjson, text\/csv$/)
    }
    const one = await request(`${server.origin}/students/1`, { headers: { accept: 'text/csv' } })
    expect(one.status).toBe(406)
    expect(one.body.detail).not.toContain('ndjson')
    expect(one.body.detail).not.toContain('csv')
  })
})
