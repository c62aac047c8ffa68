import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import type { FastifyRequest } from 'fastify'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { AnswerCache } from '../../../src/services/albums/answer-cache.js'
import { QueryEngine } from '../../../src/services/albums/engine.js'
import { startServer, type RunningServer } from '../../helpers/server.js'
import { GRAPHQL_RESPONSE_JSON, JSON_UTF8 } from './helpers.js'

/**
 * A repeated GraphQL request is answered from the answer cache without
 * graphql-http (the direct path). Its answer must be the one graphql-http gave
 * the first time, byte for byte and header for header, for every way of
 * asking; whatever the direct path does not serve must behave as before.
 */

interface RawAnswer {
  status: number
  /** Every header but those that differ per request or per moment (date, x-request-id), in the order sent. */
  headers: Array<[string, string]>
  body: Buffer
}

const PER_REQUEST_HEADERS = new Set(['date', 'x-request-id'])

/** One HTTP exchange with node:http, so that the exact headers sent are the test's and the body arrives undecoded. */
async function exchange (origin: string, method: string, path: string, headers: OutgoingHttpHeaders, body?: string): Promise<RawAnswer> {
  return await new Promise((resolve, reject) => {
    const req = httpRequest(`${origin}${path}`, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(body) }) } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        const pairs: Array<[string, string]> = []
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i]!.toLowerCase()
          if (!PER_REQUEST_HEADERS.has(name)) pairs.push([name, res.rawHeaders[i + 1]!])
        }
        resolve({ status: res.statusCode!, headers: pairs, body: Buffer.concat(chunks) })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

const header = (answer: RawAnswer, name: string): string | undefined => answer.headers.find(([n]) => n === name)?.[1]

/** The Accept values a client may send, with the media type each negotiates. */
const ACCEPTS: Array<[string | undefined, string]> = [
  [undefined, JSON_UTF8],
  ['', JSON_UTF8],
  ['*/*', JSON_UTF8],
  ['application/*', JSON_UTF8],
  ['application/json', JSON_UTF8],
  ['application/json; charset=utf-8', JSON_UTF8],
  ['application/graphql-response+json', GRAPHQL_RESPONSE_JSON],
  ['application/graphql-response+json;charset=utf-8', GRAPHQL_RESPONSE_JSON],
  ['application/json;q=0.5, application/graphql-response+json', GRAPHQL_RESPONSE_JSON],
  ['application/graphql-response+json;q=0.4, application/json', JSON_UTF8],
  ['text/html;q=0.1, application/json', JSON_UTF8]
]

const withAccept = (accept: string | undefined, headers: OutgoingHttpHeaders = {}): OutgoingHttpHeaders =>
  accept === undefined ? headers : { ...headers, accept }

let server: RunningServer
let executions: ReturnType<typeof vi.spyOn>
beforeAll(async () => { server = await startServer() })
afterAll(async () => { await server.close() })
afterEach(() => { executions?.mockRestore() })

/** Counts the queries the engine runs from now on: a repeat served from the cache runs none. */
function countExecutions (): void {
  executions = vi.spyOn(QueryEngine.prototype, 'execute')
}

/** A query text no other test sends (a comment makes it unique), so that its first request goes through graphql-http. */
let unique = 0
const fresh = (document: string): string => `${document} # ${++unique}`

