import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { resolveConfig } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { request, startServer } from '../../helpers/server.js'
import { declarationFiles } from './fixture.js'
import { relationsSuite } from './relations.suite.js'

const files = declarationFiles()
describe('memory store', () => { relationsSuite(() => undefined) })
describe('sqlite store', () => { relationsSuite(() => resolveConfig({ store: `sqlite:${join(files.dir, 'library.db')}` }, {}).store) })

describe('examples/library.json', () => {
  it('runs as docs/collections.md shows it', async () => {
    const server = await startServer({ collections: fromFile(fileURLToPath(new URL('../../../examples/library.json', import.meta.url)), '--collections') })
    try {
      const post = async (path: string, json: unknown): Promise<number> => (await request(`${server.origin}${path}`, { method: 'POST', json })).status
      expect(await post('/authors', { name: 'Frank Herbert' })).toBe(201)
      expect(await post('/books', { title: 'Dune', author: 1 })).toBe(201)
      expect((await request(`${server.origin}/books/1?expand=author`)).body).toEqual({ id: 1, title: 'Dune', author: 1, expand: { author: { id: 1, name: 'Frank Herbert' } } })
      expect(await post('/tags', { label: 'sf' })).toBe(201)
      expect(await post('/tags', { label: 'classic' })).toBe(201)
      expect(await post('/books', { title: 'Dune Messiah', author: 1, tags: [2, 1] })).toBe(201)
      expect((await request(`${server.origin}/books/2?expand=tags`)).body.expand).toEqual({ tags: [{ id: 2, label: 'classic' }, { id: 1, label: 'sf' }] })
      expect(await post('/reviews', { text: 'Sandy', book: 2 })).toBe(201)
      expect((await request(`${server.origin}/tags/1`, { method: 'DELETE' })).status).toBe(204)
      expect((await request(`${server.origin}/books/2`)).body).toEqual({ id: 2, title: 'Dune Messiah', author: 1, tags: [2] })
      expect((await request(`${server.origin}/authors/1`, { method: 'DELETE' })).status).toBe(409)
    } finally {
      await server.close()
    }
  })
})
