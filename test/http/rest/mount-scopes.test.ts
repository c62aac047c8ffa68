import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fromFile } from '../../../src/services/collections/index.js'
import { declarationFiles, DECLARATIONS } from '../../services/collections/fixture.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'

/**
 * How a start with many collections stays cheap: no plugin timer, and a mount whose versions share one set
 * of routes and one error wording has its routes in the mount's own scope (one plugin less per mount),
 * answering as a scope of their own did: problems, 405 with Allow, 406 for an unserved version.
 */
/** A problem's code: its first entry's. */
const codeOf = (body: { errors?: Array<{ error?: string }> }): string | undefined => body.errors?.[0]?.error

describe('REST mounts: scopes and plugin timers', () => {
  const files = declarationFiles()
  let srv: RunningServer
  beforeAll(async () => { srv = await startServer({ collections: fromFile(files.write('books.json', DECLARATIONS), '--collections') }) })
  afterAll(async () => { await srv.close() })

  it('arms no timer per plugin (pluginTimeout 0)', () => {
    expect(srv.app.initialConfig.pluginTimeout).toBe(0)
  })

  it("registers a declared collection's routes in its mount's scope, and keeps a scope per version where the versions differ (students)", () => {
    const tree = srv.app.printPlugins().split('\n').filter((line) => !line.includes('bound _after'))
    const mountLine = /(restMount|uriVersionMount) /
    const childOfMount = (name: string): number => tree.filter((line, i) => line.includes(name) && mountLine.test(tree[i - 1] ?? '')).length
    // books: the base mount and /v1, /v2, each with collectionRoutes directly under the mount (twice: books, notes).
    expect(tree.filter((line) => line.includes('collectionRoutes'))).toHaveLength(6)
    expect(childOfMount('collectionRoutes')).toBe(6)
    // students: v1 and v2 word errors differently, each in its own scope below the mount.
    expect(childOfMount('routesV1')).toBe(0)
    expect(tree.filter((line, i) => line.includes('routesV1') && (tree[i - 1] ?? '').includes('representationRoutes'))).toHaveLength(2)
  })

  it('answers as before on every mount: problems, 405 with Allow, 406 for an unserved version', async () => {
    for (const prefix of ['', '/v1', '/v2']) {
      const bad = await request(`${srv.origin}${prefix}/books/abc`)
      expect(bad.status).toBe(400)
      expect(bad.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      expect(codeOf(bad.body)).toBe('INVALID_ID')
      const refused = await request(`${srv.origin}${prefix}/books/1`, { method: 'POST', json: { title: 't' } })
      expect(refused.status).toBe(405)
      expect(refused.headers.get('allow')).toBe('GET, PUT, PATCH, DELETE, HEAD, OPTIONS')
      expect(codeOf(refused.body)).toBe('METHOD_NOT_ALLOWED')
      const missing = await request(`${srv.origin}${prefix}/books/99`)
      expect(missing.status).toBe(404)
      expect(codeOf(missing.body)).toBe('RECORD_NOT_FOUND')
    }
    const unserved = await request(`${srv.origin}/v1/books`, { headers: { accept: 'application/vnd.rqs.v2+json' } })
    expect(unserved.status).toBe(406)
    expect(codeOf(unserved.body)).toBe('NOT_ACCEPTABLE')
  })
})
