import type pg from 'pg'
import { pendingMigrations } from '../migrations.js'
import type { PostgresMigration } from './schema.js'
import type { TableLayout } from './layout.js'
import { underMigrationLock } from './migration-lock.js'

/**
 * Applies the missing steps in one transaction under an advisory lock, each
 * recorded in rqs_migrations. A second instance starting at the same moment
 * waits for the lock, then finds the steps applied. Refuses a database
 * written by a newer rqs rather than guess at its schema. `then` runs last in
 * the same transaction, under the same lock (the collection registry).
 * A step's `fill` works on the collections of `layouts` (those the store opens).
 */
export async function migrate (pool: pg.Pool, migrations: readonly PostgresMigration[], then?: (client: pg.ClientBase) => Promise<void>, layouts: readonly TableLayout[] = []): Promise<void> {
  await underMigrationLock(pool, async (client) => {
    await client.query('CREATE TABLE IF NOT EXISTS rqs_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())')
    const applied = (await client.query<{ version: number }>('SELECT version FROM rqs_migrations')).rows.map((r) => r.version)
    for (const m of pendingMigrations(applied, migrations)) {
      await client.query(m.sql)
      await m.fill?.(client, layouts)
      await client.query('INSERT INTO rqs_migrations (version, name) VALUES ($1, $2)', [m.version, m.name])
    }
    await then?.(client)
  })
}
