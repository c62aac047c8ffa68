import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'

export const DOCS_DIR = fileURLToPath(new URL('../../../docs', import.meta.url))

/**
 * The project's documents (decisions, errors catalogue, versioning policy)
 * under /docs/, as plain Markdown, with an index page listing them.
 */
export async function docsService (app: FastifyInstance): Promise<void> {
  const files = readdirSync(DOCS_DIR).filter((f) => f.endsWith('.md')).sort()
  const index = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>rqs documentation</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}</style></head>
<body><h1>rqs documentation</h1><ul>${files.map((f) => `<li><a href="/docs/${f}">${f}</a></li>`).join('')}</ul>
<p><a href="/">Back to the start page</a></p></body></html>`
  app.get('/docs/', { schema: { hide: true } }, async (_request, reply) => reply.type('text/html; charset=utf-8').send(index))
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
