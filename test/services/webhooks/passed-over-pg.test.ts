import { describe, it } from 'vitest'
import { POSTGRES_SKIP_REASON, SKIP_POSTGRES } from '../../stores/harness.js'
import { freshDatabases } from '../../helpers/fresh-databases.js'
import { staleInstance } from './passed-over.suite.js'

/** A fresh database per test: the dispatchers' position and queue are the database's. */
const database = freshDatabases()

describe.skipIf(SKIP_POSTGRES)(`webhooks: two instances on one PostgreSQL database${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  it('deliver the changes one passed over by the webhooks it listed last, once a round finds a webhook the other registered for them', async () => {
    await staleInstance({ kind: 'postgres', url: await database() })
  }, 30_000)
})
