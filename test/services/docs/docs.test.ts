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
    expect(page.text).toContain('<h1 id="versioning-policy">Versioning policy</h1>')
    expect(page.text).not.toContain('# Versioning policy')
    const markdown = await request(`${server.origin}/docs/versioning.md`)
    expect(markdown.headers.get('content-type')).toMatch(/^text\/markdown/)
    expect(markdown.text).toContain('# Versioning policy')
  })

  it('never passes script or inline handlers through, whatever a file holds', () => {
    const html = markdownToHtml('# T\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1)) <img src=x onerror=alert(1)>\n\n| a |\n|---|\n| b |')
    expect(html).toContain('<h1 id="t">T</h1>')
    expect(html).toContain('<table>')
    expect(html).not.toMatch(/<script|<[^>]* onerror=|href="javascript:/i) // escaped text may mention them; no element carries them
  })
})

/** The ids of a rendered page and the local links (#anchor or /docs/…) it holds. */
function idsOf (html: string): Set<string> {
  return new Set([...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1] as string))
}

describe('the user guide (README) at /docs/', () => {
  it('is the first document of the index, as "User guide"', async () => {
    const res = await request(`${server.origin}/docs/`, { headers: BROWSER })
    const first = /<main[^>]*>[\s\S]*?<li><a href="([^"]+)">([^<]+)<\/a>/.exec(res.text)
    expect(first?.slice(1)).toEqual(['/docs/README.md', 'User guide'])
    expect(res.text.indexOf('/docs/README.md')).toBeLessThan(res.text.indexOf('/docs/operations.md'))
  })

  it('is Markdown for a program and a page in the site look for a browser', async () => {
    const markdown = await request(`${server.origin}/docs/README.md`)
    expect(markdown.status).toBe(200)
    expect(markdown.headers.get('content-type')).toMatch(/^text\/markdown/)
    expect(markdown.text).toMatch(/^# rqs/)
    const page = await request(`${server.origin}/docs/README.md`, { headers: BROWSER })
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    expect(page.headers.get('vary')).toMatch(/Accept/)
    expect(page.text).toContain('<link rel="stylesheet" href="/app/rqs.css">')
    expect(page.text).toMatch(/<h1 id="[^"]+">rqs/)
    // The README's marker comments (<!-- cli:start -->) are invisible on GitHub and must be here too.
    expect(markdown.text).toContain('<!-- cli:start -->')
    expect(page.text).not.toMatch(/&lt;!--|cli:start/)
  })

  it('shows its images: each one the page references loads from this server', async () => {
    const page = await request(`${server.origin}/docs/README.md`, { headers: BROWSER })
    const images = [...page.text.matchAll(/<img src="([^"]+)"/g)].map((m) => m[1] as string).filter((src) => src.startsWith('/docs/'))
    expect(images).toContain('/docs/screenshots/students-desktop.png')
    expect(images).toContain('/docs/graphiql.png')
    for (const src of images) {
      const res = await fetch(`${server.origin}${src}`)
      expect(res.status, src).toBe(200)
      expect(res.headers.get('content-type'), src).toBe('image/png')
      await res.arrayBuffer()
    }
  })

  it('links work on the rendered pages: other documents, the README from them, and anchors', async () => {
    const pages = ['/docs/README.md', '/docs/operations.md', '/docs/versioning.md', '/docs/decisions.md']
    const ids = new Map<string, Set<string>>()
    const links: Array<[string, string]> = []
    for (const path of pages) {
      const page = await request(`${server.origin}${path}`, { headers: BROWSER })
      ids.set(path, idsOf(page.text))
      const article = page.text.slice(page.text.indexOf('<article'))
      for (const m of article.matchAll(/<a href="([^"]+)"/g)) links.push([path, m[1] as string])
    }
    const guide = links.filter(([from]) => from === '/docs/README.md').map(([, href]) => href)
    expect(guide).toContain('/docs/decisions.md')
    expect(guide).toContain('/docs/operations.md#change-feed')
    expect(guide.some((href) => href.startsWith('docs/'))).toBe(false) // repository paths do not lead anywhere on the site
    for (const [from, href] of links) {
      if (/^https?:/.test(href)) continue
      const [path = '', anchor] = href.split('#')
      const target = path === '' ? from : path
      if (path !== '') {
        const res = await request(`${server.origin}${path}`, { headers: BROWSER })
        expect(res.status, `${from} → ${href}`).toBe(200)
        if (anchor !== undefined && !ids.has(target)) ids.set(target, idsOf(res.text))
      }
      if (anchor !== undefined) expect(ids.get(target)?.has(anchor), `${from} → ${href}`).toBe(true)
    }
  })
})

