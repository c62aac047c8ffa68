import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { SqliteChangeLog, SQLITE_CHANGES_POLL_MS } from '../../src/stores/sqlite/changes.js'
import { tempDir } from './harness.js'
import { builtInDeclarations, openSqliteStores } from '../helpers/built-ins.js'

/**
 * Issue 20: while someone listens, the SQLite change log looks every 50 ms
 * whether the file changed (two counters, no table read) and reads the change
 * table only when it did — its own connection's writes or another process's.
 */
const dir = tempDir()
afterAll(() => { dir.remove() })
const sleep = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

/** A connection whose reads of the change table are counted. */
function counted (path: string): { db: Database.Database, reads: () => number } {
  const db = new Database(path)
  let reads = 0
  const prepare = db.prepare.bind(db)
  db.prepare = ((sql: string) => {
    const statement = prepare(sql)
    if (!sql.startsWith('SELECT seq, service')) return statement
    const all = statement.all.bind(statement)
    statement.all = ((...args: unknown[]) => { reads++; return all(...args as []) }) as typeof statement.all
    return statement
  }) as typeof db.prepare
  return { db, reads: () => reads }
}

describe('the SQLite change log while someone listens', () => {
  it('reads the change table only after a write (of this connection or another), not every poll', async () => {
    const path = join(dir.dir, 'poll.db')
    const writer = openSqliteStores({ path })
    const { db, reads } = counted(path)
    const log = new SqliteChangeLog(db, new Map(builtInDeclarations().map((d) => [d.name, d])))
    const seen: number[] = []
    const subscription = await log.subscribe((change) => { seen.push(change.seq) })
    try {
      await sleep(SQLITE_CHANGES_POLL_MS * 3) // the first look reads once (nothing seen yet)
      const idle = reads()
      await sleep(SQLITE_CHANGES_POLL_MS * 6)
      expect(reads()).toBe(idle) // idle: no read at all
      await writer.students.create({ firstName: 'Ada', lastName: 'Lovelace', age: 36 }) // another connection
      await expect.poll(() => seen.length, { timeout: 2000 }).toBe(1)
      expect(reads()).toBeGreaterThan(idle)
      const afterOther = reads()
      db.prepare("INSERT INTO rqs_changes (service, kind, record_id, record, at) VALUES ('students', 'deleted', 0, NULL, 0)").run() // this connection
      await expect.poll(() => seen.length, { timeout: 2000 }).toBe(2)
      expect(reads()).toBeGreaterThan(afterOther)
    } finally {
      subscription.unsubscribe()
      log.close()
      db.close()
      await writer.close()
    }
  })
})
