import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe } from 'vitest'
import { resolveConfig, type Config } from '../../../src/options.js'
import { declarationFiles } from './fixture.js'
import { indexesSuite } from './indexes.suite.js'

/** Declared indexes on the memory store (nothing in a catalogue: it builds an index when a sort first needs it) and SQLite (indexes-pg.test.ts: PostgreSQL). */
const files = declarationFiles()
let n = 0

/** The indexes sqlite_master holds for the table, as their columns; the unique keys' left out. */
async function sqliteIndexes (store: Config['store'], table: string): Promise<string[]> {
  const db = new Database((store as { path: string }).path, { readonly: true })
  try {
    const names = db.prepare<[string], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL AND name NOT LIKE '%\\_uq\\_%' ESCAPE '\\'").all(table)
    return names.map(({ name }) => db.prepare<[], { name: string }>(`PRAGMA index_info("${name}")`).all().map((c) => c.name).join(',')).sort()
  } finally {
    db.close()
  }
}

describe('memory store', () => { indexesSuite(async () => undefined, async () => undefined) })
describe('sqlite store', () => { indexesSuite(async () => resolveConfig({ store: `sqlite:${join(files.dir, `indexes-${++n}.db`)}` }, {}).store, sqliteIndexes) })
