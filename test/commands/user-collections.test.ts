import { describe, expect, it } from 'vitest'
import { runExport } from '../../src/commands/export.js'
import { runImport } from '../../src/commands/import.js'
import { EXIT_OK, EXIT_USAGE } from '../../src/commands/common.js'
import { DECLARATIONS, declarationFiles } from '../services/collections/fixture.js'
import { run, scratch } from './helpers.js'
import { fromFile } from '../../src/services/collections/config.js'
import { request, startServer } from '../helpers/server.js'

/** `rqs import`/`rqs export --service books --collections books.json`: declared collections in files. */
const tmp = scratch()
const files = declarationFiles()
const declarations = files.write('books.json', DECLARATIONS)

describe('declared collections in rqs import and rqs export', () => {
  it('names them in --service only with --collections (or RQS_COLLECTIONS)', async () => {
    const without = await run(runExport, ['--store', tmp.sqlite(), '--service', 'books'])
    expect(without.code).toBe(EXIT_USAGE)
    expect(without.stderr).toContain('--service must be students or addresses, got "books"')
    const other = await run(runExport, ['--store', tmp.sqlite(), '--service', 'films', '--collections', declarations])
    expect(other.stderr).toContain('--service must be students or addresses or books or notes, got "films"')
  })

  it('refuses a bad declarations file with its one line, exit 2', async () => {
    const bad = files.write('bad.json', { collections: { books: { schema: { type: 'object', properties: { year: { type: 'int' } } } } } })
    const result = await run(runImport, ['--store', tmp.sqlite(), '--service', 'books', '--collections', bad, tmp.file([])])
    expect(result.code).toBe(EXIT_USAGE)
    expect(result.stderr).toContain(`${bad}: collections.books.schema.properties.year.type: "int" is not a type; use "integer"`)
  })

  it('loads a seed file of a declared collection (memory store), told apart by its fields', async () => {
    const seed = tmp.file([{ id: 4, title: 'Dune', year: 1965, price: 9.5, available: true }, { id: 9, title: 'Solaris', year: 1961, price: 5, available: false }])
    const server = await startServer({ collections: fromFile(declarations, '--collections'), seed: [seed] })
    try {
      const list = await request(`${server.origin}/books`)
      expect(list.body.items.map((b: { id: number }) => b.id)).toEqual([4, 9])
      // The sequence goes on after the highest id loaded.
      expect((await request(`${server.origin}/books`, { method: 'POST', json: { title: 'New', year: 2000, price: 1, available: true } })).body.id).toBe(10)
    } finally {
      await server.close()
    }
  })

  // Needs the SQLite store on the one record engine (issue 21, part 2): passes once it keeps declared collections.
  it('round-trips records with their ids and types (SQLite)', async () => {
    const store = tmp.sqlite()
    const lines = [
      { id: 3, title: 'Dune', year: 1965, price: 9.5, available: true, isbn: '978-0441013593' },
      { id: 7, title: 'Solaris', year: 1961, price: 5, available: false }
    ]
    const imported = await run(runImport, ['--store', store, '--service', 'books', '--collections', declarations, tmp.file(lines)])
    expect(imported.stderr).toBe(imported.stderr) // shown on failure
    expect(imported.code).toBe(EXIT_OK)
    const exported = await run(runExport, ['--store', store, '--service', 'books'], { env: { RQS_COLLECTIONS: declarations } })
    expect(exported.code).toBe(EXIT_OK)
    expect(exported.stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual(lines)
    const bad = await run(runImport, ['--store', store, '--service', 'books', '--collections', declarations, tmp.file([{ id: 0, title: 'x', year: 1, price: 1, available: true }])])
    expect(bad.code).not.toBe(EXIT_OK)
  })

  it('round-trips uuid ids (SQLite)', async () => {
    const store = tmp.sqlite()
    const lines = [{ id: '0b6c1b8e-3f4a-4c2e-9d7a-5e8f1a2b3c4d', text: 'hello' }]
    expect((await run(runImport, ['--store', store, '--service', 'notes', '--collections', declarations, tmp.file(lines)])).code).toBe(EXIT_OK)
    const exported = await run(runExport, ['--store', store, '--service', 'notes', '--collections', declarations])
    expect(JSON.parse(exported.stdout)).toEqual(lines[0])
  })
})
