import { randomBytes } from 'node:crypto'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { createGunzip } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { StoredRecord } from '../../../src/domain/index.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { startServer, type RunningServer } from '../../helpers/server.js'
import { declarationFiles } from '../../services/collections/fixture.js'
import { memoryStores } from '../../helpers/built-ins.js'

/**
 * A compressed answer that the handler timeout cuts after its headers went
 * out (issue 36, item 6): the connection ends, and what arrived is a valid
 * gzip stream that merely stops — never an error body written inside it
 * (a client's gunzip once failed with "incorrect header check").
 */
const files = declarationFiles()
const DECLARATION = { collections: { notes: { schema: { type: 'object', properties: { text: { type: 'string', maxLength: 2000 } }, required: ['text'] } } } }
// ≈ 16 MB of incompressible text: more than the loopback socket buffers hold even when Linux grows them (≈ 6 MB).
const RECORDS = 20_000

async function * batches (): AsyncIterable<StoredRecord[]> {
  for (let i = 0; i < RECORDS; i += 500) {
    // Random text does not compress: the gzip stream stays megabytes long, more than the socket buffers hold.
    yield Array.from({ length: 500 }, (_, j) => ({ id: i + j + 1, text: randomBytes(600).toString('base64') }))
  }
}

function get (origin: string, path: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${origin}${path}`, { headers: { accept: 'text/csv', 'accept-encoding': 'gzip' } }, resolve)
    req.on('error', reject)
    req.end()
  })
}

describe('a compressed answer cut by the handler timeout', () => {
  let server: RunningServer
  beforeAll(async () => {
    const collections = fromFile(files.write('notes.json', DECLARATION), '--collections')
    const stores = memoryStores({ collections: collections.declared.map((c) => c.declaration) })
    await stores.collections.get('notes')?.importAll(batches())
    server = await startServer({ collections, connections: { headersTimeoutMs: 0, bodyTimeoutMs: 0, handlerTimeoutMs: 400, keepAliveTimeoutMs: 0, maxConnections: 0 } }, { stores })
  }, 60_000)
  afterAll(async () => { await server?.close() })

  it('ends the connection; the bytes that came are a valid gzip stream cut short', async () => {
    const res = await get(server.origin, '/notes?limit=100000')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-encoding']).toBe('gzip')
    // Read nothing until the timeout has passed: the answer cannot finish in time.
    res.pause()
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const chunks: Buffer[] = []
    const ended = await new Promise<'complete' | 'cut'>((resolve) => {
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => { resolve(res.complete ? 'complete' : 'cut') })
      res.on('error', () => { resolve('cut') })
      res.on('aborted', () => { resolve('cut') })
      res.resume()
    })
    expect(ended).toBe('cut')
    const received = Buffer.concat(chunks)
    expect(received.length).toBeGreaterThan(0)
    // Gunzip what came: the only acceptable complaint is that it stops early.
    const problem = await new Promise<string | undefined>((resolve) => {
      const gunzip = createGunzip()
      let text = ''
      gunzip.on('data', (d: Buffer) => { text += d.toString() })
      gunzip.on('error', (err: NodeJS.ErrnoException) => { resolve(err.code === 'Z_BUF_ERROR' ? undefined : `${err.code ?? ''} ${err.message}`) })
      gunzip.on('end', () => { resolve(text.includes('"type"') && text.includes('timeout') ? 'an error body inside the stream' : undefined) })
      gunzip.end(received)
    })
    expect(problem).toBeUndefined()
  }, 30_000)
})
