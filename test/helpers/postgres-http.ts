import { afterAll, beforeAll, describe } from 'vitest'
import { resolveConfig, type Config } from '../../src/options.js'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, type TestDatabase } from '../stores/harness.js'

/**
 * The PostgreSQL side of an HTTP suite, called at the top of its file: a
 * database of its own for the suite (`store()`, undefined without
 * DATABASE_URL), fresh ones on demand (`fresh()`, a restart or a second
 * instance), every one dropped after the file.
 */
export function postgresDatabases (): { store: () => Config['store'] | undefined, fresh: () => Promise<Config['store']> } {
  const databases: TestDatabase[] = []
  let store: Config['store'] | undefined
  const fresh = async (): Promise<Config['store']> => {
    const database = await createTestDatabase()
    databases.push(database)
    return resolveConfig({ store: database.url }, {}).store
  }
  beforeAll(async () => { if (!SKIP_POSTGRES) store = await fresh() })
  afterAll(async () => { for (const database of databases) await database.drop() })
  return { store: () => store, fresh }
}

/** The suite's tests, skipped (saying why) without DATABASE_URL. */
export function describePostgres (tests: () => void): void {
  describe.skipIf(SKIP_POSTGRES)(`postgres store${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, tests)
}
