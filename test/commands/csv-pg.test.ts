import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runExport } from '../../src/commands/export.js'
import { runImport } from '../../src/commands/import.js'
import { createTestDatabase, SKIP_POSTGRES, type TestDatabase } from '../stores/harness.js'
import { run, scratch, students } from './helpers.js'

/** `rqs export/import --format csv` through PostgreSQL: the same CSV comes back, and a bad record stores nothing. */
const { file, sqlite } = scratch()

describe.skipIf(SKIP_POSTGRES)('CSV round trip through PostgreSQL', () => {
  let database: TestDatabase
  beforeAll(async () => { database = await createTestDatabase() })
  afterAll(async () => { await database?.drop() })

  it('gives back the same CSV for students and addresses (64-bit ids, quotes, line breaks), all or nothing', async () => {
    const source = sqlite()
    expect((await run(runImport, ['--store', source, '--service', 'students', file([...students(1200), { id: 5000, firstName: 'a,b', lastName: 'c\r\nd', age: 1 }])])).code).toBe(0)
    expect((await run(runImport, ['--store', source, '--service', 'addresses', file('{"id":9223372036854775807,"name":"Max \\"M\\"","city":"Kiel","postalCode":"10115"}\n')])).code).toBe(0)
    for (const service of ['students', 'addresses']) {
      const first = await run(runExport, ['--store', source, '--service', service, '--format', 'csv'])
      const csv = file(first.stdout)
      const imported = await run(runImport, ['--store', database.url, '--service', service, '--format', 'csv', csv])
      expect(imported.code, imported.stderr).toBe(0)
      const second = await run(runExport, ['--store', database.url, '--service', service, '--format', 'csv'])
      expect(second.stdout, service).toBe(first.stdout)
    }
    const bad = file('id,firstName,lastName,age\r\n7000,A,B,1\r\n7001,A,B,true\r\n')
    const refused = await run(runImport, ['--store', database.url, '--service', 'students', '--format', 'csv', bad])
    expect(refused.stderr).toBe(`rqs import: ${bad}: line 3: age must be an integer, not "true"; nothing was imported\n`)
    expect((await run(runExport, ['--store', database.url, '--service', 'students', '--format', 'csv', '--query', 'id[gte]=7000'])).stdout).toBe('id,firstName,lastName,age\r\n')
  })
})
