import { afterAll, beforeAll, describe, it } from 'vitest'
import { resolveConfig, type Config } from '../../../src/options.js'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, type TestDatabase } from '../../stores/harness.js'
import { convertedAtStart, dateTimeSuite, refusedAtStart } from './date-time.suite.js'

/** The date-time kind over HTTP on PostgreSQL (databases of their own). */
const databases: TestDatabase[] = []
let store: Config['store'] | undefined
const fresh = async (): Promise<Config['store']> => {
  const database = await createTestDatabase()
  databases.push(database)
  return resolveConfig({ store: database.url }, {}).store
}
beforeAll(async () => { if (!SKIP_POSTGRES) store = await fresh() })
afterAll(async () => { for (const database of databases) await database.drop() })

describe.skipIf(SKIP_POSTGRES)(`postgres store${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  dateTimeSuite(() => store)
  it('converts a text field declared a date-time at start', async () => { await convertedAtStart(await fresh()) })
  it('refuses to start naming the records it cannot convert', async () => { await refusedAtStart(await fresh()) })
})
