import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, tempDir } from './harness.js'
import { memoryStores, openPostgresStores, openSqliteStores, type Address, type Stores, type Student } from '../helpers/built-ins.js'

/**
 * Issue 19, item 5: `rqs import` into a database the servers use must not stop
 * their writes while it reads the file. Two connections to one database: one
 * imports tens of thousands of records; the other (a running server) writes
 * to both collections while the file is being read. Every such write must
 * complete before the import reads on (the source waits for it), and the
 * import stays all or nothing. Before the fix the writes waited for the
 * import's locks, which the import held until the file ended: SQLite answered
 * SQLITE_BUSY (503) after its 2 s busy timeout, PostgreSQL waited until the
 * query timeout (set low here so the old behaviour fails fast, not slowly).
 */
const BATCHES = 30
const BATCH = 1000

interface Pair { importer: Stores, server: Stores, close: () => Promise<void> }

interface Kind { name: string, skip?: string, setup?: () => Promise<void>, teardown?: () => Promise<void>, pair: () => Promise<Pair> }

let sqliteDir: ReturnType<typeof tempDir> | undefined
let files = 0

const KINDS: Kind[] = [
  {
    name: 'memory',
    pair: async () => {
      const stores = memoryStores({ memoryChangesKept: 100_000 })
      return { importer: stores, server: stores, close: async () => {} }
    }
  },
  {
    name: 'sqlite',
    setup: async () => { sqliteDir = tempDir() },
    teardown: async () => { sqliteDir?.remove() },
    pair: async () => {
      const path = join((sqliteDir as { dir: string }).dir, `import${++files}.db`)
      const importer = openSqliteStores({ path })
      const server = openSqliteStores({ path })
      return { importer, server, close: async () => { await server.close(); await importer.close() } }
    }
  },
  {
    name: 'postgres',
    skip: SKIP_POSTGRES ? POSTGRES_SKIP_REASON : undefined,
    pair: async () => {
      const database = await createTestDatabase()
      const importer = await openPostgresStores({ url: database.url, poolSize: 2, startupWaitMs: 0 })
      const server = await openPostgresStores({ url: database.url, poolSize: 4, startupWaitMs: 0, queryTimeoutMs: 4000 })
      return { importer, server, close: async () => { await server.close(); await importer.close(); await database.drop() } }
    }
  }
]

