import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import type { Change } from '../../src/domain/index.js'
import { LISTENER_APPLICATION_NAME } from '../../src/stores/postgres/changes.js'
import { FakeClock } from '../helpers/clock.js'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, conformanceKinds, type TestDatabase } from './harness.js'
import { ada, alan, changeLogSuite, collect, home, pastStamp, shape, until } from './changes.suite.js'
import { openPostgresStores } from '../helpers/built-ins.js'

changeLogSuite(conformanceKinds(['postgres']))

describe.skipIf(SKIP_POSTGRES)(`PostgreSQL store: retention and the listening connection${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  let database: TestDatabase
  beforeAll(async () => { database = await createTestDatabase() })
  afterAll(async () => { await database?.drop() })

  it('prunes changes older than the retention window on the store\'s clock (not the database\'s), oldest first, keeping an unbroken run', async () => {
    const retentionMs = 60_000
    const clock = new FakeClock()
    const stores = await openPostgresStores({ url: database.url, poolSize: 2, startupWaitMs: 0, changesRetentionMs: retentionMs, clock })
    const prune = async (): Promise<void> => { await (stores.changes as unknown as { prune: () => Promise<void> }).prune() }
    try {
      const base = (await stores.changes.window()).latest
      for (let i = 0; i < 3; i++) await stores.students.create({ ...ada, age: i })
      await pastStamp((await stores.changes.since(base + 2, 1))[0]!.at)
      for (let i = 0; i < 2; i++) await stores.addresses.create(home)
      const [fourth, fifth] = await stores.changes.since(base + 3, 2) as [Change, Change]
      await prune()
      expect((await stores.changes.since(base, 10)).map((c) => c.seq)).toEqual([1, 2, 3, 4, 5].map((n) => base + n)) // nothing is old yet
      clock.set(fourth.at.getTime() + retentionMs) // 1–3 are older than the window, 4 is just inside it
      await prune()
      expect(await stores.changes.window()).toEqual({ oldest: base + 4, latest: base + 5 })
      clock.set(fifth.at.getTime() + retentionMs + 1)
      await prune()
      expect(await stores.changes.window()).toEqual({ oldest: base + 6, latest: base + 5 })
    } finally {
      await stores.close()
    }
  })

  it('a rolled-back write takes no sequence number', async () => {
    const stores = await openPostgresStores({ url: database.url, poolSize: 2, startupWaitMs: 0 })
    try {
      const base = (await stores.changes.window()).latest
      // The kept answer cannot be built: the transaction rolls back after the record and its change were written.
      await expect(stores.students.create(ada, { key: 'k', fingerprint: 'f', answer: () => { throw new Error('no answer') } })).rejects.toThrow('no answer')
      await stores.students.create(alan)
      expect((await stores.changes.since(base, 10)).map(shape)).toEqual([{ seq: base + 1, service: 'students', kind: 'created', id: expect.any(Number), record: expect.objectContaining(alan) }])
    } finally {
      await stores.close()
    }
  })

  it('opens its listening connection again when it is lost, and delivers what was committed meanwhile', async () => {
    const stores = await openPostgresStores({ url: database.url, poolSize: 2, startupWaitMs: 0 })
    // The writes go through another instance: only a notification on the listening
    // connection (or the 10 s check) tells this one of them.
    const other = await openPostgresStores({ url: database.url, poolSize: 2, startupWaitMs: 0 })
    const admin = new pg.Client({ connectionString: database.url })
    await admin.connect()
    try {
      const here = await collect(stores)
      await other.students.create(ada)
      await until(() => here.changes.length === 1, 'the first change')
      const { rows } = await admin.query('SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()', [LISTENER_APPLICATION_NAME])
      expect(rows).toEqual([{ ended: true }])
      await other.students.create(alan)
      await other.addresses.create(home)
      await until(() => here.changes.length === 3, 'the changes made while reconnecting', 5000)
      expect(here.changes.map((c) => c.seq)).toEqual([here.position + 1, here.position + 2, here.position + 3])
      // One listening connection again (polled: on a loaded machine a reconnect attempt may still be under way).
      const listeners = async (): Promise<number> => (await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()', [LISTENER_APPLICATION_NAME])).rows[0]!.n
      await expect.poll(listeners, { timeout: 10_000, interval: 50 }).toBe(1)
      here.stop()
    } finally {
      await admin.end()
      await other.close()
      await stores.close()
    }
  })

  it('keeps one listening connection for the schema follower and the feed; both hear again after it is killed; the feed\'s channel goes with its last subscriber', async () => {
    const stores = await openPostgresStores({ url: database.url, poolSize: 2, startupWaitMs: 0 })
    const other = await openPostgresStores({ url: database.url, poolSize: 2, startupWaitMs: 0 })
    const admin = new pg.Client({ connectionString: database.url })
    await admin.connect()
    const listeners = async (): Promise<number> => (await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()', [LISTENER_APPLICATION_NAME])).rows[0]!.n
    const moves: string[] = []
    const unwatch = stores.schema!.shared!.watch((why) => { moves.push(why) })
    try {
      const here = await collect(stores)
      await expect.poll(listeners, { timeout: 10_000, interval: 50 }).toBe(1)
      const announce = async (version: number): Promise<void> => {
        const seen = moves.length
        await admin.query('INSERT INTO rqs_schema (name, version, source) VALUES ($1, 1, NULL)', [`probe_${version}`])
        await until(() => moves.length > seen, 'the schema announcement')
      }
      await announce(1)
      await other.students.create(ada)
      await until(() => here.changes.length === 1, 'the first change')
      expect((await admin.query('SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()', [LISTENER_APPLICATION_NAME])).rows).toEqual([{ ended: true }])
      await other.students.create(alan)
      await until(() => here.changes.length === 2, 'the change made while reconnecting', 10_000)
      await announce(2)
      await expect.poll(listeners, { timeout: 10_000, interval: 50 }).toBe(1)
      // The feed's last subscriber leaves: the connection stays for the schema follower, and the feed reads no more.
      here.stop()
      const reads = stores.changes.feedReads
      await other.students.create(ada)
      await stores.changes.window()
      expect(stores.changes.feedReads).toBe(reads)
      expect(await listeners()).toBe(1)
      await announce(3)
      unwatch()
      await expect.poll(listeners, { timeout: 10_000, interval: 50 }).toBe(0)
    } finally {
      unwatch()
      await admin.query("DELETE FROM rqs_schema WHERE name LIKE 'probe_%'")
      await admin.end()
      await other.close()
      await stores.close()
    }
  })
})
