import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

/**
 * A feature that is off costs nothing, not even its library's memory: a
 * default server (built in a fresh process, from source under tsx) loads
 * none of the libraries of the features it does not run, and the docs'
 * renderer only once a page is asked for as HTML. CommonJS packages show in
 * require.cache, which is what this reads (jose and markdown-it, ES modules, are loaded the
 * same way: only by JwtVerifier.open and the docs' first page).
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const LAZY = ['sanitize-html', '@fastify/under-pressure', '@fastify/cors', '@fastify/rate-limit', 'prom-client', 'pg', 'better-sqlite3']

const SCRIPT = `
import { createRequire } from 'node:module'
const require = createRequire(import.meta.url)
const { buildServer } = await import('./src/server.ts')
const { defaultConfig } = await import('./src/options.ts')
const loaded = () => [...new Set(Object.keys(require.cache).map((k) => /node_modules\\/((@[^/]+\\/)?[^/]+)/.exec(k)?.[1]).filter(Boolean))]
const app = await buildServer({ ...defaultConfig(), logLevel: 'silent' })
await app.ready()
const before = loaded()
const page = await app.inject({ url: '/docs/decisions.md', headers: { accept: 'text/html' } })
process.stdout.write(JSON.stringify({ before, after: loaded(), status: page.statusCode, html: page.body.includes('<article') }))
await app.close()
`

describe('what a default server loads', () => {
  it('holds no library of a feature that is off, and loads the docs renderer on the first page', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], { cwd: ROOT, timeout: 60_000 })
    const { before, after, status, html } = JSON.parse(stdout) as { before: string[], after: string[], status: number, html: boolean }
    expect(before).toContain('fastify') // the reading works
    for (const lib of LAZY) expect(before, lib).not.toContain(lib)
    expect(status).toBe(200)
    expect(html).toBe(true)
    expect(after).toContain('sanitize-html')
  }, 90_000)
})
