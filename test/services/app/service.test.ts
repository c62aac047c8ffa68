import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeConfig } from '../../../src/options.js'
import { escapeHtml, renderPage } from '../../../src/http/html/layout.js'
import { appPages, DEFAULT_APP_DIR, declaredCollections, pageConfig } from '../../../src/services/app/index.js'
import type { ServedCollection } from '../../../src/data/collection.js'
import { builtScript } from '../../../src/services/app/page.js'
import type { DirectoryLink } from '../../../src/services/home/index.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'

/** The page's configuration, as the script reads it from data-config. */
function configOf (html: string): any {
  const attribute = /data-config="([^"]*)"/.exec(html)?.[1]
  expect(attribute).toBeDefined()
  // As the browser decodes the attribute: numeric and named character references.
  const named: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>' }
  return JSON.parse((attribute as string).replace(/&(#\d+|quot|amp|lt|gt);/g, (_, ref: string) => ref.startsWith('#') ? String.fromCharCode(Number(ref.slice(1))) : named[ref] as string))
}

const script = builtScript(DEFAULT_APP_DIR)

describe('the web application at /app/ (built by npm run build)', () => {
  let server: RunningServer
  beforeAll(async () => { server = await startServer() })
  afterAll(async () => { await server?.close() })

  it('has been built: dist/app holds the hashed script named by the manifest', () => {
    expect(script).toMatch(/^app-[A-Z0-9]{8}\.js$/)
  })

  it('serves its page at /app/ and /app/index.html, revalidated on every use, in the shared look', async () => {
    for (const path of ['/app/', '/app', '/app/index.html']) {
      const res = await request(`${server.origin}${path}`)
      expect(res.status, path).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(res.headers.get('cache-control')).toBe('no-cache')
      expect(res.text).toContain(`<script type="module" src="/app/${script as string}"></script>`)
      expect(res.text).toContain('<link rel="stylesheet" href="/app/rqs.css">')
      expect(res.text).toContain('<link rel="icon" href="/app/favicon.svg" type="image/svg+xml">')
      // Nothing inline to execute (a strict Content-Security-Policy allows it) and nothing from elsewhere.
      expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)/)
      expect(res.text).not.toMatch(/(src|href)="(https?:)?\/\//)
    }
  })

  it('tells the script where the collections are: students v2 by Accept, the address book, the change feed', async () => {
    const config = configOf((await request(`${server.origin}/app/`)).text)
    expect(config).toEqual({
      students: { url: '/students', accept: 'application/vnd.rqs.v2+json', countIds: true },
      addresses: { url: '/addresses', accept: 'application/json' },
      events: '/events'
    })
  })

  it('caches the hashed script for a year and serves it compressed; the shared stylesheet and favicon are revalidated', async () => {
    const js = await fetch(`${server.origin}/app/${script as string}`, { headers: { 'accept-encoding': 'br' } })
    expect(js.status).toBe(200)
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(js.headers.get('content-type')).toMatch(/^(application|text)\/javascript/)
    expect(js.headers.get('content-encoding')).toBe('br')
    expect((await js.text()).length).toBeGreaterThan(1000)

    const gz = await fetch(`${server.origin}/app/${script as string}`, { headers: { 'accept-encoding': 'gzip' } })
    expect(gz.headers.get('content-encoding')).toBe('gzip')
    await gz.arrayBuffer()

    const css = await request(`${server.origin}/app/rqs.css`)
    expect(css.status).toBe(200)
    expect(css.headers.get('content-type')).toMatch(/^text\/css/)
    expect(css.headers.get('cache-control')).toBe('no-cache')
    expect(css.headers.get('etag')).toBeTruthy()
    expect(css.text).toContain('--accent')

    const icon = await request(`${server.origin}/app/favicon.svg`)
    expect(icon.status).toBe(200)
    expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml/)
  })

  it('serves the page at each view\'s own address, its state in the query (issue 22: the view state lives in the URL)', async () => {
    for (const path of ['/app/students', '/app/students/', '/app/addresses', '/app/students?sort=-age&q=ada&age[gte]=18&cursor=abc&page=2']) {
      const res = await request(`${server.origin}${path}`)
      expect(res.status, path).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(res.text).toContain(`<script type="module" src="/app/${script as string}"></script>`)
    }
    // Only views: anything else under /app/ is still a file or nothing.
    expect((await request(`${server.origin}/app/teachers`)).status).toBe(404)
  })

  it('keeps the build manifest and anything outside dist/app private', async () => {
    expect((await request(`${server.origin}/app/manifest.json`)).status).toBe(404)
    expect((await request(`${server.origin}/app/../package.json`)).status).toBe(404)
    expect((await request(`${server.origin}/app/%2e%2e/%2e%2e/package.json`)).status).toBe(404)
    expect((await request(`${server.origin}/app/no-such-file.js`)).status).toBe(404)
  })

  it('is linked from the entry point: the JSON directory (rel "app") and the landing page', async () => {
    const json = await request(`${server.origin}/`, { headers: { accept: 'application/json' } })
    expect(json.body.links.app).toEqual({ href: '/app/', title: 'Web application: browse and edit the records of every collection', type: 'text/html' })
    const html = await request(`${server.origin}/`, { headers: { accept: 'text/html' } })
    expect(html.text).toContain('<a href="/app/"><strong>Open the web application</strong></a>')
  })
})

