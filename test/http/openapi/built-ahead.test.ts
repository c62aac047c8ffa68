import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fromFile } from '../../../src/services/collections/config.js'
import { MAX_COLUMNS } from '../../../src/services/collections/limits.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { declarationFiles } from '../../services/collections/fixture.js'

/**
 * Declared collections at the field limit make /openapi.json megabytes and
 * seconds of generation (issue 36, item 6: 1 000 fields held the event loop
 * 87–121 s on the first request). It is made on the first request, in
 * slices that let the event loop go between them, and kept as text: others
 * are served while it is made.
 */
const files = declarationFiles()
const COLLECTIONS = 5
const fields = Object.fromEntries(Array.from({ length: MAX_COLUMNS / 2 }, (_, i) => [`field${i}`, { type: 'string', maxLength: 100 }]))
const DECLARATION = { collections: Object.fromEntries(Array.from({ length: COLLECTIONS }, (_, i) => [`wide${i}`, { schema: { type: 'object', properties: fields, required: ['field0'] } }])) }

describe('/openapi.json with wide declared collections', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ collections: fromFile(files.write('wide.json', DECLARATION), '--collections') })
  }, 180_000)
  afterAll(async () => { await server?.close() })

  it('is made while /healthz keeps answering, and is the same document each time', async () => {
    const received = new Promise((resolve) => { server.app.server.once('request', resolve) })
    let finished = false
    const document = request(`${server.origin}/openapi.json`, { headers: { 'accept-encoding': 'gzip' } }).then((answer) => { finished = true; return answer })
    // Once the server has the document's request (so is making it), /healthz is answered before it is done.
    await received
    const health = await request(`${server.origin}/healthz`)
    expect(health.status).toBe(200)
    expect(finished).toBe(false)
    const first = await document
    expect(first.status).toBe(200)
    expect(first.headers.get('content-type')).toMatch(/^application\/json/)
    for (let i = 0; i < COLLECTIONS; i++) expect(Object.keys(first.body.paths)).toContain(`/wide${i}`)
    const second = await request(`${server.origin}/openapi.json`)
    expect(second.text).toBe(first.text)
  }, 60_000)
})
