import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { STREAM_OPERATIONS } from '../../../src/http/openapi/swagger-ui.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'

/**
 * Swagger UI as shipped (issue 37, item 8): every operation's example, sent
 * as "Try it out" sends it, succeeds on a fresh server (default configuration,
 * memory store) with a status the document lists, in the media type of the
 * version it is filed under; and the examples never touch a record someone
 * else made. Streams, which "Try it out" cannot show, give a curl command
 * instead, and their examples are run here as that command would run them.
 */

type Json = Record<string, any>
const METHODS = ['post', 'put', 'patch', 'get', 'delete']

interface Operation { path: string, method: string, op: Json }

let server: RunningServer
let doc: Json

beforeAll(async () => {
  server = await startServer()
  doc = (await request(`${server.origin}/openapi.json`)).body
})
afterAll(async () => { await server.close() })

function operations (): Operation[] {
  return Object.entries<Json>(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m] !== undefined).map((method) => ({ path, method, op: item[method] })))
}

function isStream ({ op }: Operation): boolean {
  return Object.keys(op.responses['200']?.content ?? {}).includes('text/event-stream')
}

/** A parameter's example as Swagger UI fills it in: `example`, else the first of `examples`. */
function exampleOf (parameter: Json): unknown {
  return parameter.example ?? Object.values<Json>(parameter.examples ?? {})[0]?.value
}

/** The documented success statuses and the media type Swagger UI asks for (the first of the first 2xx with content). */
function successes (op: Json): { statuses: number[], accept: string | undefined } {
  const statuses = Object.keys(op.responses).filter((s) => s.startsWith('2')).map(Number)
  const first = Object.entries<Json>(op.responses).find(([s, r]) => s.startsWith('2') && r.content !== undefined)
  return { statuses, accept: first === undefined ? undefined : Object.keys(first[1].content)[0] }
}

/** The request "Try it out" sends with the operation's examples. */
function exampleRequest ({ path, method, op }: Operation): { url: string, init: RequestInit } {
  let filled = path
  const query = new URLSearchParams()
  for (const p of op.parameters ?? []) {
    const value = exampleOf(p)
    if (p.required === true && p.in !== 'header') expect(value, `${method} ${path}: parameter ${p.name as string} has no example`).toBeDefined()
    if (value === undefined) continue
    if (p.in === 'path') filled = filled.replace(`{${p.name as string}}`, encodeURIComponent(String(value)))
    if (p.in === 'query') query.set(p.name, String(value))
  }
  const headers: Record<string, string> = {}
  const { accept } = successes(op)
  if (accept !== undefined) headers.accept = accept
  let body: string | undefined
  const content = op.requestBody?.content as Json | undefined
  if (content !== undefined) {
    const [type, media] = Object.entries<Json>(content)[0] as [string, Json]
    expect(media.example, `${method} ${path}: its request body has no example`).toBeDefined()
    headers['content-type'] = type
    body = JSON.stringify(media.example)
  }
  const search = query.size > 0 ? `?${query.toString()}` : ''
  return { url: `${server.origin}${filled}${search}`, init: { method: method.toUpperCase(), headers, body } }
}

/**
 * A sensible order: each mount of a resource (`/students`, `/v1/students`, …)
 * through its life — create, replace, read, delete — so each delete removes
 * the record its own mount's examples made, and the next mount starts again
 * from an empty collection (the count rule gives the same ids again).
 */
function lifecycleOrder (ops: Operation[]): Operation[] {
  const mount = (path: string): string => /^\/v\d+\//.exec(path)?.[0] ?? '/'
  return [...ops].sort((a, b) => mount(a.path).localeCompare(mount(b.path)) || METHODS.indexOf(a.method) - METHODS.indexOf(b.method) || a.path.localeCompare(b.path))
}

/** Opens a stream as the curl command does, waits for `until` in its text, then closes it. */
async function readStream (url: string, init: RequestInit, until: RegExp, whileOpen: () => Promise<void>): Promise<{ status: number, type: string | null, text: string }> {
  const abort = new AbortController()
  const res = await fetch(url, { ...init, signal: abort.signal })
  let text = ''
  try {
    if (res.status !== 200 || res.body === null) return { status: res.status, type: res.headers.get('content-type'), text: await res.text() }
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
    await whileOpen()
    const deadline = Date.now() + 10_000
    while (!until.test(text) && Date.now() < deadline) {
      const { value, done } = await reader.read()
      if (done) break
      text += value
    }
    return { status: res.status, type: res.headers.get('content-type'), text }
  } finally {
    abort.abort()
  }
}

