import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { POSTGRES_MIGRATIONS } from '../../src/stores/postgres/schema.js'
import { migrate as migratePostgres } from '../../src/stores/postgres/migrate.js'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, type TestDatabase } from './harness.js'
import { openPostgresStores } from '../helpers/built-ins.js'

describe.skipIf(SKIP_POSTGRES)(`PostgreSQL migrations${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  let database: TestDatabase
  beforeAll(async () => { database = await createTestDatabase() })
  afterAll(async () => { await database?.drop() })

  it('survive several instances starting at once on a fresh database, each step applied exactly once', async () => {
    const instances = await Promise.all(Array.from({ length: 5 }, () => openPostgresStores({ url: database.url, poolSize: 2, startupWaitMs: 0 })))
    try {
      const created = await Promise.all(instances.map((s, i) => s.students.create({ firstName: `i${i}`, lastName: 'x', age: i })))
      expect(created.map((s) => s.id).sort()).toEqual([0, 1, 2, 3, 4])
    } finally {
      await Promise.all(instances.map((s) => s.close()))
    }
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      const { rows } = await client.query('SELECT version FROM rqs_migrations ORDER BY version')
      expect(rows.map((r) => r.version)).toEqual(POSTGRES_MIGRATIONS.map((m) => m.version))
      // Opening again is a no-op and keeps the data.
      const again = await openPostgresStores({ url: database.url, poolSize: 1, startupWaitMs: 0 })
      expect(await again.students.list()).toHaveLength(5)
      await again.close()
      await client.query("INSERT INTO rqs_migrations (version, name) VALUES (999, 'future')")
      await expect(openPostgresStores({ url: database.url, poolSize: 1, startupWaitMs: 0 })).rejects.toThrow(/schema version 999, newer than this rqs/)
    } finally {
      await client.end()
    }
  })

  it('step 5 folds the text of every record a step-4 database holds, in batches, without counting it as changes', async () => {
    const old = await createTestDatabase()
    const pool = new pg.Pool({ connectionString: old.url, max: 1 })
    pool.on('error', () => {})
    try {
      await migratePostgres(pool, POSTGRES_MIGRATIONS.filter((m) => m.version <= 4))
      // More rows than one folding batch; a few with text whose folding differs from lower().
      await pool.query(`INSERT INTO rqs_students (id, first_name, last_name, age) SELECT i, 'N' || i, 'L', 1 FROM generate_series(0, 12000) AS i;
        UPDATE rqs_students SET first_name = 'Σίσυφος', last_name = 'STRAẞE' WHERE id = 11999;
        UPDATE rqs_student_count SET n = 12001;
        INSERT INTO rqs_addresses VALUES (5, 'ﬁrst', 'KØBENHAVN', 'K1')`)
      const changes = Number((await pool.query('SELECT count(*) AS n FROM rqs_changes')).rows[0].n)
      const upgraded = await openPostgresStores({ url: old.url, poolSize: 1, startupWaitMs: 0 })
      try {
        expect(await upgraded.students.count({ where: [], search: 'ΣΊΣΥΦΟΣ' })).toBe(1)
        expect(await upgraded.students.count({ where: [{ field: 'lastName', op: 'contains', value: 'strasse' }] })).toBe(1)
        expect(await upgraded.students.count({ where: [{ field: 'firstName', op: 'contains', value: 'n12000' }] })).toBe(1)
        expect(await upgraded.students.count({ where: [], search: 'l' })).toBe(12000)
        expect(await upgraded.addresses.count({ where: [], search: 'FIRST' })).toBe(1)
        expect(await upgraded.addresses.count({ where: [{ field: 'city', op: 'contains', value: 'ø' }] })).toBe(1)
      } finally {
        await upgraded.close()
      }
      expect(Number((await pool.query('SELECT count(*) AS n FROM rqs_changes')).rows[0].n)).toBe(changes)
    } finally {
      await pool.end()
      await old.drop()
    }
  })

  it('step 2 starts the student id sequence one past the highest id a step-1 database holds', async () => {
    const old = await createTestDatabase()
    const pool = new pg.Pool({ connectionString: old.url, max: 1 })
    // An idle connection ended by the server (the database is dropped with FORCE) must not crash the run.
    pool.on('error', () => {})
    try {
      await migratePostgres(pool, POSTGRES_MIGRATIONS.filter((m) => m.version === 1))
      await pool.query("INSERT INTO rqs_students VALUES (0, 'A', 'B', 1), (7, 'C', 'D', 2); UPDATE rqs_student_count SET n = 2")
      const upgraded = await openPostgresStores({ url: old.url, poolSize: 1, startupWaitMs: 0, studentIds: 'sequence' })
      expect((await upgraded.students.create({ firstName: 'E', lastName: 'F', age: 3 })).id).toBe(8)
      await upgraded.close()
      const spec = await openPostgresStores({ url: old.url, poolSize: 1, startupWaitMs: 0 })
      expect((await spec.students.create({ firstName: 'G', lastName: 'H', age: 4 })).id).toBe(3) // count: 3 records held
      await spec.close()
    } finally {
      await pool.end()
      await old.drop()
    }
  })
})