describe('the app page follows the configuration', () => {
  it('uses /v2/ URIs when media-type versioning is off, and leaves out a service that is not mounted', async () => {
    const server = await startServer({ versioning: { mediaType: false }, addresses: { enabled: false } })
    try {
      const config = configOf((await request(`${server.origin}/app/`)).text)
      expect(config).toEqual({ students: { url: '/v2/students', accept: 'application/json', countIds: true }, events: '/events' })
      // That URL does answer version 2 (a plain array, no envelope).
      const list = await request(`${server.origin}/v2/students`, { headers: { accept: 'application/json' } })
      expect(Array.isArray(list.body)).toBe(true)
    } finally {
      await server.close()
    }
  })

  it('follows moved base paths and a custom vendor name; no feed while the server has none', async () => {
    const server = await startServer({ students: { base: '/school' }, addresses: { base: '/book' }, versioning: { vendor: 'acme' }, events: { enabled: false } })
    try {
      const config = configOf((await request(`${server.origin}/app/`)).text)
      expect(config).toEqual({
        students: { url: '/school', accept: 'application/vnd.acme.v2+json', countIds: true },
        addresses: { url: '/book/addresses', accept: 'application/json' }
      })
    } finally {
      await server.close()
    }
  })

  it('names the change feed when the directory has one (rel "events")', () => {
    const versioning = makeConfig({}).versioning
    const directory: DirectoryLink[] = [
      { rel: 'students', href: '/students', title: 's' },
      { rel: 'events', href: '/events', title: 'Change feed', type: 'text/event-stream' }
    ]
    expect(pageConfig(directory, versioning)).toEqual({ students: { url: '/students', accept: 'application/vnd.rqs.v2+json' }, events: '/events' })
  })

  it('answers 503 with a page saying what to do when the bundle was not built', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'rqs-app-'))
    const app = Fastify({ logger: false })
    try {
      await app.register(appPages, { directory: [], versioning: makeConfig({}).versioning, dir: empty })
      const res = await app.inject({ url: '/app/' })
      expect(res.statusCode).toBe(503)
      expect(res.body).toContain('npm run build')
    } finally {
      await app.close()
      await rm(empty, { recursive: true, force: true })
    }
  })
})

describe('the shared layout (src/http/html/layout.ts)', () => {
  it('renders a page with the shared stylesheet, favicon, header and escaped title', () => {
    const html = renderPage({ title: 'A <b> & "c"', body: '<p>x</p>', lang: 'de', current: '/errors' })
    expect(html).toContain('<html lang="de">')
    expect(html).toContain('<title>A &lt;b&gt; &amp; &quot;c&quot;</title>')
    expect(html).toContain('<link rel="stylesheet" href="/app/rqs.css">')
    expect(html).toContain('<link rel="icon" href="/app/favicon.svg" type="image/svg+xml">')
    expect(html).toContain('<a href="/errors" aria-current="page">Errors</a>')
    expect(html).toContain('<main id="main" tabindex="-1">\n<p>x</p>\n</main>')
    expect(escapeHtml('\'"<>&')).toBe('&#39;&quot;&lt;&gt;&amp;')
  })
})

describe('declared collections in the app (issue 21)', () => {
  const schema = { type: 'object', title: 'Books', properties: { id: { type: 'integer' }, title: { type: 'string', title: 'Title' }, year: { type: 'integer' } }, required: ['id', 'title'] }
  const books = { name: 'books', schema } as unknown as ServedCollection
  const students = { name: 'students', schema: { properties: {} } } as unknown as ServedCollection
  const links: DirectoryLink[] = [{ rel: 'students', href: '/students', title: 'Students' }, { rel: 'books', href: '/books', title: 'Books' }]

  it('gives the page every declared collection with its url and fields, the id and the built-in ones aside', () => {
    const declared = declaredCollections([students, books], links)
    expect(declared).toEqual([{ name: 'books', url: '/books', schema: { properties: { title: { type: 'string', title: 'Title' }, year: { type: 'integer' } }, required: ['title'] } }])
    expect(pageConfig(links, { mediaType: true, uri: true, vendor: 'rqs' } as never, declared).collections).toEqual(declared)
  })

  it('leaves out a collection the directory does not list (its service is not mounted)', () => {
    expect(declaredCollections([books], links.slice(0, 1))).toEqual([])
    expect(pageConfig(links, { mediaType: true, uri: true, vendor: 'rqs' } as never).collections).toBeUndefined()
  })
})
