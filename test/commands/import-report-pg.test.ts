import { describe, expect, it } from 'vitest'
import { runImport } from '../../src/commands/import.js'
import { EXIT_OK } from '../../src/commands/common.js'
import { createTestDatabase, SKIP_POSTGRES, type TestDatabase } from '../stores/harness.js'
import { run, scratch, students } from './helpers.js'

/** rqs import's created/replaced counts on PostgreSQL, from the kinds its upsert returns (SQLite: import-report.test.ts). */
const { file } = scratch()

describe.skipIf(SKIP_POSTGRES)('rqs import counts what it replaced (PostgreSQL)', () => {
  it('ids 0–4 held, then a file of ids 4, 5, 6, 4, 5: one replaced, two created', async () => {
    const database: TestDatabase = await createTestDatabase()
    try {
      expect((await run(runImport, ['--store', database.url, '--service', 'students', file(students(5))])).stderr).toMatch(/^rqs import: 5 students imported in [^\n]*\n$/)
      const second = await run(runImport, ['--store', database.url, '--service', 'students', file([...students(3, 4), ...students(2, 4)])])
      expect(second.code).toBe(EXIT_OK)
      expect(second.stderr).toMatch(/^rqs import: 3 students imported \(2 created, 1 replaced: the records held under those ids were overwritten\) in \d+\.\d s; 2 lines repeated the id of an earlier line/)
    } finally { await database.drop() }
  })
})
