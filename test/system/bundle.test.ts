import { isAscii } from 'node:buffer'
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Script } from 'node:vm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundle, warmStart } from '../../scripts/bundle.js'
import { cacheFileOf } from '../../src/lib/code-cache.js'
import { declarationFiles } from '../services/collections/fixture.js'

/**
 * The bundled executable (scripts/bundle.ts; what `npm start` runs after
 * `npm run build`) serves as the modules tsc writes do: files found beside a
 * module (package.json for the version) are found from the bundle, CommonJS
 * packages bundled into it load Node's built-ins, and the parts split off
 * into chunks (the OpenAPI document with the external @fastify/swagger, the
 * GraphQL side) load on their first request. The executable runs the bundle
 * through V8's code cache: it starts without one, writes it once ready,
 * starts again from it, and a cache it cannot use is ignored and replaced.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const OUT = `${ROOT}.tmp/bundle-test-${process.pid}`
const VERSION = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string }).version
const files = declarationFiles()
const DECLARATION = { collections: { books: { schema: { type: 'object', properties: { title: { type: 'string', maxLength: 200 }, year: { type: 'integer' } }, required: ['title'] } } } }

function run (args: string[]): ChildProcess {
  const env = { ...process.env }
  delete env.DATABASE_URL
  delete env.RQS_STORE
  delete env.LOG_LEVEL
  return spawn(process.execPath, [`${OUT}/bin.js`, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
}

/** Starts `rqs serve` from the executable; resolves with its origin once it listens. */
async function serveFrom (args: string[]): Promise<{ child: ChildProcess, origin: string }> {
  const child = run(['serve', '--port', '0', '--host', '127.0.0.1', '--log-level', 'info', '--log-format', 'json', ...args])
  let out = ''
  let err = ''
  child.stderr?.on('data', (c: Buffer) => { err += c.toString() })
  const origin = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString()
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m !== null) resolve(m[1] as string)
    })
    child.on('exit', (code) => { reject(new Error(`exited with ${String(code)}: ${err}`)) })
  })
  // The line may be written (by pino's writer off the main thread) before the signal handlers are set;
  // once a request is answered they are.
  expect((await fetch(`${origin}/healthz`)).status).toBe(200)
  return { child, origin }
}

/** Stops a server with SIGTERM; resolves with its exit code (by then, whatever its start wrote is written). */
async function stop (child: ChildProcess): Promise<number | string | null> {
  if (child.exitCode !== null) return child.exitCode
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => { resolve(code ?? signal) }))
  child.kill('SIGTERM')
  return await exited
}

