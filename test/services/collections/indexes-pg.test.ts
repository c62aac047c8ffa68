import pg from 'pg'
import type { Config } from '../../../src/options.js'
import { describePostgres, postgresDatabases } from '../../helpers/postgres-http.js'
import { indexesSuite } from './indexes.suite.js'

/** Declared indexes on PostgreSQL (databases of their own; indexes.test.ts: memory and SQLite). */
const { fresh } = postgresDatabases()

/** The indexes pg_indexes holds for the table, as their columns; the key's and the unique keys' left out. */
async function postgresIndexes (store: Config['store'], table: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: (store as { url: string }).url })
  await client.connect()
  try {
    const rows = (await client.query<{ name: string, def: string }>('SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1', [table])).rows
    return rows.filter((r) => !r.name.endsWith('_pkey') && !r.name.includes('_uq_'))
      .map((r) => (/\(([^)]*)\)$/.exec(r.def)?.[1] ?? r.def).split(', ').join(',')).sort()
  } finally {
    await client.end()
  }
}

describePostgres(() => { indexesSuite(fresh, postgresIndexes) })
