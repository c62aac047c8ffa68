import { afterAll, beforeAll, describe, it } from 'vitest'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, type TestDatabase } from '../../stores/harness.js'
import { acrossRestarts } from './restart.suite.js'

let database: TestDatabase | undefined
beforeAll(async () => { if (!SKIP_POSTGRES) database = await createTestDatabase() })
afterAll(async () => { await database?.drop() })

describe.skipIf(SKIP_POSTGRES)(`a declared collection in PostgreSQL across restarts${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  it('keeps its records, migrates an added optional field, and refuses a changed type with exit 2', async () => {
    await acrossRestarts((database as TestDatabase).url)
  })
})
