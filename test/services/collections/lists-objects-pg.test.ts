import { afterAll, beforeAll, describe, it } from 'vitest'
import { resolveConfig, type Config } from '../../../src/options.js'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, type TestDatabase } from '../../stores/harness.js'
import { listsObjectsSuite, shapeChangesAtStart } from './lists-objects.suite.js'

/** Lists, nested objects and free JSON over HTTP on PostgreSQL (a database of its own). */
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
  listsObjectsSuite(() => store)
  it('compares lists\' and objects\' shapes at start', async () => { await shapeChangesAtStart(await fresh()) })
})
