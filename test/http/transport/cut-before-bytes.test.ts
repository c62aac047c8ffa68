import { Readable } from 'node:stream'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Fastify, { type FastifyInstance } from 'fastify'
import { ErrorCatalogue, problems } from '../../../src/http/errors/index.js'
import { BoundLog, compressionPlugin, requestLimitsPlugin } from '../../../src/http/transport/index.js'

/**
 * A compressed answer whose stream was handed over (Content-Encoding set on
 * the response) but whose first byte has not come when the handler timeout
 * or the stream's own error stops it: the headers are not out yet, so an
 * error answer could still be written, but under the promised gzip it was a
 * plain JSON body ("incorrect header check"). The client must see a clean
 * connection end or a whole valid answer, never a body its Content-Encoding
 * contradicts.
 */
type Outcome = { kind: 'answer', status: number, encoding: string | undefined, body: Buffer } | { kind: 'cut' }

function get (origin: string, path: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = httpRequest(`${origin}${path}`, { headers: { 'accept-encoding': 'gzip' } }, (res: IncomingMessage) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => { resolve(res.complete ? { kind: 'answer', status: res.statusCode ?? 0, encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) } : { kind: 'cut' }) })
      res.on('error', () => { resolve({ kind: 'cut' }) })
      res.on('aborted', () => { resolve({ kind: 'cut' }) })
    })
    req.on('error', () => { resolve({ kind: 'cut' }) })
    req.end()
  })
}

/** A whole answer's body reads as its Content-Encoding says. */
function readable (outcome: Outcome): boolean {
  if (outcome.kind === 'cut') return true
  if (outcome.encoding !== 'gzip') return true
  try { gunzipSync(outcome.body); return true } catch { return false }
}

describe('a compressed answer stopped before its first byte', () => {
  let app: FastifyInstance
  let origin: string
  beforeAll(async () => {
    // The server's own transport: the handler timeout, compression, and the problem answers of its error pipeline.
    app = Fastify()
    app.decorate('errorCatalogue', new ErrorCatalogue())
    app.setErrorHandler(problems.handleError)
    await app.register(requestLimitsPlugin, { limits: { headersTimeoutMs: 0, bodyTimeoutMs: 0, handlerTimeoutMs: 300, keepAliveTimeoutMs: 0, maxConnections: 0, readBudgetMs: 0 }, bounds: new BoundLog() })
    await app.register(compressionPlugin)
    // A stream that never produces (a store that hangs before its first batch), and one that fails before its first.
    app.get('/test/hangs', { config: { rqs: { service: 'test', access: 'public' } } }, async (_request, reply) => reply.type('application/json').send(new Readable({ read () {} })))
    app.get('/test/fails', { config: { rqs: { service: 'test', access: 'public' } } }, async (_request, reply) => {
      const stream = new Readable({ read () {} })
      setTimeout(() => stream.destroy(new Error('the store failed before the first batch')), 50)
      return await reply.type('application/json').send(stream)
    })
    await app.listen({ port: 0, host: '127.0.0.1' })
    const address = app.server.address()
    if (address === null || typeof address === 'string') throw new Error('no TCP port')
    origin = `http://127.0.0.1:${address.port}`
  }, 60_000)
  afterAll(async () => { await app?.close() })

  it('by the handler timeout: the connection ends, or the answer reads as its Content-Encoding says', async () => {
    const outcome = await get(origin, '/test/hangs')
    expect(readable(outcome), JSON.stringify(outcome)).toBe(true)
  }, 20_000)

  it('by the stream\'s own error: the same', async () => {
    const outcome = await get(origin, '/test/fails')
    expect(readable(outcome), JSON.stringify(outcome)).toBe(true)
  }, 20_000)
})
