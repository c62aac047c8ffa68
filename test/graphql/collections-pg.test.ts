import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../helpers/server.js'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, type TestDatabase } from '../stores/harness.js'
import { subscribe } from './helpers.js'
import { graphqlSuite } from './suite.js'

/** The collections over GraphQL on PostgreSQL (issue 23), and a subscription fed by another instance. */
describe.skipIf(SKIP_POSTGRES)(`postgres store${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  let database: TestDatabase
  beforeAll(async () => { database = await createTestDatabase() })
  afterAll(async () => { await database.drop() })

  describe('the suite', () => { graphqlSuite(() => ({ kind: 'postgres', url: database.url })) })

  describe('two instances on one database', () => {
    let writer: RunningServer
    let reader: RunningServer
    beforeAll(async () => {
      writer = await startServer({ store: { kind: 'postgres', url: database.url } })
      reader = await startServer({ store: { kind: 'postgres', url: database.url } })
    })
    afterAll(async () => {
      await writer.close()
      await reader.close()
    })

    it('a subscription on one receives a change written over REST on the other', async () => {
      const sub = await subscribe(reader.origin, 'subscription { addressesChanged { kind id record { name city } } }')
      try {
        expect(sub.status).toBe(200)
        await new Promise((resolve) => setTimeout(resolve, 300))
        const created = await request(`${writer.origin}/addresses`, { method: 'POST', json: { name: 'Elsewhere', city: 'Bonn', postalCode: '53111' } })
        expect(created.status).toBe(201)
        const [change] = await sub.next(1, 10_000)
        expect(change.data.addressesChanged).toEqual({ kind: 'CREATED', id: String(created.body.id), record: { name: 'Elsewhere', city: 'Bonn' } })
      } finally { sub.close() }
    })
  })
})
