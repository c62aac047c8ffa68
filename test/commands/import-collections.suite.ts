import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { runExport } from '../../src/commands/export.js'
import { runImport } from '../../src/commands/import.js'
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../../src/commands/common.js'
import { LIBRARY } from '../services/collections/relations.suite.js'
import { declarationFiles } from '../services/collections/fixture.js'
import { run, type Scratch } from './helpers.js'

/**
 * `rqs import` of several collections (files, or a directory): each file
 * named after its collection, loaded in dependency order (a collection
 * after those it refers to), all or nothing across the files: the first
 * that fails stops the import and none of them is stored. import-collections.test.ts runs it
 * on SQLite, import-collections-pg.test.ts on PostgreSQL.
 */
const files = declarationFiles()
const declarations = files.write('library-import.json', LIBRARY)
const lines = (records: unknown[]): string => records.map((r) => `${JSON.stringify(r)}\n`).join('')

export function importCollectionsSuite (tmp: Scratch, storeOf: () => Promise<string>): void {
  let folders = 0
  /** A folder holding one file per collection, named after it. */
  const folder = (contents: Record<string, unknown[]>): string => {
    const dir = join(tmp.dir, `library-${folders++}`)
    mkdirSync(dir)
    for (const [name, records] of Object.entries(contents)) writeFileSync(join(dir, `${name}.ndjson`), lines(records))
    return dir
  }
  const exported = async (store: string, service: string): Promise<unknown[]> => {
    const out = await run(runExport, ['--store', store, '--service', service, '--collections', declarations])
    expect(out.code, out.stderr).toBe(EXIT_OK)
    return out.stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l))
  }
  const authors = [{ id: 1, name: 'Frank Herbert', publisher: 1 }, { id: 2, name: 'Ursula K. Le Guin' }]
  const books = [{ id: 1, title: 'Dune', author: 1 }, { id: 2, title: 'The Dispossessed', author: 2 }]

  it('loads a directory in dependency order: publishers, then authors, then books, then reviews', async () => {
    const store = await storeOf()
    const dir = folder({ reviews: [{ id: 1, text: 'Sandy', book: 1 }], books, authors, publishers: [{ id: 1, name: 'Chilton' }] })
    const res = await run(runImport, ['--store', store, '--collections', declarations, dir])
    expect(res.code, res.stderr).toBe(EXIT_OK)
    const order = ['publishers', 'authors', 'books', 'reviews'].map((name) => res.stderr.indexOf(` ${name} imported`))
    expect(order.every((at, i) => at >= 0 && (i === 0 || at > (order[i - 1] as number))), res.stderr).toBe(true)
    expect(await exported(store, 'books')).toEqual(books)
    expect(await exported(store, 'reviews')).toEqual([{ id: 1, text: 'Sandy', book: 1 }])
  })

  it('takes several files in any order, all or nothing: a reference a later file breaks stores none of them', async () => {
    const store = await storeOf()
    const dir = folder({ publishers: [{ id: 1, name: 'Chilton' }], authors, books: [...books, { id: 3, title: 'Ghost', author: 99 }], reviews: [] })
    const paths = ['reviews', 'books', 'authors', 'publishers'].map((n) => join(dir, `${n}.ndjson`))
    const res = await run(runImport, ['--store', store, '--collections', declarations, ...paths])
    expect(res.code).toBe(EXIT_FAILURE)
    expect(res.stderr).toContain('the store refused the import')
    expect(res.stderr).toContain(`none of the files was imported (${['publishers', 'authors', 'books', 'reviews'].map((n) => join(dir, `${n}.ndjson`)).join(', ')})`)
    for (const name of ['publishers', 'authors', 'books', 'reviews']) expect(await exported(store, name), name).toEqual([])
    // Fixed, the same files load whole.
    writeFileSync(join(dir, 'books.ndjson'), lines(books))
    const again = await run(runImport, ['--store', store, '--collections', declarations, ...paths])
    expect(again.code, again.stderr).toBe(EXIT_OK)
    expect(await exported(store, 'books')).toEqual(books)
  })

  it('a bad line in a later file stores none of the files, and names that file; what the store held before stays', async () => {
    const store = await storeOf()
    const held = folder({ publishers: [{ id: 7, name: 'Ace' }] })
    expect((await run(runImport, ['--store', store, '--collections', declarations, '--service', 'publishers', join(held, 'publishers.ndjson')])).code).toBe(EXIT_OK)
    const dir = folder({ publishers: [{ id: 1, name: 'Chilton' }, { id: 7, name: 'Ace Books' }], authors, books })
    writeFileSync(join(dir, 'books.ndjson'), `${lines(books)}{"id": 4, "title": 12}\n`)
    const res = await run(runImport, ['--store', store, '--collections', declarations, dir])
    expect(res.code).toBe(EXIT_FAILURE)
    expect(res.stderr).toContain(`rqs import: ${join(dir, 'books.ndjson')}: line 3`)
    expect(res.stderr).toContain('none of the files was imported')
    expect(await exported(store, 'publishers')).toEqual([{ id: 7, name: 'Ace' }])
    expect(await exported(store, 'authors')).toEqual([])
  })

  it('refuses a file named after no collection, two files of one, and --service with several (exit 2)', async () => {
    const store = await storeOf()
    const dir = folder({ authors, writers: authors })
    const unknown = await run(runImport, ['--store', store, '--collections', declarations, dir])
    expect(unknown.code).toBe(EXIT_USAGE)
    expect(unknown.stderr).toContain(`${join(dir, 'writers.ndjson')}: a file of several is named after its collection, and there is no collection "writers"`)
    const csv = join(dir, 'authors.csv')
    writeFileSync(csv, 'id,name\n3,X\n')
    const twice = await run(runImport, ['--store', store, '--collections', declarations, join(dir, 'authors.ndjson'), csv])
    expect(twice.stderr).toContain('are both for authors')
    const named = await run(runImport, ['--store', store, '--collections', declarations, '--service', 'authors', join(dir, 'authors.ndjson'), csv])
    expect(named.stderr).toContain('give one file (or - for stdin) with --service')
    // Every file is opened before any is read: one that cannot be stops the import before the others are stored.
    const missing = await run(runImport, ['--store', store, '--collections', declarations, join(dir, 'authors.ndjson'), join(dir, 'publishers.ndjson')])
    expect(missing.code).toBe(EXIT_USAGE)
    expect(missing.stderr).toContain(`rqs import: cannot read ${join(dir, 'publishers.ndjson')}: no such file`)
    expect(missing.stderr).toContain('none of the files was imported')
    expect(await exported(store, 'authors')).toEqual([])
  })
}
