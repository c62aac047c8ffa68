import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runExport } from '../../src/commands/export.js'
import { runImport } from '../../src/commands/import.js'
import { createTestDatabase, SKIP_POSTGRES, type TestDatabase } from '../stores/harness.js'
import { run, scratch, students } from './helpers.js'
import { openPostgresStores } from '../helpers/built-ins.js'

const { file, sqlite } = scratch()

describe.skipIf(SKIP_POSTGRES)('rqs export → rqs import round trip through PostgreSQL', () => {
  let database: TestDatabase
  beforeAll(async () => { database = await createTestDatabase() })
  afterAll(async () => { await database?.drop() })

  it('gives back the same records, byte for byte, for students and addresses (64-bit ids included)', async () => {
    const source = sqlite()
    const addresses = [{ id: '9223372036854775807', name: 'Max', city: 'Kiel', postalCode: '24103' }, { id: 1, name: 'Ada "A"', city: 'Berlin', postalCode: '10115' }]
    const addressText = `{"id":9223372036854775807,"name":"Max","city":"Kiel","postalCode":"24103"}\n{"id":1,"name":"Ada \\"A\\"","city":"Berlin","postalCode":"10115"}\n`
    expect(addresses).toHaveLength(2)
    expect((await run(runImport, ['--store', source, '--service', 'students', file(students(2500))])).code).toBe(0)
    expect((await run(runImport, ['--store', source, '--service', 'addresses', file(addressText)])).code).toBe(0)
    for (const service of ['students', 'addresses']) {
      const first = await run(runExport, ['--store', source, '--service', service])
      expect(first.code).toBe(0)
      const imported = await run(runImport, ['--store', database.url, '--service', service, file(first.stdout)])
      expect(imported.code, imported.stderr).toBe(0)
      const second = await run(runExport, ['--service', service], { env: { DATABASE_URL: database.url } })
      expect(second.stdout).toBe(first.stdout)
    }
    expect((await run(runExport, ['--store', database.url, '--service', 'addresses'])).stdout).toBe(`{"id":1,"name":"Ada \\"A\\"","city":"Berlin","postalCode":"10115"}\n{"id":9223372036854775807,"name":"Max","city":"Kiel","postalCode":"24103"}\n`)
    const stores = await openPostgresStores({ url: database.url, poolSize: 1, startupWaitMs: 0 })
    try {
      expect((await stores.students.create({ firstName: 'A', lastName: 'B', age: 1 })).id).toBe(2500)
      expect((await stores.addresses.create({ name: 'n', city: 'c', postalCode: 'p' })).id).toBe(2n)
    } finally { await stores.close() }
    // A bad line leaves PostgreSQL as it was too.
    const bad = await run(runImport, ['--store', database.url, '--service', 'students', file([...students(3, 9000), { id: 1 }])])
    expect(bad.stderr).toMatch(/line 4: firstName is required; lastName is required; age is required; nothing was imported/)
    expect((await run(runExport, ['--store', database.url, '--service', 'students', '--query', 'id[gte]=9000'])).stdout).toBe('')
  })
})

describe.skipIf(SKIP_POSTGRES)('rqs import into PostgreSQL', () => {
  let database: TestDatabase
  beforeAll(async () => { database = await createTestDatabase() })
  afterAll(async () => { await database?.drop() })

  it('counts records stored when lines repeat ids, within a batch and across batches; the last line of an id is stored (issue 19)', async () => {
    const records = [...students(1500), ...students(10).map((s) => ({ ...s, lastName: 'later' })), { ...students(1)[0], lastName: 'last' }]
    const res = await run(runImport, ['--store', database.url, '--service', 'students', file(records)])
    expect(res.code, res.stderr).toBe(0)
    expect(res.stderr).toMatch(/^rqs import: 1500 students imported .*; 11 lines repeated the id of an earlier line/)
    const exported = (await run(runExport, ['--store', database.url, '--service', 'students', '--query', 'id[lt]=10'])).stdout.split('\n').slice(0, -1).map((l) => JSON.parse(l).lastName)
    expect(exported).toEqual(['last', ...Array.from({ length: 9 }, () => 'later')])
    const stores = await openPostgresStores({ url: database.url, poolSize: 1, startupWaitMs: 0 })
    try {
      expect(await stores.students.count({ where: [] })).toBe(1500)
    } finally { await stores.close() }
  })
})