describe('the direct path (a repeated request, answered from the cache)', () => {
  describe.each(ACCEPTS)('Accept %j', (accept, mediaType) => {
    it.each(['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset=UTF-8'])('POST %s: the same status, headers and bytes as the first answer', async (contentType) => {
      const body = JSON.stringify({ query: fresh('{ albums { title artist recordNo } }') })
      countExecutions()
      const first = await exchange(server.origin, 'POST', '/graphql', withAccept(accept, { 'content-type': contentType }), body)
      const again = await exchange(server.origin, 'POST', '/graphql', withAccept(accept, { 'content-type': contentType }), body)
      expect(executions).toHaveBeenCalledTimes(1)
      expect(first.status).toBe(200)
      expect(header(first, 'content-type')).toBe(mediaType)
      expect(header(first, 'vary')).toBe('Accept')
      expect(again).toEqual(first)
    })

    it('GET: the same status, headers and bytes as the first answer', async () => {
      const path = `/graphql?query=${encodeURIComponent(fresh('{ albums { title } }'))}`
      countExecutions()
      const first = await exchange(server.origin, 'GET', path, withAccept(accept))
      const again = await exchange(server.origin, 'GET', path, withAccept(accept))
      expect(executions).toHaveBeenCalledTimes(1)
      expect(first.status).toBe(200)
      expect(header(first, 'content-type')).toBe(mediaType)
      expect(again).toEqual(first)
    })
  })

  it('keys on the variables as sent: each value its own answer, each repeated exactly', async () => {
    const document = fresh('query ($f: String) { albums(titleFilter: $f) { title } }')
    const ask = async (f: string): Promise<RawAnswer> =>
      await exchange(server.origin, 'POST', '/graphql', { 'content-type': 'application/json' }, JSON.stringify({ query: document, variables: { f } }))
    countExecutions()
    const pet = await ask('Pet')
    const rumours = await ask('Rumours')
    expect(JSON.parse(pet.body.toString())).toEqual({ data: { albums: [{ title: 'Pet Sounds' }] } })
    expect(JSON.parse(rumours.body.toString())).toEqual({ data: { albums: [{ title: 'Rumours' }] } })
    expect(await ask('Pet')).toEqual(pet)
    expect(await ask('Rumours')).toEqual(rumours)
    expect(executions).toHaveBeenCalledTimes(2)
  })

  it('a GET and a POST of the same query, or two spellings of one Accept, each get their own first answer', async () => {
    const query = fresh('{ albums { recordNo } }')
    countExecutions()
    const byPost = await exchange(server.origin, 'POST', '/graphql', { 'content-type': 'application/json' }, JSON.stringify({ query }))
    const byGet = await exchange(server.origin, 'GET', `/graphql?query=${encodeURIComponent(query)}`, {})
    const spelledOtherwise = await exchange(server.origin, 'POST', '/graphql', { 'content-type': 'application/json', accept: 'application/json' }, JSON.stringify({ query }))
    expect(executions).toHaveBeenCalledTimes(3)
    expect(byGet).toEqual(byPost)
    expect(spelledOtherwise).toEqual(byPost)
  })
})

describe('what the direct path does not serve behaves as before, also after the same text was answered', () => {
  const body = JSON.stringify({ query: '{ albums { title } }' })
  const path = `/graphql?query=${encodeURIComponent('{ albums { title } }')}`
  beforeAll(async () => {
    await exchange(server.origin, 'POST', '/graphql', { 'content-type': 'application/json' }, body)
    await exchange(server.origin, 'GET', path, {})
  })

  it('an Accept allowing neither GraphQL media type is 406, every time', async () => {
    for (const accept of ['text/plain', 'application/xml', 'application/json; charset=latin1']) {
      for (let i = 0; i < 2; i++) {
        const res = await exchange(server.origin, 'POST', '/graphql', { 'content-type': 'application/json', accept }, body)
        expect(res.status).toBe(406)
        expect(JSON.parse(res.body.toString()).errors[0].extensions.code).toBe('NOT_ACCEPTABLE')
      }
    }
  })

  it('a browser asking for the same URL is still sent to GraphiQL', async () => {
    const res = await exchange(server.origin, 'GET', path, { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' })
    expect(res.status).toBe(303)
    expect(header(res, 'location')).toBe(`/graphiql${path.slice('/graphql'.length)}`)
  })

  it('the same body under another content type is 415, under application/json again 200', async () => {
    for (const contentType of ['text/plain', 'application/json; charset=latin1', 'application/graphql']) {
      const res = await exchange(server.origin, 'POST', '/graphql', { 'content-type': contentType }, body)
      expect(res.status).toBe(415)
      expect(JSON.parse(res.body.toString()).errors[0].extensions.code).toBe('UNSUPPORTED_MEDIA_TYPE')
    }
    expect((await exchange(server.origin, 'POST', '/graphql', { 'content-type': 'application/json' }, body)).status).toBe(200)
  })

  it('other methods with the same body are 405', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const res = await exchange(server.origin, method, '/graphql', { 'content-type': 'application/json' }, body)
      expect(res.status).toBe(405)
      expect(header(res, 'allow')).toBe('GET, POST')
    }
  })

  it('a failed request is never kept: under application/graphql-response+json it stays a 400, run each time', async () => {
    const failing = JSON.stringify({ query: fresh('query ($f: String) { albums(titleFilter: $f) { title } }'), variables: { f: 5 } })
    countExecutions()
    const headers = { 'content-type': 'application/json', accept: 'application/graphql-response+json' }
    const first = await exchange(server.origin, 'POST', '/graphql', headers, failing)
    const again = await exchange(server.origin, 'POST', '/graphql', headers, failing)
    expect(first.status).toBe(400)
    expect(again).toEqual(first)
    expect(executions).toHaveBeenCalledTimes(2)
  })
})