describe('docs/decisions.md, the behaviour reference', () => {
  it('opens with a table of contents whose every link leads to a section of the rendered page', async () => {
    const markdown = await request(`${server.origin}/docs/decisions.md`)
    const page = await request(`${server.origin}/docs/decisions.md`, { headers: BROWSER })
    const ids = idsOf(page.text)
    const toc = /## Contents\n\n([\s\S]*?)\n\n/.exec(markdown.text)?.[1] ?? ''
    const anchors = [...toc.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1] as string)
    expect(anchors.length).toBeGreaterThan(5)
    for (const anchor of anchors) expect(ids.has(anchor), anchor).toBe(true)
    // Every section is in the contents.
    const sections = [...markdown.text.matchAll(/^## (.+)$/gm)].map((m) => m[1] as string).filter((s) => s !== 'Contents')
    expect(anchors.length).toBeGreaterThanOrEqual(sections.length)
    for (const section of sections) expect(toc, section).toContain(`[${section}](#`)
  })

  it('speaks to users: no issue numbers, spec file or source paths they cannot see', async () => {
    const markdown = (await request(`${server.origin}/docs/decisions.md`)).text
    expect(markdown).not.toMatch(/issues? #?\d+/i)
    expect(markdown).not.toMatch(/spec\.md|shared\/spec/i)
    expect(markdown).not.toMatch(/\b(src|test|scripts)\/[\w/.-]+/)
  })
})

describe('headings and links in the renderer', () => {
  it('drops lines that are only an HTML comment, except inside a fenced code block', () => {
    const html = markdownToHtml('before\n<!-- marker -->\nafter\n\n```html\n<!-- shown -->\n```\n')
    expect(html).not.toContain('marker')
    expect(html).toContain('&lt;!-- shown --&gt;')
    expect(html).toContain('before')
  })

  it('gives headings GitHub\'s ids, numbered when repeated', () => {
    const html = markdownToHtml('# A `code` title\n\n## Host names (DNS rebinding)\n\n## Again\n\n## Again')
    expect(html).toContain('<h1 id="a-code-title">')
    expect(html).toContain('<h2 id="host-names-dns-rebinding">')
    expect(html).toContain('<h2 id="again">')
    expect(html).toContain('<h2 id="again-1">')
  })

  it('rewrites links between documents to /docs/, leaving the web alone', () => {
    expect(markdownToHtml('[a](docs/x.md#y) ![i](docs/screenshots/s.png) [w](https://example.com/docs/x.md) [h](#top)', 'README.md'))
      .toBe('<p><a href="/docs/x.md#y">a</a> <img src="/docs/screenshots/s.png" alt="i" /> <a href="https://example.com/docs/x.md">w</a> <a href="#top">h</a></p>\n')
    expect(markdownToHtml('[g](../README.md#command-line) [o](operations.md)', 'docs/x.md'))
      .toBe('<p><a href="/docs/README.md#command-line">g</a> <a href="/docs/operations.md">o</a></p>\n')
  })
})

describe('the documents, read when first asked for', () => {
  it('reads no file until a title or a document is asked for, then keeps what it read', async () => {
    const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const { documentsOf } = await import('../../../src/services/docs/index.js')
    const dir = mkdtempSync(join(tmpdir(), 'rqs-docs-'))
    try {
      writeFileSync(join(dir, 'a.md'), '# Before\n')
      const readme = join(dir, 'missing-readme.md') // not there yet: listing the documents must not read it
      const { docs, guide } = documentsOf(dir, readme)
      writeFileSync(join(dir, 'a.md'), 'text\n\n# After\n')
      writeFileSync(readme, '# rqs\n')
      expect(docs.map((d) => d.file)).toEqual(['a.md'])
      expect(docs[0]?.title()).toBe('After')
      expect(guide.title()).toBe('User guide')
      expect(guide.markdown()).toBe('# rqs\n')
      writeFileSync(join(dir, 'a.md'), '# Later\n')
      expect(docs[0]?.title()).toBe('After')
      expect(docs[0]?.markdown()).toBe('text\n\n# After\n')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
