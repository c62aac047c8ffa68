import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundle } from '../../scripts/bundle.js'
import { declarationFiles } from '../services/collections/fixture.js'

/**
 * The bundled executable (scripts/bundle.ts; what `npm start` runs after
 * `npm run build`) serves as the modules tsc writes do: files found beside a
 * module (package.json for the version) are found from the bundle, CommonJS
 * packages bundled into it load Node's built-ins, and the parts split off
 * into chunks (the OpenAPI document with the external @fastify/swagger, the
 * GraphQL side) load on their first request.
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
  return spawn(process.execPath, [`${OUT}/rqs.js`, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
}

describe('the bundled executable', () => {
  let server: ChildProcess | undefined
  let origin = ''
  beforeAll(async () => {
    await bundle(OUT)
    server = run(['serve', '--port', '0', '--log-level', 'info', '--collections', files.write('books.json', DECLARATION)])
    let out = ''
    let err = ''
    server.stderr?.on('data', (c: Buffer) => { err += c.toString() })
    origin = await new Promise<string>((resolve, reject) => {
      server?.stdout?.on('data', (c: Buffer) => {
        out += c.toString()
        const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
        if (m !== null) resolve(m[1] as string)
      })
      server?.on('exit', (code) => { reject(new Error(`exited with ${String(code)}: ${err}`)) })
    })
  }, 120_000)
  afterAll(async () => {
    if (server !== undefined && server.exitCode === null) {
      const exited = new Promise((resolve) => server?.once('exit', resolve))
      server.kill('SIGTERM')
      await exited
    }
    rmSync(OUT, { recursive: true, force: true })
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

  it('loads the GraphQL side on its first request', async () => {
    const res = await fetch(`${origin}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ data: { __typename: 'Query' } })
  })
})