describe('the bundled executable', () => {
  let server: ChildProcess | undefined
  let origin = ''
  let cacheFile = ''
  let bundleFile = ''
  let cacheBeforeStart = true
  beforeAll(async () => {
    bundleFile = await bundle(OUT)
    cacheFile = cacheFileOf(bundleFile)
    cacheBeforeStart = existsSync(cacheFile)
    ;({ child: server, origin } = await serveFrom(['--collections', files.write('books.json', DECLARATION)]))
  }, 120_000)
  afterAll(async () => {
    if (server !== undefined) await stop(server)
    rmSync(OUT, { recursive: true, force: true })
  })

  it('is written as ASCII, named by its content', () => {
    const bytes = readFileSync(bundleFile)
    // Read as Latin-1 by the executable, which only an ASCII file allows.
    expect(isAscii(bytes)).toBe(true)
    const content = bytes.subarray(0, bytes.lastIndexOf('//# sourceMappingURL='))
    expect(bundleFile).toMatch(new RegExp(`/rqs-${createHash('sha256').update(content).digest('hex').slice(0, 12)}\\.cjs$`))
  })

  it('starts without a code cache, then writes one, which the next start uses as it is', async () => {
    expect(cacheBeforeStart).toBe(false)
    // Written just after the start: waited for, not timed.
    while (!existsSync(cacheFile)) await new Promise((resolve) => setTimeout(resolve, 20))
    const written = statSync(cacheFile)
    const next = await serveFrom([])
    expect((await fetch(`${next.origin}/healthz`)).status).toBe(200)
    expect(await stop(next.child)).toBe(0)
    // A cache V8 refused would have been written again once the start was done, before the exit.
    expect(statSync(cacheFile).ino).toBe(written.ino)
    expect(statSync(cacheFile).mtimeMs).toBe(written.mtimeMs)
  })

  it.each([
    ['corrupt', (): Buffer => Buffer.from('not a V8 code cache, just bytes '.repeat(100))],
    ['made for another bundle', (): Buffer => new Script('exports.runExecutable = () => { process.exitCode = 3 }').createCachedData()]
  ])('starts from a code cache that is %s as from none, and replaces it', async (_, bad) => {
    while (!existsSync(cacheFile)) await new Promise((resolve) => setTimeout(resolve, 20))
    const replaced = bad()
    writeFileSync(cacheFile, replaced)
    const next = await serveFrom([])
    expect((await fetch(`${next.origin}/healthz`)).status).toBe(200)
    expect(await stop(next.child)).toBe(0)
    expect(readFileSync(cacheFile).equals(replaced)).toBe(false)
    // ...and the cache it wrote instead is used by the start after.
    const written = statSync(cacheFile)
    const after = await serveFrom([])
    expect(await stop(after.child)).toBe(0)
    expect(statSync(cacheFile).ino).toBe(written.ino)
  })

  it('tells the package version (read beside the module that reads it)', async () => {
    const child = run(['--version'])
    let out = ''
    child.stdout?.on('data', (c: Buffer) => { out += c.toString() })
    const code = await new Promise((resolve) => child.on('close', resolve))
    expect(code).toBe(0)
    expect(out.trim()).toBe(VERSION)
  })

  it('answers /healthz as JSON', async () => {
    const res = await fetch(`${origin}/healthz`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(await res.json()).toEqual({ status: 'ok' })
  })

  it('creates and lists records of a declared collection', async () => {
    const created = await fetch(`${origin}/books`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Dune', year: 1965 }) })
    expect(created.status).toBe(201)
    const list = await fetch(`${origin}/books?limit=10`)
    expect(list.status).toBe(200)
    expect(JSON.stringify(await list.json())).toContain('"title":"Dune"')
  })

  it('builds the OpenAPI document on its first request', async () => {
    const res = await fetch(`${origin}/openapi.json`)
    expect(res.status).toBe(200)
    const doc = await res.json() as { openapi?: string, paths?: Record<string, unknown> }
    expect(doc.openapi).toMatch(/^3\./)
    expect(Object.keys(doc.paths ?? {})).toContain('/books')
  })

  it('renders a document of /docs/ from Markdown (loaded on first use)', async () => {
    const res = await fetch(`${origin}/docs/decisions.md`, { headers: { accept: 'text/html' } })
    expect(res.status).toBe(200)
    expect(await res.text()).toMatch(/<article class="doc">\s*<h1[^>]*>/)
  })

  it('opens a SQLite store (the SQL stores are loaded when chosen)', async () => {
    const dir = mkdtempSync(`${OUT}/sqlite-`)
    const sqlite = await serveFrom(['--store', `sqlite:${dir}/rqs.db`, '--collections', files.write('books-sqlite.json', DECLARATION)])
    try {
      const created = await fetch(`${sqlite.origin}/books`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Emma' }) })
      expect(created.status).toBe(201)
      const list = await fetch(`${sqlite.origin}/books`)
      expect(JSON.stringify(await list.json())).toContain('"title":"Emma"')
    } finally {
      expect(await stop(sqlite.child)).toBe(0)
    }
  })

  it.skipIf(process.env.DATABASE_URL === undefined)('opens a PostgreSQL store (DATABASE_URL)', async () => {
    const pg = await serveFrom(['--store', process.env.DATABASE_URL ?? ''])
    try {
      const list = await fetch(`${pg.origin}/students?limit=1`)
      expect(list.status).toBe(200)
    } finally {
      expect(await stop(pg.child)).toBe(0)
    }
  })

  it('answers a file\'s failure with the error @fastify/send makes on first use (http-errors, required when first called)', async () => {
    const res = await fetch(`${origin}/students/assets/index.html`, { headers: { range: 'bytes=99999999-' } })
    expect(res.status).toBe(416)
    expect(await res.json()).toEqual({ isSuccessful: false, body: 'Range Not Satisfiable' })
  })

  it('starts without reading thread-stream (pino\'s transports, which rqs never starts)', async () => {
    const listed = `${OUT}/required-${process.pid}.json`
    const preload = `${OUT}/list-required.cjs`
    writeFileSync(preload, `process.on('exit', () => { require('node:fs').writeFileSync(${JSON.stringify(listed)}, JSON.stringify(Object.keys(require.cache))) })\n`)
    const child = spawn(process.execPath, ['--require', preload, `${OUT}/bin.js`, 'serve', '--port', '0', '--host', '127.0.0.1', '--log-level', 'info', '--log-format', 'json'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    const next = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => { out += c.toString(); const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out); if (m !== null) resolve(m[1] as string) })
      child.on('exit', (code) => { reject(new Error(`exited with ${String(code)}`)) })
    })
    expect((await fetch(`${next}/healthz`)).status).toBe(200)
    expect(await stop(child)).toBe(0)
    const required = JSON.parse(readFileSync(listed, 'utf8')) as string[]
    expect(required).toContain(preload) // the listing works
    expect(required.filter((file) => file.includes('thread-stream'))).toEqual([])
  })

  it('loads the GraphQL side on its first request', async () => {
    const res = await fetch(`${origin}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ data: { __typename: 'Query' } })
  })

  it('the build makes the code cache with one start of its own, which the next start uses', async () => {
    rmSync(cacheFile, { force: true })
    expect(await warmStart(OUT, `${OUT}/bin.js`)).toBe(true)
    const written = statSync(cacheFile)
    const next = await serveFrom([])
    expect(await stop(next.child)).toBe(0)
    expect(statSync(cacheFile).ino).toBe(written.ino)
  })
})