for (const kind of KINDS) {
  describe.skipIf(kind.skip !== undefined)(`${kind.name} store: import while a server writes${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
    beforeAll(async () => { await kind.setup?.() })
    afterAll(async () => { await kind.teardown?.() })

    it(`imports ${BATCHES * BATCH} students while another connection creates and replaces students and writes addresses`, async () => {
      const { importer, server, close } = await kind.pair()
      try {
        const ada = await server.students.create({ firstName: 'Ada', lastName: 'Lovelace', age: 36 })
        const waits: number[] = []
        let imported = false
        async function * file (): AsyncGenerator<Student[]> {
          for (let b = 0; b < BATCHES; b++) {
            yield Array.from({ length: BATCH }, (_, i) => ({ id: 10 + b * BATCH + i, firstName: `F${i}`, lastName: `L${b}`, age: i % 90 }))
            if (b % 6 !== 3) continue
            // The running server writes while the import is reading the file; the import reads on only after.
            const started = performance.now()
            const written = await Promise.all([
              server.students.create({ firstName: 'During', lastName: `b${b}`, age: b }),
              server.students.replace({ ...ada, age: b }),
              server.addresses.put(BigInt(1000 + b), { name: 'n', city: 'Kiel', postalCode: `${b}` }),
              server.addresses.create({ name: 'm', city: 'Bonn', postalCode: `${b}` })
            ])
            waits.push(performance.now() - started)
            expect(written[1]).toMatchObject({ outcome: 'replaced' })
            expect(imported).toBe(false)
          }
        }
        expect(await importer.students.importAll(file())).toBe(BATCHES * BATCH)
        imported = true
        process.stderr.write(`${kind.name}: writes during the import took ${waits.map((w) => w.toFixed(0)).join(', ')} ms\n`)
        expect(waits).toHaveLength(5)
        // Everything is there: the imported records, and what the server wrote meanwhile (id 0 and ids 1…5 created
        // during the import, before the import's ids 10…; none of them collided with an imported id).
        expect(await server.students.count({ where: [] })).toBe(BATCHES * BATCH + 6)
        expect(await server.students.get(0)).toMatchObject({ firstName: 'Ada', age: 27 })
        expect(await server.students.get(10 + BATCHES * BATCH - 1)).toEqual({ id: 10 + BATCHES * BATCH - 1, firstName: `F${BATCH - 1}`, lastName: `L${BATCHES - 1}`, age: (BATCH - 1) % 90 })
        expect(await server.addresses.count({ where: [] })).toBe(10)
        // One change per imported record, after the writes made while the file was read (the import committed last).
        const changes = (await server.changes.since(0, 100_000)).filter((c) => c.service === 'students')
        const fromFile = changes.filter((c) => (c.id as number) >= 10 && (c.id as number) < 10 + BATCHES * BATCH)
        expect(fromFile).toHaveLength(BATCHES * BATCH)
        expect(fromFile.every((c, i) => c.kind === 'created' && c.id === 10 + i)).toBe(true)
        expect(changes.indexOf(fromFile[0] as (typeof changes)[number])).toBe(1 + 5 * 2)
        // The id rule counts what is held, imported or not.
        expect((await server.students.create({ firstName: 'After', lastName: 'x', age: 1 })).id).toBe(BATCHES * BATCH + 6)
      } finally {
        await close()
      }
    })

    it('stays all or nothing: a file that fails after writes happened meanwhile leaves only those writes', async () => {
      const { importer, server, close } = await kind.pair()
      try {
        async function * file (): AsyncGenerator<Address[]> {
          for (let b = 0; b < 5; b++) {
            yield Array.from({ length: BATCH }, (_, i) => ({ id: BigInt(1 + b * BATCH + i), name: `n${i}`, city: 'Kiel', postalCode: `${b}` }))
            await server.addresses.put(BigInt(900_000 + b), { name: 'kept', city: 'Bonn', postalCode: '1' })
          }
          throw new Error('line 5001: bad')
        }
        await expect(importer.addresses.importAll(file())).rejects.toThrow('line 5001: bad')
        expect((await server.addresses.query({ where: [], sort: [] })).map((a) => a.id)).toEqual([900_000n, 900_001n, 900_002n, 900_003n, 900_004n])
        expect((await server.changes.since(0, 100)).map((c) => c.id)).toEqual([900_000n, 900_001n, 900_002n, 900_003n, 900_004n])
        // Nothing is left behind: the same connection imports again.
        expect(await importer.addresses.importAll((async function * () { yield [{ id: 3n, name: 'a', city: 'b', postalCode: 'c' }] })())).toBe(1)
        expect(await server.addresses.count({ where: [] })).toBe(6)
      } finally {
        await close()
      }
    })

    it('stores the last line of an id, and logs one change per id in id order, on every store', async () => {
      const { importer, server, close } = await kind.pair()
      try {
        await server.students.create({ firstName: 'Held', lastName: 'x', age: 1 })
        const lines = [{ id: 3, firstName: 'A', lastName: 'a', age: 1 }, { id: 0, firstName: 'B', lastName: 'b', age: 2 }, { id: 3, firstName: 'C', lastName: 'c', age: 3 }]
        expect(await importer.students.importAll((async function * () { yield lines.slice(0, 2); yield lines.slice(2) })())).toBe(3)
        expect(await server.students.list()).toEqual([lines[1], lines[2]])
        const changes = await server.changes.since(0, 100)
        expect(changes.map((c) => [c.kind, c.id, c.record])).toEqual([['created', 0, { id: 0, firstName: 'Held', lastName: 'x', age: 1 }], ['replaced', 0, lines[1]], ['created', 3, lines[2]]])
      } finally {
        await close()
      }
    })
  })
}
