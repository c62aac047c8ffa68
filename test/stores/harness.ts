import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { memoryStores, observeFailures, openPostgresStores, openSqliteStores, type StoreOptions, type Stores } from '../helpers/built-ins.js'

/**
 * What the store tests need from each kind of store, so that one suite runs
 * against all three. PostgreSQL tests use the server in DATABASE_URL (an
 * admin connection that may create databases); each test file gets its own
 * fresh database and drops it afterwards, so runs never collide.
 */
export const DATABASE_URL = process.env.DATABASE_URL
export const SKIP_POSTGRES = DATABASE_URL === undefined || DATABASE_URL === ''
export const POSTGRES_SKIP_REASON = 'skipped: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run the PostgreSQL tests'
if (SKIP_POSTGRES) process.stderr.write(`PostgreSQL store tests ${POSTGRES_SKIP_REASON}\n`)

export interface TestDatabase {
  url: string
  drop: () => Promise<void>
}

/** CREATE DATABASE rqs_t_<random> on the DATABASE_URL server; drop() removes it (forcing off stray connections). */
export async function createTestDatabase (): Promise<TestDatabase> {
  if (SKIP_POSTGRES) throw new Error(POSTGRES_SKIP_REASON)
  const name = `rqs_t_${randomBytes(6).toString('hex')}`
  await adminQuery(`CREATE DATABASE ${name}`)
  const url = new URL(DATABASE_URL as string)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => { await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
  }
}

async function adminQuery (sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL })
  await client.connect()
  try { await client.query(sql) } finally { await client.end() }
}

/** A private temp folder for SQLite files; remove() deletes it. */
export function tempDir (): { dir: string, remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'rqs-store-'))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

export interface StoreKind {
  name: 'memory' | 'sqlite' | 'postgres'
  /** The decorator the stores are wrapped in, if any (see conformanceKinds). */
  decorated?: string
  /** Why this kind does not run here, or undefined. */
  skip?: string
  /** Once per file. */
  setup: () => Promise<void>
  /** Stores holding no records, for one test (with `options` when given); close them when done. */
  fresh: (options?: StoreOptions) => Promise<Stores>
  /** Whether records outlive the Stores object (reopen() finds them). */
  durable: boolean
  /** Another Stores object on the same data as the last fresh() (a restart, or a second instance); memory: undefined. */
  reopen: (options?: StoreOptions) => Promise<Stores | undefined>
  teardown: () => Promise<void>
  /** PostgreSQL: the name of this file's own database (other files' databases are on the same server). */
  databaseName?: () => string | undefined
}

export type StoreKindName = StoreKind['name']

/** The stores a test file of the fast lane runs on; `*-pg.test.ts` files run the same suites on PostgreSQL. */
export const LOCAL_STORES: StoreKindName[] = ['memory', 'sqlite']

/** The kinds named, in the order memory, SQLite, PostgreSQL. */
export function storeKinds (names: StoreKindName[]): StoreKind[] {
  return allStoreKinds().filter((kind) => names.includes(kind.name))
}

function allStoreKinds (): StoreKind[] {
  let sqliteDir: ReturnType<typeof tempDir> | undefined
  let sqliteFiles = 0
  let database: TestDatabase | undefined
  let shared: Stores | undefined
  let admin: pg.Client | undefined

  return [
    {
      name: 'memory',
      durable: false,
      setup: async () => {},
      fresh: async (options) => memoryStores(options),
      reopen: async () => undefined,
      teardown: async () => {}
    },
    {
      name: 'sqlite',
      durable: true,
      setup: async () => { sqliteDir = tempDir() },
      fresh: async (options) => openSqliteStores({ ...options, path: join((sqliteDir as { dir: string }).dir, `t${++sqliteFiles}.db`) }),
      reopen: async (options) => openSqliteStores({ ...options, path: join((sqliteDir as { dir: string }).dir, `t${sqliteFiles}.db`) }),
      teardown: async () => { sqliteDir?.remove() }
    },
    {
      name: 'postgres',
      durable: true,
      skip: SKIP_POSTGRES ? POSTGRES_SKIP_REASON : undefined,
      databaseName: () => database === undefined ? undefined : new URL(database.url).pathname.slice(1),
      setup: async () => {
        database = await createTestDatabase()
        shared = await openPostgresStores({ url: database.url, poolSize: 8, startupWaitMs: 0 })
        admin = new pg.Client({ connectionString: database.url })
        await admin.connect()
      },
      // One database per file, emptied before each test: far faster than a database per test.
      fresh: async (options) => {
        await (admin as pg.Client).query(`
          TRUNCATE rqs_students, rqs_addresses, rqs_idempotency;
          UPDATE rqs_ids SET n = 0, next_id = 0 WHERE collection = 'students';
          ALTER SEQUENCE rqs_address_ids RESTART`)
        if (options !== undefined) return await openPostgresStores({ ...options, url: (database as TestDatabase).url, poolSize: 4, startupWaitMs: 0 })
        return { ...(shared as Stores), close: async () => {} }
      },
      reopen: async (options) => await openPostgresStores({ ...options, url: (database as TestDatabase).url, poolSize: 4, startupWaitMs: 0 }),
      teardown: async () => {
        await admin?.end()
        await shared?.close()
        await database?.drop()
      }
    }
  ]
}

/** A store kind's name in test titles: `sqlite`, or `sqlite, observed` for its decorated twin. */
export function kindLabel (kind: StoreKind): string {
  return kind.decorated === undefined ? kind.name : `${kind.name}, ${kind.decorated}`
}

/**
 * Every store kind, then each again behind the decorators the server puts in
 * front of them (`observeFailures`, used by --metrics): a decorated store must
 * pass the same conformance suites (issue 18: a wrapper once forgot `batches`).
 * Failures the decorator sees are collected in `failures`.
 */
export function conformanceKinds (names: StoreKindName[]): StoreKind[] {
  const observed = storeKinds(names).map((kind): StoreKind => {
    const failures: string[] = []
    const wrap = (stores: Stores): Stores => observeFailures(stores, (collection, operation) => { failures.push(`${collection}.${operation}`) })
    return {
      ...kind,
      decorated: 'observed',
      fresh: async (options) => wrap(await kind.fresh(options)),
      reopen: async (options) => {
        const stores = await kind.reopen(options)
        return stores === undefined ? undefined : wrap(stores)
      }
    }
  })
  return [...storeKinds(names), ...observed]
}
