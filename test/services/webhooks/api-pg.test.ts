import { afterAll, describe } from 'vitest'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, type TestDatabase } from '../../stores/harness.js'
import { webhooksApi } from './api.suite.js'

let database: TestDatabase | undefined
afterAll(async () => { await database?.drop() })

describe.skipIf(SKIP_POSTGRES)(`webhooks on PostgreSQL${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  webhooksApi('PostgreSQL', async () => {
    database = await createTestDatabase()
    return { store: { kind: 'postgres', url: database.url } }
  })
})
