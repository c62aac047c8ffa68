import { afterAll, beforeAll, describe } from 'vitest'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, type TestDatabase } from '../stores/harness.js'
import { rulesSuite } from './rules.suite.js'

/** The record rules on GraphQL and the change feed on PostgreSQL (a database of its own; the feed reads changes from it). */
describe.skipIf(SKIP_POSTGRES)(`postgres store${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  let database: TestDatabase
  beforeAll(async () => { database = await createTestDatabase() })
  afterAll(async () => { await database.drop() })
  rulesSuite(() => ({ kind: 'postgres', url: database.url }))
})
