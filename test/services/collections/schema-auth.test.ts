import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fromFile } from '../../../src/services/collections/config.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { bearer, security, writeTokensFile, type TokensFile } from '../../http/security/helpers.js'
import { declarationFiles } from './fixture.js'
import { BOOKS } from './schema.suite.js'

/** The admin API of collections under authentication (the admin scope, the audit log), and a collection of the declarations file changed while the server runs. */
const files = declarationFiles()

describe('with authentication', () => {
  let tokens: TokensFile<'admin' | 'writer'>
  let server: RunningServer
  const lines: string[] = []
  beforeAll(async () => {
    tokens = await writeTokensFile({ admin: ['admin', 'read', 'write'], writer: ['read', 'write'] })
    server = await startServer({ logLevel: 'info', collections: { declared: [], api: true }, security: security({ authTokensFile: tokens.path, auditLog: true }) }, { logStream: { write: (line) => { lines.push(line) } } })
  })
  afterAll(async () => {
    await server.close()
    await tokens.remove()
  })

  it('refuses a token without the admin scope (403), and logs every change with its caller and plan', async () => {
    const asWriter = await request(`${server.origin}/collections`, { method: 'POST', headers: bearer(tokens.tokens.writer), json: { name: 'books', ...BOOKS } })
    expect(asWriter.status).toBe(403)
    expect((await request(`${server.origin}/collections/books`, { headers: bearer(tokens.tokens.writer) })).status).toBe(403)
    const asAdmin = await request(`${server.origin}/collections`, { method: 'POST', headers: bearer(tokens.tokens.admin), json: { name: 'books', ...BOOKS } })
    expect(asAdmin.status).toBe(201)
    // The records need read and write, as any collection's.
    expect((await request(`${server.origin}/books`, { method: 'POST', headers: bearer(tokens.tokens.writer), json: { title: 'Dune' } })).status).toBe(201)
    expect((await request(`${server.origin}/books`)).status).toBe(401)
    const audit = lines.map((l) => JSON.parse(l) as { audit?: { action: string, collection?: string, principal: string, plan?: { action: string } } }).filter((l) => l.audit?.action === 'schema')
    expect(audit).toHaveLength(1)
    expect(audit[0]?.audit).toMatchObject({ collection: 'books', principal: 'admin', plan: { action: 'create' } })
    expect((await request(`${server.origin}/collections/books/history`, { headers: bearer(tokens.tokens.admin) })).body.items[0].caller).toBe('admin')
  })
})

describe('a collection of the declarations file', () => {
  it('is served as changed through the admin API, at the routes it was mounted with at start', async () => {
    const collections = fromFile(files.write('books.json', { collections: { books: BOOKS } }), '--collections')
    const server = await startServer({ collections })
    try {
      expect((await request(`${server.origin}/books`, { method: 'POST', json: { title: 'Dune', year: 1965 } })).status).toBe(201)
      const read = await request(`${server.origin}/collections/books`)
      expect(read.body.origin).toBe('file')
      const declaration = { ...BOOKS, schema: { ...BOOKS.schema, properties: { ...BOOKS.schema.properties, pages: { type: 'integer', default: 1 } } } }
      const changed = await request(`${server.origin}/collections/books`, { method: 'PUT', headers: { 'if-match': read.headers.get('etag') as string }, json: declaration })
      expect(changed.status).toBe(200)
      expect((await request(`${server.origin}/books/1`)).body).toEqual({ id: 1, title: 'Dune', year: 1965, pages: 1 })
      expect((await request(`${server.origin}/v2/books/1`)).body.pages).toBe(1)
      expect((await request(`${server.origin}/openapi.json`)).body.paths['/books'].post.requestBody).toBeDefined()
      const removed = await request(`${server.origin}/collections/books?confirm=books`, { method: 'DELETE', headers: { 'if-match': '"v2"' } })
      expect(removed.status).toBe(200)
      expect((await request(`${server.origin}/books/1`)).status).toBe(404)
    } finally {
      await server.close()
    }
  })
})
