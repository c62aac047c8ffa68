import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Config } from '../../../src/options.js'
import { resolveConfig } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { declarationFiles } from '../collections/fixture.js'

/**
 * A batch refused by a store rather than a route (a unique key, a reference):
 * 422 BATCH_FAILED naming the request, as a route's refusal is, and nothing
 * of the batch applied; on memory and SQLite (PostgreSQL maps the same errors
 * through the same classification, see batch-pg.test.ts for the rest).
 */
const files = declarationFiles()
const LIBRARY = {
  collections: {
    authors: { schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, unique: [['name']] },
    books: { schema: { type: 'object', properties: { title: { type: 'string' }, author: { type: 'integer', 'x-references': 'authors' } }, required: ['title', 'author'] } }
  }
}

function refusals (storeOf: () => Config['store'] | undefined): void {
  let server: RunningServer
  let base: string
  const batch = async (requests: unknown[]): Promise<Awaited<ReturnType<typeof request>>> => await request(`${base}/batch`, { method: 'POST', json: { requests } })
  const count = async (path: string): Promise<number> => Number((await request(`${base}${path}?count=true&limit=1`)).headers.get('x-total-count'))

  beforeAll(async () => {
    const store = storeOf()
    server = await startServer({ collections: fromFile(files.write(`library-${Math.random()}.json`, LIBRARY), '--collections'), ...(store === undefined ? {} : { store }) })
    base = server.origin
    expect((await request(`${base}/authors`, { method: 'POST', json: { name: 'Herbert' } })).status).toBe(201)
    expect((await request(`${base}/books`, { method: 'POST', json: { title: 'Dune', author: 1 } })).status).toBe(201)
  })
  afterAll(async () => { await (server as RunningServer | undefined)?.close() })

  it('names the request a duplicate key refuses, and applies none', async () => {
    const res = await batch([{ method: 'POST', url: '/books', body: { title: 'Messiah', author: 1 } }, { method: 'POST', url: '/authors', body: { name: 'Herbert' } }])
    expect(res.status).toBe(422)
    expect(res.body).toMatchObject({ type: '/errors/BATCH_FAILED', index: 1, failed: { status: 409, type: '/errors/DUPLICATE_KEY' } })
    expect(await count('/books')).toBe(1)
  })

  it('names the request a reference refuses (a dangling one, a restricted delete), and applies none', async () => {
    const dangling = await batch([{ method: 'POST', url: '/authors', body: { name: 'Le Guin' } }, { method: 'POST', url: '/books', body: { title: 'X', author: 99 } }])
    expect(dangling.status).toBe(422)
    expect(dangling.body).toMatchObject({ index: 1, failed: { status: 422, type: '/errors/REFERENCE_NOT_FOUND' } })
    const restricted = await batch([{ method: 'POST', url: '/authors', body: { name: 'Banks' } }, { method: 'DELETE', url: '/authors/1' }])
    expect(restricted.status).toBe(422)
    expect(restricted.body).toMatchObject({ index: 1, failed: { status: 409, type: '/errors/RECORD_REFERENCED' } })
    expect(await count('/authors')).toBe(1)
  })
}

describe('memory store', () => { refusals(() => undefined) })
describe('sqlite store', () => { refusals(() => resolveConfig({ store: `sqlite:${join(files.dir, 'refusals.db')}` }, {}).store) })
