import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import type { Change } from '../../src/domain/index.js'
import { POSTGRES_MIGRATIONS } from '../../src/stores/postgres/schema.js'
import { migrate as migratePostgres } from '../../src/stores/postgres/migrate.js'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, type TestDatabase } from './harness.js'
import { collect, home, until } from './changes.suite.js'
import { openPostgresStores, type Stores } from '../helpers/built-ins.js'
import { ChangeSequencer, FOLLOWED_CHECK_MS, HINT_INTERVAL_MS } from '../../src/stores/postgres/sequencer.js'
import { FEED_FOLLOWED_LOCK, LISTENER_APPLICATION_NAME } from '../../src/stores/postgres/changes.js'
import { followedSomewhere } from '../../src/stores/postgres/listener.js'
import { ROUTINES_VERSION } from '../../src/stores/postgres/registry.js'

/**
 * The PostgreSQL change log numbered after commit (issue 20, migration 8):
 * writes do not wait for each other's commits, and the feed still gives
 * every committed change once, gap-free, a record's changes in commit order,
 * across instances, also on a database upgraded from step 7.
 */

/** An address row written in SQL, as the store writes it (the change trigger fires as for any write). */
const INSERT_ADDRESS = `INSERT INTO rqs_addresses (id, name, city, postal_code, name_folded, city_folded, postal_code_folded)
  VALUES ($1, $2, 'kiel', $3, lower($2), 'kiel', $3)`

/** How many changes wait unnumbered. */
async function pending (client: pg.Client): Promise<number> {
  return Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM rqs_pending_changes')).rows[0]!.n)
}

const sleep = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

async function connect (url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => {})
  await client.connect()
  return client
}

/** Whether the backend `pid` is waiting for a lock another session holds. */
async function waitingForLock (admin: pg.Client, pid: number): Promise<boolean> {
  const { rows } = await admin.query<{ waiting: boolean }>("SELECT wait_event_type = 'Lock' AS waiting FROM pg_stat_activity WHERE pid = $1", [pid])
  return rows[0]?.waiting === true
}

