import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnServer, type ServerProcess } from '../helpers/process.js'
import { declarationFiles } from '../services/collections/fixture.js'

/**
 * What a start leaves for later (docs/decisions.md, "What a start loads"):
 * the GraphQL side of the server (graphql-js, graphql-http, graphql-sse,
 * graphql-jit and the schema) loads with the first GraphQL request, and
 * loading it holds nobody else for long: a /healthz asked meanwhile answers.
 * Likewise @fastify/swagger, Swagger UI and the YAML library they use load
 * with the first request for /openapi.json or /docs/api.
 * A hook in the process reports each such package module as it loads.
 */
const files = declarationFiles()
const DECLARATION = { collections: { books: { schema: { type: 'object', properties: { title: { type: 'string', maxLength: 200 }, year: { type: 'integer' } }, required: ['title'] } } } }
const HOOK = `
import { register } from 'node:module'
const { port1, port2 } = new MessageChannel()
port1.on('message', (url) => { process.stderr.write('loaded ' + url + '\\n') })
port1.unref()
register('data:text/javascript,' + encodeURIComponent(\`
  let port
  export function initialize (data) { port = data.port }
  export async function load (url, context, next) {
    if (/node_modules\\\\/(graphql(-jit|-http|-sse)?|@fastify\\\\/swagger(-ui)?|yaml)\\\\//.test(url)) port.postMessage(url)
    return next(url, context)
  }\`), { data: { port: port2 }, transferList: [port2] })
`

/** The GraphQL package modules the process reported so far. */
function graphqlModules (server: ServerProcess): string[] {
  return loadedModules(server).filter((line) => /\/node_modules\/graphql/.test(line))
}

/** Every watched package module the process reported so far. */
function loadedModules (server: ServerProcess): string[] {
  return server.stderr().split('\n').filter((line) => line.startsWith('loaded '))
}

/** The OpenAPI side's package modules the process reported so far. */
function openApiModules (server: ServerProcess): string[] {
  return loadedModules(server).filter((line) => /\/node_modules\/(@fastify\/swagger|yaml)/.test(line))
}

async function timedHealth (origin: string): Promise<{ status: number, ms: number }> {
  const started = performance.now()
  const res = await fetch(`${origin}/healthz`)
  await res.arrayBuffer()
  return { status: res.status, ms: performance.now() - started }
}

describe('a start leaves GraphQL for the first GraphQL request', () => {
  let server: ServerProcess
  beforeAll(async () => {
    const hook = files.write('graphql-hook.mjs', HOOK)
    server = await spawnServer(['--collections', files.write('books.json', DECLARATION), '--log-level', 'info'], { NODE_OPTIONS: `--import ${hook}` }, 120_000)
  }, 180_000)
  afterAll(async () => { await server?.stop() })

  it('is ready without loading any GraphQL package, and answers REST meanwhile', async () => {
    expect((await timedHealth(server.origin)).status).toBe(200)
    const created = await fetch(`${server.origin}/books`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Dune', year: 1965 }) })
    expect(created.status).toBe(201)
    expect(graphqlModules(server)).toEqual([])
    expect(openApiModules(server)).toEqual([])
  }, 60_000)

  it('loads @fastify/swagger with the first request for the document, and Swagger UI with the first page of it', async () => {
    const document = await fetch(`${server.origin}/openapi.json`)
    expect(document.status).toBe(200)
    const paths = (await document.json() as { paths: Record<string, unknown> }).paths
    expect(Object.keys(paths)).toContain('/books')
    expect(openApiModules(server).some((line) => line.includes('/node_modules/@fastify/swagger/'))).toBe(true)
    expect(openApiModules(server).some((line) => line.includes('/node_modules/@fastify/swagger-ui/'))).toBe(false)
    const page = await fetch(`${server.origin}/docs/api/static/index.html`, { redirect: 'manual' })
    expect(page.status).toBe(302)
    expect(page.headers.get('content-type')).toBeNull()
    const ui = await fetch(`${server.origin}/docs/api`)
    expect(ui.status).toBe(200)
    expect(await ui.text()).toMatch(/rqs — API \(Swagger UI\)/)
    // Swagger UI's own copy of the document is the one /openapi.json was made from.
    const shown = await fetch(`${server.origin}/docs/api/json`)
    expect(Object.keys((await shown.json() as { paths: Record<string, unknown> }).paths)).toEqual(Object.keys(paths))
    expect(openApiModules(server).some((line) => line.includes('/node_modules/@fastify/swagger-ui/'))).toBe(true)
  }, 60_000)

  it('loads it with the first GraphQL request, which answers as ever while /healthz keeps answering', async () => {
    const query = fetch(`${server.origin}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ books { nodes { title year } } albums { title } }' }) })
    // Asked while the GraphQL side loads and builds its schema: generous, it only must not wait for seconds.
    const health = await timedHealth(server.origin)
    const answer = await query
    expect(answer.status).toBe(200)
    const body = await answer.json() as { data?: { books: { nodes: Array<{ title: string, year: number }> }, albums: unknown[] } }
    expect(body.data?.books.nodes).toEqual([{ title: 'Dune', year: 1965 }])
    expect(body.data?.albums.length).toBeGreaterThan(0)
    expect(health.status).toBe(200)
    expect(health.ms).toBeLessThan(2000)
    expect(graphqlModules(server).some((line) => line.includes('/node_modules/graphql/'))).toBe(true)
  }, 60_000)

  it('serves the schema as SDL and subscriptions from the same loaded side', async () => {
    const sdl = await fetch(`${server.origin}/graphql/schema.graphql`)
    expect(sdl.status).toBe(200)
    expect(await sdl.text()).toMatch(/booksChanged/)
  }, 60_000)
})