describe('every operation\'s example', () => {
  it('succeeds on a fresh server with a documented status, in its version\'s media type, and leaves others\' records alone', async () => {
    // Someone's address, made before anyone tries the examples.
    const theirs = await request(`${server.origin}/addresses`, { method: 'POST', json: { name: 'Grace Hopper', city: 'Arlington', postalCode: '22201' } })
    expect(theirs.status).toBe(201)

    const failures: string[] = []
    let ran = 0
    for (const operation of lifecycleOrder(operations().filter((o) => !isStream(o)))) {
      const { path, method, op } = operation
      const { url, init } = exampleRequest(operation)
      const res = await request(url, init)
      ran++
      const where = `${method.toUpperCase()} ${path} (${url.slice(server.origin.length)})`
      const { statuses, accept } = successes(op)
      if (!statuses.includes(res.status)) { failures.push(`${where}: ${res.status} ${res.text.slice(0, 200)}`); continue }
      // What Swagger UI asked for is what it gets: a v2 operation answers v2, not v1's envelope.
      const type = res.headers.get('content-type')
      if (accept !== undefined && accept !== '*/*' && res.status !== 204 && type?.startsWith(accept) !== true) failures.push(`${where}: asked for ${accept}, got ${type ?? 'none'}`)
      // GraphQL answers 200 for most errors: the examples must run cleanly and find something.
      if (path === '/graphql') {
        if (res.body?.errors !== undefined || !(res.body?.data?.albums?.length > 0)) failures.push(`${where}: ${res.text.slice(0, 200)}`)
      }
    }
    expect(failures).toEqual([])
    expect(ran).toBeGreaterThan(40)

    const after = await request(`${server.origin}/addresses/${theirs.body.id as number}`)
    expect(after.status).toBe(200)
    expect(after.body).toEqual(theirs.body)
  }, 120_000)

  it('of a v2 operation sends v2\'s media type as Content-Type and Accept', () => {
    const v2 = 'application/vnd.rqs.v2+json'
    for (const [path, method] of [['/students', 'post'], ['/students', 'put'], ['/v2/students', 'post'], ['/addresses', 'post'], ['/v2/addresses/{id}', 'put']] as const) {
      const op = doc.paths[path][method]
      expect([path, method, Object.keys(op.requestBody.content)[0]]).toEqual([path, method, v2])
      expect([path, method, successes(op).accept]).toEqual([path, method, v2])
    }
    // And v1's its own.
    expect(Object.keys(doc.paths['/v1/students'].post.requestBody.content)[0]).toBe('application/vnd.rqs.v1+json')
  })
})

describe('stream operations', () => {
  it('are exactly the ones Swagger UI offers no "Try it out" for, and say how to use curl instead', async () => {
    const streams = operations().filter(isStream)
    expect(streams.map(({ op }) => op.operationId).sort()).toEqual([...STREAM_OPERATIONS].sort())
    const css = await request(`${server.origin}/docs/api/static/theme/rqs.css`)
    expect(css.status).toBe(200)
    for (const { op } of streams) {
      expect(css.text).toContain(`[id$="-${op.operationId as string}"] .try-out`)
      expect(op.description).toMatch(/```\ncurl -N -H 'Accept: text\/event-stream' /)
    }
    expect(css.text).toMatch(/\.try-out \{ display: none; \}/)
  })

  it('their examples stream: the change feed becomes ready, the subscriptions deliver a change', async () => {
    for (const operation of operations().filter(isStream)) {
      const { url, init } = exampleRequest(operation)
      const subscription = operation.path === '/graphql/stream'
      // A change for the subscription to deliver, made once the stream is open.
      const change = async (): Promise<void> => {
        if (!subscription) return
        await new Promise((resolve) => setTimeout(resolve, 200))
        const made = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'Ada', lastName: 'Lovelace', age: 36 } })
        expect(made.status).toBe(201)
      }
      const res = await readStream(url, init, subscription ? /event: next\ndata: .*\n/ : /event: ready/, change)
      const where = `${operation.method} ${operation.path}`
      expect([where, res.status, res.type]).toEqual([where, 200, 'text/event-stream; charset=utf-8'])
      if (subscription) {
        const data = JSON.parse(/event: next\ndata: (.*)\n/.exec(res.text)?.[1] ?? 'null')
        expect([where, data?.errors, data?.data?.studentsChanged?.kind]).toEqual([where, undefined, 'CREATED'])
      } else {
        expect(res.text).toMatch(/event: ready/)
      }
    }
  }, 60_000)
})
