import { join } from 'node:path'
import { describe, it } from 'vitest'
import { resolveConfig } from '../../../src/options.js'
import { declarationFiles } from './fixture.js'
import { defaultsFilledAtStart, modelSuite, uniqueOverDuplicates } from './model.suite.js'

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
