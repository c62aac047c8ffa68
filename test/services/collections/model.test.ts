import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { resolveConfig } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { runExport } from '../../../src/commands/export.js'
import { runImport } from '../../../src/commands/import.js'
import { EXIT_OK } from '../../../src/commands/common.js'
import { run } from '../../commands/helpers.js'
import { request, startServer } from '../../helpers/server.js'
import { declarationFiles } from './fixture.js'
import { defaultsFilledAtStart, MODEL, modelSuite, uniqueOverDuplicates } from './model.suite.js'

/** Issue 29's data model over HTTP on the memory store and SQLite (model-pg.test.ts: PostgreSQL). */
const files = declarationFiles()
describe('memory store', () => { modelSuite(() => undefined) })
describe('sqlite store', () => { modelSuite(() => resolveConfig({ store: `sqlite:${join(files.dir, 'books.db')}` }, {}).store) })
describe('sqlite store, a unique key over duplicates', () => {
  it('refuses to start naming the records that share values', async () => { await uniqueOverDuplicates(resolveConfig({ store: `sqlite:${join(files.dir, 'dups.db')}` }, {}).store) })
})
describe('sqlite store, fields added at a restart', () => {
  it('writes a default into the records held', async () => { await defaultsFilledAtStart(resolveConfig({ store: `sqlite:${join(files.dir, 'added.db')}` }, {}).store) })
})

describe('examples/catalogue.json, as docs/collections.md runs it', () => {
  it('creates with defaults and stamps, refuses a duplicate isbn, lists by update time; dates compare as calendar dates', async () => {
    const server = await startServer({ collections: fromFile(fileURLToPath(new URL('../../../examples/catalogue.json', import.meta.url)), '--collections') })
    try {
      const base = server.origin
      const dune = await request(`${base}/books`, { method: 'POST', json: { title: 'Dune', year: 1965, isbn: '978-0441013593', published: '1965-08-01' } })
      expect(dune.body).toMatchObject({ id: 1, status: 'draft', rating: null, note: null, copies: 1 })
      expect((await request(`${base}/books`, { method: 'POST', json: { title: 'Dune', year: 2021, published: '2021-10-22' } })).status).toBe(201)
      const copy = await request(`${base}/books`, { method: 'POST', json: { title: 'Copy', year: 1, isbn: '978-0441013593' } })
      expect(copy.status).toBe(409)
      expect(copy.body.detail).toBe('/books/1 already holds this isbn (a unique key of books); nothing was written')
      expect((await request(`${base}/books?sort=-updatedAt&status=draft`)).body.items.map((r: { id: number }) => r.id)).toEqual([2, 1])
      expect((await request(`${base}/books?published[gte]=2000-01-01`)).body.items.map((r: { id: number }) => r.id)).toEqual([2])
      expect((await request(`${base}/books?published[lt]=1965-08-02`)).body.items.map((r: { id: number }) => r.id)).toEqual([1])
    } finally {
      await server.close()
    }
  })
})

describe('rqs import and export of the model (SQLite)', () => {
  it('keeps the stamps an export holds, stamps lines without them, applies defaults and refuses a duplicate key', async () => {
    const declarations = files.write('import.json', MODEL)
    const store = `sqlite:${join(files.dir, 'import.db')}`
    const lines = files.write('books.ndjson', [
      '{"id":1,"title":"Dune","year":1965,"isbn":"1","createdAt":"2024-05-01T09:00:00+02:00","updatedAt":"2024-05-02T00:00:00Z","rating":null}',
      '{"id":2,"title":"Emma","year":1815}'
    ].join('\n') + '\n')
    expect((await run(runImport, ['--store', store, '--service', 'books', '--collections', declarations, lines])).code).toBe(EXIT_OK)
    const exported = (await run(runExport, ['--store', store, '--service', 'books', '--collections', declarations])).stdout.trim().split('\n').map((l) => JSON.parse(l))
    expect(exported[0]).toEqual({ id: 1, title: 'Dune', year: 1965, isbn: '1', status: 'draft', rating: null, note: null, copies: 1, createdAt: '2024-05-01T07:00:00.000Z', updatedAt: '2024-05-02T00:00:00.000Z' })
    expect(exported[1].createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    const duplicate = files.write('dup.ndjson', '{"id":3,"title":"Copy","year":1,"isbn":"1"}\n')
    const refused = await run(runImport, ['--store', store, '--service', 'books', '--collections', declarations, duplicate])
    expect(refused.code).not.toBe(EXIT_OK)
    expect(refused.stderr).toContain('isbn')
  })
})
