import { afterAll, describe } from 'vitest'
import { createTestDatabase, SKIP_POSTGRES, type TestDatabase } from '../stores/harness.js'
import { importCollectionsSuite } from './import-collections.suite.js'
import { scratch } from './helpers.js'

/** `rqs import` of several collections on PostgreSQL (a database of its own for each test). */
const tmp = scratch()
const databases: TestDatabase[] = []
afterAll(async () => { for (const database of databases) await database.drop() })
describe.skipIf(SKIP_POSTGRES)('postgres store', () => {
  importCollectionsSuite(tmp, async () => {
    const database = await createTestDatabase()
    databases.push(database)
    return database.url
  })
})
