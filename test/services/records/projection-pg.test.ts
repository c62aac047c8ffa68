import { afterAll, beforeAll, describe } from 'vitest'
import { resolveConfig, type Config } from '../../../src/options.js'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, type TestDatabase } from '../../stores/harness.js'
import { projectionSuite } from './projection.suite.js'

/** Projection (`fields=`) over HTTP on PostgreSQL (a database of its own). */
let database: TestDatabase | undefined
let store: Config['store'] | undefined
beforeAll(async () => {
  if (SKIP_POSTGRES) return
  database = await createTestDatabase()
  store = resolveConfig({ store: database.url }, {}).store
})
afterAll(async () => { await database?.drop() })

describe.skipIf(SKIP_POSTGRES)(`postgres store${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  projectionSuite(() => store)
})
