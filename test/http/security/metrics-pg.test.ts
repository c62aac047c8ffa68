import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, type TestDatabase } from '../../stores/harness.js'
import { security } from './helpers.js'
import { scrape, valueOf } from './scrape.js'

const ada = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }

describe.skipIf(SKIP_POSTGRES)(`the PostgreSQL pool on /metrics${SKIP_POSTGRES ? `: ${POSTGRES_SKIP_REASON}` : ''}`, () => {
  let database: TestDatabase
  let server: RunningServer
  beforeAll(async () => {
    database = await createTestDatabase()
    server = await startServer({ store: { kind: 'postgres', url: database.url, path: '', poolSize: 4, startupWaitMs: 0 }, security: security({ metrics: true }) })
  })
  afterAll(async () => {
    await server?.close()
    await database?.drop()
  })

  it('shows the pool size and the connections in use', async () => {
    expect((await request(`${server.origin}/students`, { method: 'POST', json: ada })).status).toBe(201)
    const families = await scrape(server)
    expect(valueOf(families, 'rqs_store_pool_max_connections')).toBe(4)
    expect(valueOf(families, 'rqs_store_pool_open_connections')).toBeGreaterThanOrEqual(1)
    expect(valueOf(families, 'rqs_store_pool_waiting_requests')).toBe(0)
  })
})
