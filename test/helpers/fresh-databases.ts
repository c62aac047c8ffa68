import { afterAll } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../stores/harness.js'

/**
 * A fresh PostgreSQL database per call, all dropped after the file's tests:
 * for tests whose state is the database's own (a dispatcher's position and
 * queue). Call at the top level of a test file.
 */
export function freshDatabases (): () => Promise<string> {
  const databases: TestDatabase[] = []
  afterAll(async () => { for (const db of databases) await db.drop() })
  return async () => {
    const db = await createTestDatabase()
    databases.push(db)
    return db.url
  }
}