describe.skipIf(SKIP_POSTGRES)(`PostgreSQL change log numbered after commit${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  let database: TestDatabase
  beforeAll(async () => { database = await createTestDatabase() })
  afterAll(async () => { await database?.drop() })

  async function open (): Promise<Stores> {
    return await openPostgresStores({ url: database.url, poolSize: 3, startupWaitMs: 0 })
  }

  it('lets a write commit while another write that appended a change is still open, and numbers both once it commits', async () => {
    const stores = await open()
    const [first, second, admin] = await Promise.all([connect(database.url), connect(database.url), connect(database.url)])
    try {
      const base = (await stores.changes.window()).latest
      await first.query('BEGIN')
      await first.query(INSERT_ADDRESS, [9001, 'first', '1'])
      // The second write: before migration 8 its change waited for the first's lock on the change head.
      const secondPid = (second as unknown as { processID: number }).processID
      const committed = (async () => {
        await second.query('BEGIN')
        await second.query(INSERT_ADDRESS, [9002, 'second', '2'])
        await second.query('COMMIT')
        return 'committed' as const
      })()
      let outcome: 'committed' | 'blocked' | undefined
      void committed.then((o) => { outcome ??= o })
      while (outcome === undefined) {
        if (await waitingForLock(admin, secondPid)) outcome = 'blocked'
      }
      expect(outcome).toBe('committed')
      // Only the committed write is numbered; the open one is not visible, so it takes no number yet.
      expect((await stores.changes.since(base, 10)).map((c) => [c.seq, c.id])).toEqual([[base + 1, 9002n]])
      await first.query('COMMIT')
      expect((await stores.changes.since(base, 10)).map((c) => [c.seq, c.id])).toEqual([[base + 1, 9002n], [base + 2, 9001n]])
      expect(await stores.changes.window()).toMatchObject({ latest: base + 2 })
    } finally {
      await Promise.all([first.end(), second.end(), admin.end()])
      await stores.close()
    }
  })

  it('gives a rolled-back write no change and no gap, even when it rolls back after a later write was numbered', async () => {
    const stores = await open()
    const here = await collect(stores)
    const [writer, other] = await Promise.all([connect(database.url), connect(database.url)])
    try {
      const base = here.position
      await writer.query('BEGIN')
      await writer.query(INSERT_ADDRESS, [9101, 'rolled back', '1']) // takes the smaller key
      await other.query(INSERT_ADDRESS, [9102, 'kept', '2'])
      // Written outside rqs: no instance's sequencer heard of it; a read numbers it (and wakes the subscribers).
      await stores.changes.window()
      await until(() => here.changes.length === 1, 'the committed change')
      await writer.query('ROLLBACK')
      await other.query(INSERT_ADDRESS, [9103, 'kept too', '3'])
      await stores.changes.window()
      await until(() => here.changes.length === 2, 'the next change')
      expect(here.changes.map((c) => [c.seq, c.id])).toEqual([[base + 1, 9102n], [base + 2, 9103n]])
      expect(await stores.changes.since(base, 10)).toEqual(here.changes)
      expect(Number((await other.query('SELECT count(*) AS n FROM rqs_pending_changes')).rows[0].n)).toBe(0)
    } finally {
      here.stop()
      await Promise.all([writer.end(), other.end()])
      await stores.close()
    }
  })

  it('numbers the changes of one record in the order they committed while many connections update it and others, and readers on two instances number at once', async () => {
    const [a, b] = await Promise.all([open(), open()])
    const seen = [await collect(a), await collect(b)]
    const writers = await Promise.all(Array.from({ length: 8 }, async () => await connect(database.url)))
    try {
      const base = seen[0]!.position
      await writers[0]!.query(INSERT_ADDRESS, [9200, 'counter', '0'])
      const ROUNDS = 25
      // Each update reads the value the previous committed one left (it waits on the row lock): the
      // values 1, 2, 3 … are the commit order. Every other update also writes a record of its own.
      await Promise.all(writers.map(async (client, w) => {
        for (let i = 0; i < ROUNDS; i++) {
          await client.query('BEGIN')
          await client.query("UPDATE rqs_addresses SET postal_code = (postal_code::int + 1)::text, postal_code_folded = (postal_code::int + 1)::text WHERE id = 9200")
          if (i % 2 === 0) await client.query(INSERT_ADDRESS, [10_000 + w * 100 + i, `w${w}`, String(i)])
          await client.query('COMMIT')
          if (i % 5 === 0) await (i % 10 === 0 ? a : b).changes.since(base, 1) // readers numbering among the writes
        }
      }))
      await a.changes.window() // the last writes were made outside rqs: a read numbers them
      const total = 1 + writers.length * ROUNDS + writers.length * Math.ceil(ROUNDS / 2)
      await until(() => seen.every((s) => s.changes.length === total), `${total} changes on both instances`)
      const log = await b.changes.since(base, 10_000)
      expect(log.map((c) => c.seq)).toEqual(Array.from({ length: total }, (_, i) => base + i + 1))
      for (const s of seen) expect(s.changes).toEqual(log)
      const counter = log.filter((c) => c.id === 9200n).map((c) => String(c.record?.postalCode))
      expect(counter).toEqual(Array.from({ length: writers.length * ROUNDS + 1 }, (_, i) => String(i)))
    } finally {
      for (const s of seen) s.stop()
      await Promise.all(writers.map(async (c) => { await c.end() }))
      await Promise.all([a.close(), b.close()])
    }
  })

  it('resumes from every position on either of two instances writing at once, each change once', async () => {
    const [a, b] = await Promise.all([open(), open()])
    try {
      const base = (await a.changes.window()).latest
      await Promise.all([
        ...Array.from({ length: 30 }, async (_, i) => await a.addresses.create({ ...home, name: `a${i}` })),
        ...Array.from({ length: 30 }, async (_, i) => await b.students.create({ firstName: 'B', lastName: `b${i}`, age: i }))
      ])
      const log = await a.changes.since(base, 1000)
      expect(log.map((c) => c.seq)).toEqual(Array.from({ length: 60 }, (_, i) => base + i + 1))
      for (const reader of [a, b]) {
        for (let from = base; from <= base + 60; from++) {
          // A client resuming with Last-Event-ID `from` reads pages of 7 until it has caught up.
          const resumed: Change[] = []
          let position = from
          for (;;) {
            const page = await reader.changes.since(position, 7)
            resumed.push(...page)
            if (page.length < 7) break
            position = page.at(-1)!.seq
          }
          expect(resumed).toEqual(log.filter((c) => c.seq > from))
        }
      }
      expect(await b.changes.window()).toMatchObject({ latest: base + 60 })
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })

  it('appends a create\'s change in the create\'s own statement (no row trigger), created or replaced as the id rule did, and gives the trigger back to the rest of its transaction', async () => {
    const stores = await open()
    const admin = await connect(database.url)
    try {
      const base = (await stores.changes.window()).latest
      // With the row triggers off, only the create functions' own statements can append these changes.
      await admin.query('ALTER TABLE rqs_addresses DISABLE TRIGGER USER; ALTER TABLE rqs_students DISABLE TRIGGER USER')
      const address = await stores.addresses.create({ ...home, name: 'own statement' })
      const first = await stores.students.createReporting({ firstName: 'Ada', lastName: 'L', age: 36 })
      const second = await stores.students.createReporting({ firstName: 'Bo', lastName: 'M', age: 37 })
      // The first record gone as the delete function would (the trigger is off: no change for it).
      await admin.query(`DELETE FROM rqs_students WHERE id = ${first.record.id}; UPDATE rqs_ids SET n = n - 1 WHERE collection = 'students'`)
      // The count rule gives the next create the id of the record held (second's): it replaces it.
      const third = await stores.students.createReporting({ firstName: 'Cy', lastName: 'N', age: 38 })
      expect([third.outcome, third.record.id]).toEqual(['replaced', second.record.id])
      await admin.query('ALTER TABLE rqs_addresses ENABLE TRIGGER USER; ALTER TABLE rqs_students ENABLE TRIGGER USER')
      // A create turns the trigger off for its own statement only: a write after it in its transaction still gets its change, once.
      const inOne = (await admin.query<{ id: string }>(`BEGIN; SELECT o_id AS id FROM rqs_addresses_create('in one', 'kiel', '9', 'in one', 'kiel', '9');
        ${INSERT_ADDRESS.replace(/\$1/g, '9301').replace(/\$2/g, "'after it'").replace(/\$3/g, "'9'")}; COMMIT`) as unknown as Array<pg.QueryResult<{ id: string }>>)[1]!.rows[0]!.id
      const log = await stores.changes.since(base, 10)
      expect(log.map((c) => [c.seq, c.service, c.kind, c.id])).toEqual([
        [base + 1, 'addresses', 'created', address.id],
        [base + 2, 'students', 'created', first.record.id],
        [base + 3, 'students', 'created', second.record.id],
        [base + 4, 'students', 'replaced', second.record.id],
        [base + 5, 'addresses', 'created', BigInt(inOne)],
        [base + 6, 'addresses', 'created', 9301n]
      ])
      expect(log.map((c) => c.record)).toMatchObject([
        { ...home, name: 'own statement' },
        { firstName: 'Ada', lastName: 'L', age: 36 },
        { firstName: 'Bo', lastName: 'M', age: 37 },
        { firstName: 'Cy', lastName: 'N', age: 38 },
        { name: 'in one', city: 'kiel', postalCode: '9' },
        { name: 'after it', city: 'kiel', postalCode: '9' }
      ])
    } finally {
      await admin.query('ROLLBACK; ALTER TABLE rqs_addresses ENABLE TRIGGER USER; ALTER TABLE rqs_students ENABLE TRIGGER USER')
      await admin.end()
      await stores.close()
    }
  })

  it('rewrites a create function of an older routines version on open (the trigger turned off by assignments), and its create still appends one change', async () => {
    const admin = await connect(database.url)
    try {
      // A database whose addresses' functions are of version 3: the trigger turned off and back on by PERFORMs.
      await (await open()).close()
      const current = await admin.query<{ body: string }>("SELECT pg_get_functiondef('rqs_addresses_create'::regproc) AS body")
      const older = current.rows[0]!.body.replace(/ rqs__set text;/, '').replace(/rqs__set := set_config/g, 'PERFORM set_config')
      expect(older).toContain('PERFORM set_config')
      await admin.query(older)
      await admin.query("UPDATE rqs_collections SET routines = 3 WHERE name = 'addresses'")
      const stores = await open()
      try {
        const body = (await admin.query<{ body: string }>("SELECT pg_get_functiondef('rqs_addresses_create'::regproc) AS body")).rows[0]!.body
        expect(body).not.toContain('PERFORM')
        expect(body).toContain("rqs__set := set_config('rqs.import', 'on', true)")
        expect((await admin.query<{ routines: number }>("SELECT routines FROM rqs_collections WHERE name = 'addresses'")).rows[0]!.routines).toBe(ROUTINES_VERSION)
        const base = (await stores.changes.window()).latest
        const address = await stores.addresses.create({ ...home, name: 'rewritten' })
        const log = await stores.changes.since(base, 10)
        expect(log.map((c) => [c.seq, c.kind, c.id, (c.record as { name?: string } | undefined)?.name])).toEqual([[base + 1, 'created', address.id, 'rewritten']])
      } finally {
        await stores.close()
      }
    } finally {
      await admin.end()
    }
  })

  it('numbers an import\'s changes (one per record, in id order) right after it commits', async () => {
    const stores = await open()
    const other = await open()
    const here = await collect(other)
    try {
      const base = here.position
      const batches = async function * () {
        yield [{ id: 20_002n, ...home }, { id: 20_001n, ...home }]
        yield [{ id: 20_000n, ...home, name: 'first' }, { id: 20_000n, ...home, name: 'last line wins' }]
      }
      expect(await stores.addresses.importAll(batches())).toBe(4)
      await until(() => here.changes.length === 3, 'the imported changes on another instance')
      expect(here.changes.map((c) => [c.seq, c.kind, c.id])).toEqual([[base + 1, 'created', 20_000n], [base + 2, 'created', 20_001n], [base + 3, 'created', 20_002n]])
      expect(here.changes[0]!.record).toMatchObject({ name: 'last line wins' })
    } finally {
      here.stop()
      await Promise.all([stores.close(), other.close()])
    }
  })

  it('upgrades a step-7 database: its numbered changes keep their seq, new changes follow them, nothing is pending', async () => {
    const old = await createTestDatabase()
    const pool = new pg.Pool({ connectionString: old.url, max: 1 })
    pool.on('error', () => {})
    try {
      await migratePostgres(pool, POSTGRES_MIGRATIONS.filter((m) => m.version <= 7))
      // Step 7's writes: the record and, as its trigger did, its change numbered in the write's own transaction.
      for (let i = 0; i < 5; i++) {
        await pool.query(`BEGIN; ${INSERT_ADDRESS.replace(/\$1/g, String(i + 1)).replace(/\$2/g, `'old${i}'`).replace(/\$3/g, `'${i}'`)};
          SELECT rqs_append_change('addresses', 'created', ${i + 1}, jsonb_build_object('name', 'old${i}', 'city', 'kiel', 'postalCode', '${i}')); COMMIT`)
      }
      await pool.query("BEGIN; DELETE FROM rqs_addresses WHERE id = 1; SELECT rqs_append_change('addresses', 'deleted', 1, NULL); COMMIT")
      await pool.query('DELETE FROM rqs_changes WHERE seq <= 2') // pruned
      const before = (await pool.query('SELECT seq, record_id, kind FROM rqs_changes ORDER BY seq')).rows
      expect(before.map((r) => Number(r.seq))).toEqual([3, 4, 5, 6])

      const upgraded = await openPostgresStores({ url: old.url, poolSize: 2, startupWaitMs: 0 })
      try {
        expect(await upgraded.changes.window()).toEqual({ oldest: 3, latest: 6 })
        const here = await collect(upgraded)
        expect(here.position).toBe(6)
        const created = await upgraded.addresses.create(home)
        await until(() => here.changes.length === 1, 'the first change after the upgrade')
        const log = await upgraded.changes.since(2, 10)
        expect(log.map((c) => [c.seq, c.kind, c.id])).toEqual([[3, 'created', 3n], [4, 'created', 4n], [5, 'created', 5n], [6, 'deleted', 1n], [7, 'created', created.id]])
        expect(here.changes).toEqual(log.slice(4))
        here.stop()
      } finally {
        await upgraded.close()
      }
      expect(Number((await pool.query('SELECT count(*) AS n FROM rqs_pending_changes')).rows[0].n)).toBe(0)
    } finally {
      await pool.end()
      await old.drop()
    }
  })

  it('leaves writes unnumbered while no instance follows the feed, and a reader arriving later numbers and reads every change in order', async () => {
    const stores = await open()
    const admin = await connect(database.url)
    try {
      const base = (await stores.changes.window()).latest
      const created: bigint[] = []
      for (let i = 0; i < 20; i++) created.push((await stores.addresses.create({ ...home, name: `unheard ${i}` })).id)
      await sleep(100) // well past a hinted run's delay
      expect(await pending(admin)).toBe(20)
      expect((await admin.query('SELECT count(*)::int AS n FROM rqs_changes WHERE seq > $1', [base])).rows[0].n).toBe(0)
      const log = await stores.changes.since(base, 100)
      expect(log.map((c) => [c.seq, c.kind, c.id])).toEqual(created.map((id, i) => [base + i + 1, 'created', id]))
      expect(await pending(admin)).toBe(0)
    } finally {
      await admin.end()
      await stores.close()
    }
  })

  it('numbers an instance\'s writes right after commit while another instance\'s feed is followed, and leaves them again once it is not', async () => {
    const [writer, reader] = await Promise.all([open(), open()])
    const admin = await connect(database.url)
    const here = await collect(reader)
    try {
      const base = here.position
      const created: bigint[] = []
      // Nobody reads the log: only the writer's sequencer, told another instance follows, can number these.
      for (let i = 0; i < 5; i++) {
        created.push((await writer.addresses.create({ ...home, name: `heard ${i}` })).id)
        await sleep(FOLLOWED_CHECK_MS / 4)
      }
      await until(() => here.changes.length === 5, 'the writes of the other instance, live', 5000)
      expect(here.changes.map((c) => [c.seq, c.id])).toEqual(created.map((id, i) => [base + i + 1, id]))
      here.stop()
      // The follower gone (its lock with its channel), the writer stops numbering at its next question.
      let left = 0
      for (let i = 0; i < 20 && left === 0; i++) {
        await writer.addresses.create({ ...home, name: `unheard again ${i}` })
        await sleep(FOLLOWED_CHECK_MS / 4)
        left = await pending(admin)
      }
      expect(left).toBeGreaterThan(0)
      const log = await writer.changes.since(base, 100)
      expect(log.map((c) => c.seq)).toEqual(Array.from({ length: log.length }, (_, i) => base + i + 1))
      expect(await pending(admin)).toBe(0)
    } finally {
      here.stop()
      await admin.end()
      await Promise.all([writer.close(), reader.close()])
    }
  })

  it('closes while a run is under way and writes keep hinting: nothing runs on the pool after close, and the last writes are numbered', async () => {
    await (await open()).close() // the tables, migrated
    const admin = await connect(database.url)
    const failures: unknown[] = []
    try {
      for (let round = 0; round < 15; round++) {
        const pool = new pg.Pool({ connectionString: database.url, max: 4 })
        pool.on('error', () => {})
        // No `followed`: every write hints a run, as with a follower.
        const sequencer = new ChangeSequencer(pool, () => {}, (err) => { failures.push(err) })
        // Releases during the run hint another; close must not leave it (or its timer) to start after the pool ended.
        await Promise.all(Array.from({ length: 6 }, async (_, i) => {
          await sleep(i * 2)
          await pool.query(INSERT_ADDRESS, [30_000 + round * 10 + i, `closing ${round}`, String(i)])
        }))
        await sleep(round % 3 * 4)
        await sequencer.close()
        await pool.end()
        expect(await pending(admin)).toBe(0)
      }
      await sleep(HINT_INTERVAL_MS * 5)
      expect(failures.map(String)).toEqual([])
    } finally {
      await admin.end()
    }
  })

  it('asks whether another instance follows at most once a second, and not at all once its pool is idle', async () => {
    await (await open()).close() // the tables, migrated
    const pool = new pg.Pool({ connectionString: database.url, max: 2 })
    pool.on('error', () => {})
    let asked = 0
    const sequencer = new ChangeSequencer(pool, () => {}, () => {}, { followed: async () => { asked++; return await pool.query('SELECT false AS followed').then(() => false) } })
    try {
      const started = performance.now()
      for (let i = 0; i < 20; i++) {
        await pool.query(INSERT_ADDRESS, [40_000 + i, 'asking', String(i)])
        await sleep(FOLLOWED_CHECK_MS / 10)
      }
      const writing = performance.now() - started
      expect(sequencer.eager).toBe(false)
      expect(asked).toBeGreaterThanOrEqual(1)
      expect(asked).toBeLessThanOrEqual(Math.ceil(writing / FOLLOWED_CHECK_MS) + 1)
      await sleep(FOLLOWED_CHECK_MS * 1.5) // a question scheduled by the last writes
      const settled = asked
      await sleep(FOLLOWED_CHECK_MS * 2.5)
      expect(asked).toBe(settled) // its own questions' connections going back are no reason to ask again
    } finally {
      await sequencer.close()
      await pool.end()
    }
  })

  it('takes no connection of the pool while its statements fail: a failed question is not "followed", a failed statement no hint', async () => {
    await (await open()).close() // the tables, migrated
    const pool = new pg.Pool({ connectionString: database.url, max: 2 })
    pool.on('error', () => {})
    let asked = 0
    // Every check-out: the test's own statements (one each) and the sequencer's runs, if any.
    let checkouts = 0
    pool.on('acquire', () => { checkouts++ })
    const failures: unknown[] = []
    const sequencer = new ChangeSequencer(pool, () => {}, (err) => { failures.push(err) }, {
      followed: async () => { asked++; throw new Error('database away') }
    })
    try {
      // Statements that fail (the database away, a bad statement: the pool cannot tell) are no reason to number.
      for (let i = 0; i < 5; i++) await expect(pool.query('SELECT * FROM no_such_table')).rejects.toThrow()
      await sleep(HINT_INTERVAL_MS * 5)
      expect(asked).toBe(0)
      expect(checkouts).toBe(5)
      // A write that succeeds asks; the question fails, which leaves "not followed" standing: no run.
      await pool.query(INSERT_ADDRESS, [41_000, 'failing question', '1'])
      await sleep(HINT_INTERVAL_MS * 5)
      expect(asked).toBe(1)
      expect(failures.map(String)).toEqual(['Error: database away'])
      expect(sequencer.eager).toBe(false)
      expect(checkouts).toBe(6)
    } finally {
      await sequencer.close()
      await pool.end()
    }
  })

  it('announces a followed feed to every instance while it has a subscriber, again after its listening connection was lost, and not once the last one left', async () => {
    const [reader, writer] = await Promise.all([open(), open()])
    const admin = await connect(database.url)
    const followed = async (): Promise<boolean> => await followedSomewhere(admin, FEED_FOLLOWED_LOCK)
    try {
      expect(await followed()).toBe(false) // the schema follower listens from the start, and announces nothing
      const here = await collect(reader)
      expect(await followed()).toBe(true)
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()', [LISTENER_APPLICATION_NAME])
      await expect.poll(followed, { timeout: 5000, interval: 5 }).toBe(false)
      // Written while the lock is gone with its connection, outside rqs: no sequencer was hinted; the reopened feed numbers it
      // (well before its 10 s check).
      await admin.query(INSERT_ADDRESS, [50_000, 'while reconnecting', '1'])
      await expect.poll(followed, { timeout: 10_000, interval: 50 }).toBe(true)
      await until(() => here.changes.length === 1, 'the change written while the listener was away', 5000)
      expect(here.changes[0]!.id).toBe(50_000n)
      // And the writer, told again that the feed is followed, numbers its writes right after commit.
      const created = await writer.addresses.create({ ...home, name: 'after reconnecting' })
      await until(() => here.changes.length === 2, 'the next write of the other instance', 5000)
      expect(here.changes[1]!.id).toBe(created.id)
      here.stop()
      await expect.poll(followed, { timeout: 5000, interval: 50 }).toBe(false)
    } finally {
      await admin.end()
      await Promise.all([reader.close(), writer.close()])
    }
  })
})
