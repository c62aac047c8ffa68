import { afterAll, afterEach, expect, it } from 'vitest'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { GroupCommit } from '../../src/stores/sqlite/group-commit.js'
import { SqliteWebhookStore } from '../../src/stores/sqlite/webhooks.js'
import { openSqliteStores } from '../helpers/built-ins.js'
import { tempDir } from './harness.js'
import { changes, hook } from './webhook-queue.suite.js'

/**
 * Writes that may be lost to a crash of the machine (the webhooks' leases,
 * attempt outcomes and deliveries queued from the change log: a lost one is
 * attempted or queued again) commit without the
 * WAL sync, but only in a group of such writes alone: any other write of the
 * group is synced, and the connection is back to synchronous = FULL after.
 * Read from within the group: `PRAGMA synchronous` is 1 (NORMAL) or 2 (FULL).
 */

const tmp = tempDir()
afterAll(() => { tmp.remove() })
const open: Database.Database[] = []
afterEach(() => { for (const db of open.splice(0)) db.close() })
let files = 0
const FULL = 2
const NORMAL = 1

/** A migrated file, opened as the stores open it, with its group commit. */
async function opened (): Promise<{ db: Database.Database, group: GroupCommit }> {
  const path = join(tmp.dir, `u${files++}.db`)
  await openSqliteStores({ path }).close()
  const db = new Database(path)
  open.push(db)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = FULL')
  return { db, group: new GroupCommit(db) }
}

/** The `synchronous` setting the group it joins commits with (itself a write that may go unsynced). */
const probe = async (db: Database.Database, group: GroupCommit): Promise<unknown> => await group.run(() => db.pragma('synchronous', { simple: true }), { durable: false })

it('a group of writes that may go unsynced commits with NORMAL; one synced write among them makes it FULL; FULL again after', async () => {
  const { db, group } = await opened()
  expect(await Promise.all([group.run(() => 'a', { durable: false }), probe(db, group)])).toEqual(['a', NORMAL])
  expect(db.pragma('synchronous', { simple: true })).toBe(FULL)
  expect(await Promise.all([group.run(() => 'b', { durable: false }), group.run(() => 'c'), probe(db, group)])).toEqual(['b', 'c', FULL])
  expect(await Promise.all([group.run(() => 'd', { durable: true }), probe(db, group)])).toEqual(['d', FULL])
  // A group that failed to commit leaves the connection synced too.
  db.exec('BEGIN')
  await expect(group.run(() => 'e', { durable: false })).rejects.toThrow(/transaction/)
  db.exec('ROLLBACK')
  expect(db.pragma('synchronous', { simple: true })).toBe(FULL)
})

it('the webhook store leases, records outcomes and queues deliveries from the log unsynced; its first position, webhooks and an outcome that disables one are synced', async () => {
  const { db, group } = await opened()
  const webhooks = new SqliteWebhookStore(db, group)
  const h = hook('wh_0000000000000001')
  expect(await Promise.all([webhooks.create(h), probe(db, group)])).toEqual([undefined, FULL])
  expect(await Promise.all([webhooks.enqueue(null, 0, []), probe(db, group)])).toEqual([true, FULL])
  expect(await Promise.all([webhooks.enqueue(0, 2, changes(h.id, 2, 1)), probe(db, group)])).toEqual([true, NORMAL])
  const [claimed, claimSync] = await Promise.all([webhooks.claim('a', new Date(), 60_000, 10), probe(db, group)])
  expect(claimed.map((d) => d.id)).toEqual(['c1', 'c2'])
  expect(claimSync).toBe(NORMAL)
  const at = new Date()
  const [, settleSync] = await Promise.all([webhooks.settle('a', [{ webhookId: h.id, id: 'c1', outcome: { at, status: 204, error: null, durationMs: 1, delivered: true, nextAt: null } }]), probe(db, group)])
  expect(settleSync).toBe(NORMAL)
  const disabling = { at, status: 500, error: null, durationMs: 1, delivered: false, nextAt: null, disable: 'failed for a day' }
  const [, disableSync] = await Promise.all([webhooks.settle('a', [{ webhookId: h.id, id: 'c2', outcome: disabling }]), probe(db, group)])
  expect(disableSync).toBe(FULL)
  expect((await webhooks.get(h.id))?.enabled).toBe(false)
  expect(db.pragma('synchronous', { simple: true })).toBe(FULL)
})
