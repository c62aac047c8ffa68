import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, tempDir, type TestDatabase } from '../../stores/harness.js'
import { spawnServer, type ServerProcess } from '../../helpers/process.js'
import { request } from '../../helpers/server.js'
import { openPostgresStores, type PutResult, type Stores } from '../../helpers/built-ins.js'

/**
 * Several instances on one store (PostgreSQL, or one SQLite file): the spec's
 * id rule stays exact and every acknowledged write is visible from every
 * instance.
 */
interface Shared {
  name: string
  skip?: string
  setup: () => Promise<string>
  teardown: () => Promise<void>
}

const tmp = tempDir()
let studentsDatabase: TestDatabase | undefined
const sharedStores: Shared[] = [
  // Several processes on one SQLite file: the file's write lock (BEGIN IMMEDIATE) serialises creates.
  { name: 'SQLite file', setup: async () => `sqlite:${join(tmp.dir, 'shared.db')}`, teardown: async () => { tmp.remove() } },
  {
    name: 'PostgreSQL database',
    skip: SKIP_POSTGRES ? POSTGRES_SKIP_REASON : undefined,
    setup: async () => { studentsDatabase = await createTestDatabase(); return studentsDatabase.url },
    teardown: async () => { await studentsDatabase?.drop() }
  }
]

for (const shared of sharedStores) {
  describe.skipIf(shared.skip !== undefined)(`several instances on one ${shared.name}${shared.skip === undefined ? '' : ` (${shared.skip})`}`, () => {
    let spec: string
    beforeAll(async () => { spec = await shared.setup() })
    afterAll(shared.teardown)

    it('2 server processes × 200 concurrent student creates store exactly the ids 0…399, each readable from both', async () => {
      const servers: ServerProcess[] = await Promise.all([0, 1].map(() => spawnServer(['--store', spec, '--pg-pool-size', '8'])))
      try {
        const posts = servers.flatMap((s, n) => Array.from({ length: 200 }, (_, i) =>
          request(`${s.origin}/students`, { method: 'POST', json: { firstName: `s${n}`, lastName: `n${i}`, age: i } })))
        const answers = await Promise.all(posts)
        expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201))
        const created = answers.map((a) => a.body.body)
        expect(created.map((s) => s.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 400 }, (_, i) => i))

        for (const server of servers) {
          const listed = await request(`${server.origin}/students`)
          expect(listed.body.body).toEqual([...created].sort((a, b) => a.id - b.id))
        }
        // Read-your-writes across instances, record by record.
        const reads = await Promise.all(created.flatMap((s) => servers.map((server) => request(`${server.origin}/students/${s.id}`))))
        expect(reads.map((r) => r.body.body)).toEqual(created.flatMap((s) => [s, s]))
      } finally {
        await Promise.all(servers.map((s) => s.stop()))
      }
    }, 90_000)
  })
}

describe.skipIf(SKIP_POSTGRES)(`addresses on one PostgreSQL database${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  let database: TestDatabase

  beforeAll(async () => { database = await createTestDatabase() })
  afterAll(async () => { await database?.drop() })

  it('2 server processes: concurrent PUTs on one address id over HTTP → one 201, the rest 200, one record seen alike by both', async () => {
    const servers: ServerProcess[] = await Promise.all([0, 1].map(() => spawnServer(['--store', database.url, '--pg-pool-size', '8'])))
    try {
      const puts = Array.from({ length: 40 }, (_, i) =>
        request(`${servers[i % 2]?.origin}/addresses/777`, { method: 'PUT', json: { name: `name${i}`, city: `city${i}`, postalCode: `pc${i}` } }))
      const answers = await Promise.all(puts)
      expect(answers.filter((a) => a.status === 201)).toHaveLength(1)
      expect(answers.filter((a) => a.status === 200)).toHaveLength(39)
      const [one, two] = await Promise.all(servers.map((s) => request(`${s.origin}/addresses/777`)))
      expect(one?.body).toEqual(two?.body)
      expect(one?.body.name).toBe(answers.find((a) => a.status === 201)?.body.name)
      expect(one?.body.postalCode).toBe(`pc${String(one?.body.city).slice('city'.length)}`)
      // A POST through either instance never takes the PUT's id.
      const posted = await request(`${servers[1]?.origin}/addresses`, { method: 'POST', json: { name: 'n', city: 'c', postalCode: 'p' } })
      expect(posted.status).toBe(201)
      expect(posted.body.id).not.toBe(777)
    } finally {
      await Promise.all(servers.map((s) => s.stop()))
    }
  }, 90_000)

  describe('address writes through two store instances (separate pools)', () => {
    let a: Stores
    let b: Stores
    beforeAll(async () => {
      a = await openPostgresStores({ url: database.url, poolSize: 8, startupWaitMs: 0 })
      b = await openPostgresStores({ url: database.url, poolSize: 8, startupWaitMs: 0 })
    })
    afterAll(async () => { await a?.close(); await b?.close() })

    it('many concurrent PUTs on one id leave one record: one create, the rest updates, the last write whole', async () => {
      const puts = Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? a : b).addresses.put(4242n, { name: `name${i}`, city: `city${i}`, postalCode: `pc${i}` }))
      const results = await Promise.all(puts)
      const created = results.filter((r): r is Extract<PutResult, { outcome: 'created' }> => r.outcome === 'created')
      expect(created).toHaveLength(1)
      expect(results.filter((r) => r.outcome === 'updated')).toHaveLength(59)
      const stored = await b.addresses.get(4242n)
      expect(stored?.name).toBe(created[0]?.record.name) // PUT never copies the name onto an existing record
      const i = Number(stored?.city.slice('city'.length))
      expect(stored?.postalCode).toBe(`pc${i}`) // city and postal code of one and the same PUT
      expect(await a.addresses.list({ limit: 10, after: 4241n })).toEqual([stored])
      // The next write wins over all of them.
      await a.addresses.put(4242n, { name: 'x', city: 'Final', postalCode: 'F1' })
      expect((await b.addresses.get(4242n))?.city).toBe('Final')
    })

    it('generated ids never take an id a concurrent PUT created', async () => {
      const posts = Array.from({ length: 100 }, (_, i) => a.addresses.create({ name: `post${i}`, city: 'P', postalCode: 'p' }))
      const puts = Array.from({ length: 100 }, (_, i) => b.addresses.put(BigInt(i + 1), { name: `put${i}`, city: 'Q', postalCode: 'q' }))
      const [posted, putResults] = await Promise.all([Promise.all(posts), Promise.all(puts)])
      const postedIds = new Set(posted.map((p) => p.id))
      expect(postedIds.size).toBe(100)
      const putCreated = putResults.filter((r) => r.outcome === 'created').map((r) => (r as { record: { id: bigint } }).record.id)
      for (const id of putCreated) expect(postedIds.has(id)).toBe(false)
      // Every POSTed record is still its own (a later PUT on it updates city and postal code, never the name).
      for (const p of posted) expect((await a.addresses.get(p.id))?.name).toBe(p.name)
      const all = await b.addresses.list({ limit: 1000, after: 0n })
      const updatedByPut = putResults.filter((r) => r.outcome === 'updated').length
      expect(all.filter((r) => /^(post|put)\d+$/.test(r.name))).toHaveLength(200 - updatedByPut)
    })
  })
})
