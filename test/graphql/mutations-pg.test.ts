import { afterAll, beforeAll, describe } from 'vitest'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, type TestDatabase } from '../stores/harness.js'
import { mutationSuite } from './mutations.suite.js'

/** GraphQL's update mutations and per-field outcomes on PostgreSQL (a database of its own). */
describe.skipIf(SKIP_POSTGRES)(`postgres store${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  let database: TestDatabase
  beforeAll(async () => { database = await createTestDatabase() })
  afterAll(async () => { await database.drop() })
  mutationSuite(() => ({ kind: 'postgres', url: database.url }))
})