describe('a kept answer large enough to be compressed', () => {
  let dir: string
  let big: RunningServer
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rqs-answers-'))
    const albumsFile = join(dir, 'albums.json')
    await writeFile(albumsFile, JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ title: `Album ${i}`, artist: `Artist ${i}`, recordNo: i }))))
    big = await startServer({ albums: { albumsFile } })
  })
  afterAll(async () => {
    await big.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('is compressed as the first answer was, or sent plain to a client that asks for no encoding', async () => {
    const body = JSON.stringify({ query: '{ albums { title artist recordNo } }' })
    const gzip = { 'content-type': 'application/json', 'accept-encoding': 'gzip' }
    const first = await exchange(big.origin, 'POST', '/graphql', gzip, body)
    const again = await exchange(big.origin, 'POST', '/graphql', gzip, body)
    expect(header(first, 'content-encoding')).toBe('gzip')
    expect(again).toEqual(first)
    const plain = await exchange(big.origin, 'POST', '/graphql', { 'content-type': 'application/json' }, body)
    expect(header(plain, 'content-encoding')).toBeUndefined()
    expect(plain.body).toEqual(gunzipSync(first.body))
    expect(JSON.parse(plain.body.toString()).data.albums).toHaveLength(200)
  })
})

describe('AnswerCache keys', () => {
  const req = (method: string, url: string, headers: Record<string, string>, body?: unknown): FastifyRequest =>
    ({ method, url, headers, body }) as unknown as FastifyRequest
  const cache = new AnswerCache(10)

  it('GET keys on the URL, POST on the body as read; other methods and long texts have no key', () => {
    expect(cache.keyOf(req('GET', '/graphql?query=x', {}))).toContain('/graphql?query=x')
    expect(cache.keyOf(req('POST', '/graphql', {}, '{"query":"x"}'))).toContain('{"query":"x"}')
    expect(cache.keyOf(req('PUT', '/graphql', {}, '{"query":"x"}'))).toBeUndefined()
    expect(cache.keyOf(req('POST', '/graphql', {}, { query: 'x' }))).toBeUndefined()
    expect(cache.keyOf(req('POST', '/graphql', {}, `{"query":"${'x'.repeat(5000)}"}`))).toBeUndefined()
  })

  it('differ by method, Accept and Content-Type', () => {
    const keys = [
      req('POST', '/graphql', { 'content-type': 'application/json' }, 'T'),
      req('POST', '/graphql', { 'content-type': 'application/json; charset=utf-8' }, 'T'),
      req('POST', '/graphql', { 'content-type': 'application/json', accept: 'application/graphql-response+json' }, 'T'),
      req('GET', 'T', { 'content-type': 'application/json' })
    ].map((r) => cache.keyOf(r))
    expect(new Set(keys).size).toBe(keys.length)
  })
})
