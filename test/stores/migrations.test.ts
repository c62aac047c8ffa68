import { afterAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { SQLITE_MIGRATIONS } from '../../src/stores/sqlite/schema.js'
import { migrate as migrateSqlite } from '../../src/stores/sqlite/migrate.js'
import { tempDir } from './harness.js'
import { openSqliteStores } from '../helpers/built-ins.js'

describe('SQLite migrations', () => {
  const tmp = tempDir()
  afterAll(() => { tmp.remove() })

  it('apply once, record each version, and keep data when the file is opened again', async () => {
    const path = join(tmp.dir, 'm.db')
    const first = openSqliteStores({ path })
    await first.students.create({ firstName: 'A', lastName: 'B', age: 1 })
    await first.close()
    const second = openSqliteStores({ path })
    expect(await second.students.list()).toEqual([{ id: 0, firstName: 'A', lastName: 'B', age: 1 }])
    await second.close()
    const db = new Database(path, { readonly: true })
    const versions = db.prepare('SELECT version FROM rqs_migrations ORDER BY version').pluck().all()
    expect(versions).toEqual(SQLITE_MIGRATIONS.map((m) => m.version))
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    db.close()
  })

  it('refuse a file written by a newer rqs', async () => {
    const path = join(tmp.dir, 'newer.db')
    await openSqliteStores({ path }).close()
    const db = new Database(path)
    db.prepare("INSERT INTO rqs_migrations (version, name, applied_at) VALUES (999, 'future', 'x')").run()
    db.close()
    expect(() => openSqliteStores({ path })).toThrow(/schema version 999, newer than this rqs/)
  })

  it('step 2 starts the student id sequence one past the highest id a step-1 file holds', async () => {
    const path = join(tmp.dir, 'v1.db')
    const db = new Database(path)
    migrateSqlite(db, SQLITE_MIGRATIONS.filter((m) => m.version === 1))
    db.exec("INSERT INTO rqs_students VALUES (0, 'A', 'B', 1), (7, 'C', 'D', 2); UPDATE rqs_student_count SET n = 2")
    db.close()
    const stores = openSqliteStores({ path, studentIds: 'sequence' })
    expect((await stores.students.create({ firstName: 'E', lastName: 'F', age: 3 })).id).toBe(8)
    await stores.close()
    const spec = openSqliteStores({ path })
    expect((await spec.students.create({ firstName: 'G', lastName: 'H', age: 4 })).id).toBe(3) // count: 3 records held
    await spec.close()
  })

  it('step 5 folds the text of the records a step-4 file holds, and the change log does not count that as changes', async () => {
    const path = join(tmp.dir, 'v4.db')
    const db = new Database(path)
    migrateSqlite(db, SQLITE_MIGRATIONS.filter((m) => m.version <= 4))
    db.exec("INSERT INTO rqs_students VALUES (0, 'Σίσυφος', 'STRAẞE', 1), (1, 'x', 'y', 2); UPDATE rqs_student_count SET n = 2")
    db.exec("INSERT INTO rqs_addresses VALUES (5, 'ﬁrst', 'KØBENHAVN', 'K1')")
    db.close()
    const stores = openSqliteStores({ path })
    try {
      expect(await stores.students.count({ where: [], search: 'ΣΊΣΥΦΟΣ' })).toBe(1)
      expect((await stores.students.query({ where: [{ field: 'lastName', op: 'contains', value: 'strasse' }], sort: [] })).map((s) => s.id)).toEqual([0])
      expect(await stores.addresses.count({ where: [], search: 'FIRST' })).toBe(1)
      expect(await stores.addresses.count({ where: [{ field: 'city', op: 'contains', value: 'ø' }] })).toBe(1)
      expect((await stores.changes.since(0, 100)).map((c) => c.kind)).toEqual(['created', 'created', 'created'])
    } finally {
      await stores.close()
    }
  })

  it('fail with a clear message when the file cannot be opened', () => {
    expect(() => openSqliteStores({ path: join(tmp.dir, 'no', 'such', 'folder', 'x.db') })).toThrow(/cannot open SQLite database/)
  })
})
