import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import { escapeHtml, renderPage } from '../../http/html/index.js'
import { declareRoutes } from '../../http/routes/index.js'
import { MediaTypeChooser } from '../../lib/negotiate.js'
import { appendVary } from '../../lib/vary.js'

export const DOCS_DIR = fileURLToPath(new URL('../../../docs', import.meta.url))
/** The main user guide, at the package root (GitHub and npm show it there); served as /docs/README.md. */
const README = fileURLToPath(new URL('../../../README.md', import.meta.url))
const GUIDE = 'README.md'

/** Documents for the people who run and call rqs, in the index's order; the others are for contributors. */
const FOR_USERS = ['collections.md', 'rules.md', 'webhooks.md', 'operations.md', 'versioning.md', 'errors.md', 'decisions.md']

const pages = new MediaTypeChooser(['text/markdown', 'text/html'])

export interface Doc {
  file: string
  /** The title (the first heading) and the Markdown: read from the file when first asked for, then kept. */
  title: () => string
  markdown: () => string
  /** The page for browsers: rendered on first request, then kept. */
  html: () => Promise<string>
}

/** The first `# heading` of a document, or its file name. */
function titleOf (markdown: string, fallback: string): string {
  const match = /^# (.+)$/m.exec(markdown)
  return match?.[1]?.trim() ?? fallback
}

/**
 * The Markdown files of `dir` (by name) and the user guide at `readme`, each read when first asked for
 * (its title, its Markdown or its page), then kept: reading the half megabyte of Markdown at start was
 * ≈ 1.5 % of every start, for documents most servers never serve.
 */
export function documentsOf (dir: string, readme: string): { docs: Doc[], guide: Doc } {
  const render = (file: string, source: string, path: string, fixedTitle?: string): Doc => {
    let markdown: string | undefined
    let html: Promise<string> | undefined
    const read = (): string => (markdown ??= readFileSync(source, 'utf8'))
    const rendered = async (): Promise<string> => {
      const { markdownToHtml } = await import('./markdown.js')
      return renderPage({ title: `${doc.title()} — rqs`, current: '/docs/', body: `<article class="doc">${markdownToHtml(read(), path)}</article>` })
    }
    const doc: Doc = { file, title: () => fixedTitle ?? titleOf(read(), file), markdown: read, html: () => (html ??= rendered()) }
    return doc
  }
  const docs = readdirSync(dir).filter((f) => f.endsWith('.md')).sort()
    .map((file) => render(file, join(dir, file), `docs/${file}`))
  return { docs, guide: render(GUIDE, readme, GUIDE, 'User guide') }
}

/**
 * The documents under /docs/: an index page, and each Markdown file rendered
 * to HTML in the site's look for browsers (`Accept` preferring text/html),
 * or as Markdown for everything else. Each page is rendered when first asked
 * for, then kept: the renderer (markdown-it, sanitize-html) is loaded only
 * then, so a server nobody reads the docs of never holds it. The README
 * (the user guide) comes first; links between documents and their images are
 * rewritten to where /docs/ serves them (src/services/docs/markdown.ts).
 */
export async function docsService (app: FastifyInstance): Promise<void> {
  declareRoutes(app, { service: 'docs', access: 'public' })
  const { docs, guide } = documentsOf(DOCS_DIR, README)
  const byFile = new Map([guide, ...docs].map((d) => [d.file, d]))
  const item = (d: Doc): string => `<li><a href="/docs/${escapeHtml(d.file)}">${escapeHtml(d.title())}</a></li>`
  const users = [guide, ...FOR_USERS.map((f) => byFile.get(f)).filter((d): d is Doc => d !== undefined)]
  const others = docs.filter((d) => !FOR_USERS.includes(d.file))
  let index: string | undefined
  const indexPage = (): string => (index ??= renderPage({
    title: 'Documentation — rqs',
    current: '/docs/',
    body: `<h1>Documentation</h1>
<ul>${users.map(item).join('')}<li><a href="/docs/api">API reference (Swagger UI)</a></li></ul>
${others.length === 0 ? '' : `<h2>For contributors</h2><ul>${others.map(item).join('')}</ul>`}`
  }))
  app.get('/docs/', { schema: { hide: true } }, async (_request, reply) => reply.type('text/html; charset=utf-8').send(indexPage()))

  // Browsers get the rendered page; anything else (curl, scripts) the Markdown itself.
  app.addHook('onRequest', async (request, reply) => {
    const url = request.url.split('?', 1)[0] ?? ''
    if (!url.startsWith('/docs/') || !url.endsWith('.md')) return
    const doc = byFile.get(url.slice('/docs/'.length))
    if (doc === undefined) return
    appendVary(reply, 'Accept')
    if (pages.prefers(request.headers.accept, 'text/html')) return reply.type('text/html; charset=utf-8').send(await doc.html())
  })
  // The README is not under docs/, so the static files below do not hold it: its Markdown is served from memory.
  app.get(`/docs/${GUIDE}`, { schema: { hide: true } }, async (_request, reply) => reply.type('text/markdown; charset=utf-8').send(guide.markdown()))

  await app.register(fastifyStatic, {
    root: DOCS_DIR,
    prefix: '/docs/',
    decorateReply: false,
    index: false,
    dotfiles: 'deny',
    allowedPath: (path) => path.endsWith('.md') || path.endsWith('.png'),
    setHeaders: (res, path) => { if (path.endsWith('.md')) res.header('content-type', 'text/markdown; charset=utf-8') }
  })
}
