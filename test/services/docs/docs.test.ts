import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { markdownToHtml } from '../../../src/services/docs/markdown.js'

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }

let server: RunningServer
beforeAll(async () => { server = await startServer() })
afterAll(async () => { await server.close() })

describe('/docs/ for people', () => {
  it('lists the documents for users first, by their titles, in the site look', async () => {
    const res = await request(`${server.origin}/docs/`, { headers: BROWSER })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    expect(res.text).toContain('<link rel="stylesheet" href="/app/rqs.css">')
    expect(res.text).toContain('<a href="/docs/versioning.md">Versioning policy</a>')
    expect(res.text).toContain('<a href="/docs/errors.md">Error catalogue</a>')
    expect(res.text.indexOf('/docs/errors.md')).toBeLessThan(res.text.indexOf('For contributors'))
  })

  it('renders a document to HTML for a browser and keeps the Markdown for everyone else', async () => {
    const page = await request(`${server.origin}/docs/versioning.md`, { headers: BROWSER })
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    expect(page.headers.get('vary')).toMatch(/Accept/)
    expect(page.text).toContain('<h1>Versioning policy</h1>')
    expect(page.text).not.toContain('# Versioning policy')
    const markdown = await request(`${server.origin}/docs/versioning.md`)
    expect(markdown.headers.get('content-type')).toMatch(/^text\/markdown/)
    expect(markdown.text).toContain('# Versioning policy')
  })

  it('never passes script or inline handlers through, whatever a file holds', () => {
    const html = markdownToHtml('# T\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1)) <img src=x onerror=alert(1)>\n\n| a |\n|---|\n| b |')
    expect(html).toContain('<h1>T</h1>')
    expect(html).toContain('<table>')
    expect(html).not.toMatch(/<script|<[^>]* onerror=|href="javascript:/i) // escaped text may mention them; no element carries them
  })
})
