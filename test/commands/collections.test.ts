import { PassThrough } from 'node:stream'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { runCollections } from '../../src/commands/collections.js'
import type { CommandIO } from '../../src/commands/common.js'
import { fromFile } from '../../src/services/collections/config.js'
import { request, startServer } from '../helpers/server.js'
import { declarationFiles } from '../services/collections/fixture.js'

/** `rqs collections export` and `plan`: the declarations a store keeps, as a file that starts the same server again. */
const files = declarationFiles()
const BOOKS = { schema: { type: 'object', properties: { title: { type: 'string', maxLength: 50 } }, required: ['title'] } }
const SHELVES = { schema: { type: 'object', properties: { label: { type: 'string', maxLength: 20 } } }, ids: 'uuid' }

async function collections (argv: string[]): Promise<{ code: number, stdout: string, stderr: string }> {
  const stdout = new PassThrough()
  let out = ''
  stdout.on('data', (c: Buffer) => { out += c.toString() })
  let err = ''
  const io: CommandIO = { stdin: new PassThrough(), stdout, stderr: { write: (t: string) => { err += t; return true } } as CommandIO['stderr'], env: {} }
  const code = await runCollections(argv, io)
  return { code, stdout: out, stderr: err }
}

it('exports the declarations of the file and of the admin API, which start the same collections again; plan shows what a file would change', async () => {
  const store = `sqlite:${join(files.dir, 'export.db')}`
  const first = await startServer({ store: { kind: 'sqlite', path: join(files.dir, 'export.db') }, collections: fromFile(files.write('books.json', { collections: { books: BOOKS } }), '--collections') })
  expect((await request(`${first.origin}/collections`, { method: 'POST', json: { name: 'shelves', ...SHELVES } })).status).toBe(201)
  expect((await request(`${first.origin}/books`, { method: 'POST', json: { title: 'Dune' } })).status).toBe(201)
  await first.close()

  const exported = await collections(['export', '--store', store])
  expect(exported.code).toBe(0)
  expect(JSON.parse(exported.stdout)).toEqual({ collections: { books: BOOKS, shelves: SHELVES } })

  // The exported file starts a server that serves both, at the versions kept (nothing changed).
  const file = files.write('exported.json', JSON.parse(exported.stdout))
  const second = await startServer({ store: { kind: 'sqlite', path: join(files.dir, 'export.db') }, collections: fromFile(file, '--collections') })
  try {
    expect((await request(`${second.origin}/books`)).body.items).toHaveLength(1)
    expect((await request(`${second.origin}/collections/shelves`)).body).toMatchObject({ version: 1 })
    expect((await request(`${second.origin}/collections/books`)).body).toMatchObject({ version: 1 })
  } finally {
    await second.close()
  }

  const next = files.write('next.json', { collections: { books: { schema: { ...BOOKS.schema, properties: { ...BOOKS.schema.properties, pages: { type: 'integer', default: 1 } } } } } })
  const planned = await collections(['plan', '--store', store, next])
  expect(planned.code).toBe(0)
  const plans = JSON.parse(planned.stdout).plans
  expect(plans[0]).toMatchObject({ plan: { collection: 'books', added: [{ field: 'pages', default: 1 }] }, findings: { records: 1 } })
  expect(plans[1]).toEqual({ collection: 'shelves', kept: true })
  expect((await collections(['plan', '--store', store])).code).toBe(2)
})
