import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, tempDir, type TestDatabase } from '../../stores/harness.js'
import { spawnServer } from '../../helpers/process.js'
import { request } from '../../helpers/server.js'

/**
 * An acknowledged write survives `kill -9` of the server: a child `rqs serve`
 * acknowledges N writes, is SIGKILLed, and a new process on the same store
 * finds all N (and keeps counting ids from there).
 */
const N = 40
const MAX_ID = '9223372036854775807'

interface Durable {
  name: string
  skip?: string
  setup: () => Promise<string>
  teardown: () => Promise<void>
}

const tmp = tempDir()
let database: TestDatabase | undefined
const durableStores: Durable[] = [
  { name: 'sqlite', setup: async () => `sqlite:${join(tmp.dir, 'durable.db')}`, teardown: async () => { tmp.remove() } },
  {
    name: 'postgres',
    skip: SKIP_POSTGRES ? POSTGRES_SKIP_REASON : undefined,
    setup: async () => { database = await createTestDatabase(); return database.url },
    teardown: async () => { await database?.drop() }
  }
]

for (const store of durableStores) {
  describe.skipIf(store.skip !== undefined)(`${store.name} store under kill -9${store.skip === undefined ? '' : ` (${store.skip})`}`, () => {
    let spec: string
    beforeAll(async () => { spec = await store.setup() })
    afterAll(store.teardown)

    it(`keeps all ${N} acknowledged writes after SIGKILL and restart`, async () => {
      const first = await spawnServer(['--store', spec])
      const acknowledged = []
      const addresses: string[] = [] // response texts: ids beyond 2^53 keep every digit
      try {
        for (let i = 0; i < N; i++) {
          const res = await request(`${first.origin}/students`, { method: 'POST', json: { firstName: `F${i}`, lastName: `L${i}`, age: i } })
          expect(res.status).toBe(201)
          acknowledged.push(res.body.body)
        }
        const replaced = await request(`${first.origin}/students`, { method: 'PUT', json: { id: 3, firstName: 'Re', lastName: 'Placed', age: 99 } })
        expect(replaced.status).toBe(200)
        acknowledged[3] = replaced.body.body
        expect((await request(`${first.origin}/students/7`, { method: 'DELETE' })).status).toBe(200)
        acknowledged.splice(7, 1)
        for (let i = 0; i < 5; i++) {
          const res = await request(`${first.origin}/addresses`, { method: 'POST', json: { name: `N${i}`, city: `C${i}`, postalCode: `P${i}` } })
          expect(res.status).toBe(201)
          addresses.push(res.text)
        }
        const put = await request(`${first.origin}/addresses/${MAX_ID}`, { method: 'PUT', json: { name: 'Far', city: 'Away', postalCode: '0' } })
        expect(put.status).toBe(201)
        addresses.push(put.text)
      } finally {
        expect(await first.stop('SIGKILL')).toBe('SIGKILL')
      }

      const second = await spawnServer(['--store', spec])
      try {
        const listed = await request(`${second.origin}/students`)
        expect(listed.body.body).toEqual(acknowledged)
        for (const text of addresses) {
          const id = /"id":(\d+)/.exec(text)?.[1]
          expect((await request(`${second.origin}/addresses/${id}`)).text).toBe(text)
        }
        // The record count survived too: N - 1 records held, so the next id is N - 1.
        const next = await request(`${second.origin}/students`, { method: 'POST', json: { firstName: 'After', lastName: 'Restart', age: 1 } })
        expect(next.body.body.id).toBe(N - 1)
      } finally {
        await second.stop()
      }
    }, 60_000)
  })
}
