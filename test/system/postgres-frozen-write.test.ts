import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import pg from 'pg'
import { createTestDatabase, DATABASE_URL, POSTGRES_SKIP_REASON, SKIP_POSTGRES, type TestDatabase } from '../stores/harness.js'
import { request, startServer, type RunningServer } from '../helpers/server.js'
import { startFreezingProxy, type FreezingProxy } from '../helpers/freezing-proxy.js'
import { openPostgresStores, type Stores } from '../helpers/built-ins.js'

/**
 * Writes to PostgreSQL over a network that freezes (packets held, not
 * refused). A write whose answer is lost is answered "outcome unknown"
 * (503 WRITE_OUTCOME_UNKNOWN), never "nothing changed"; a retry with the same
 * Idempotency-Key after the network is back gets the original answer when the
 * write had landed, or writes once when it had not: nothing is created twice.
 * Timeouts are short here (1.5 s per query, 0.5 s to connect); every HTTP
 * request is bounded by an abort signal.
 */
const QUERY_TIMEOUT_MS = 1500
const ada = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }
const V2 = 'application/vnd.rqs.v2+json'
const bounded = (init: Parameters<typeof request>[1] = {}): Parameters<typeof request>[1] => ({ ...init, signal: AbortSignal.timeout(30_000) })

describe.skipIf(SKIP_POSTGRES)(`PostgreSQL write over a frozen network${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  let database: TestDatabase
  let proxy: FreezingProxy
  let stores: Stores
  let server: RunningServer
  let admin: pg.Client

  beforeAll(async () => {
    database = await createTestDatabase()
    const target = new URL(DATABASE_URL as string)
    proxy = await startFreezingProxy(target.hostname, Number(target.port === '' ? 5432 : target.port))
    admin = new pg.Client({ connectionString: database.url })
    await admin.connect()
  })
  afterAll(async () => {
    await admin?.end()
    await proxy?.close()
    await database?.drop()
  })

  beforeEach(async () => {
    const url = new URL(database.url)
    url.hostname = '127.0.0.1'
    url.port = String(proxy.port)
    stores = await openPostgresStores({ url: url.toString(), poolSize: 2, startupWaitMs: 0, queryTimeoutMs: QUERY_TIMEOUT_MS, connectTimeoutMs: 500 })
    server = await startServer({}, { stores })
    await admin.query("TRUNCATE rqs_students, rqs_idempotency; UPDATE rqs_ids SET n = 0, next_id = 0 WHERE collection = 'students'")
    // A warm pool: the next write goes out on an open connection at once.
    expect((await request(`${server.origin}/students`, bounded())).status).toBe(200)
  })
  afterEach(async () => {
    proxy.thaw()
    await server?.close()
    await stores?.close()
  })

  const students = async (): Promise<Array<{ id: number, firstName: string }>> =>
    (await admin.query('SELECT id::int, first_name AS "firstName" FROM rqs_students ORDER BY id')).rows

  /** Waits (bounded: 20 s, generous on a loaded machine) until the rows PostgreSQL holds satisfy `done`. */
  async function settle (done: (rows: Array<{ firstName: string }>) => boolean, polls = 400): Promise<Array<{ id: number, firstName: string }>> {
    for (let i = 0; i < polls; i++) {
      const rows = await students()
      if (done(rows)) return rows
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    return await students()
  }

  it('a keyed create frozen right after its COMMIT went out: "outcome unknown", then the retry replays it and nothing is created twice', async () => {
    const frozen = proxy.freezeOn('COMMIT', { when: 'after', scope: 'all' })
    const post = async (): ReturnType<typeof request> => await request(`${server.origin}/students`, bounded({ method: 'POST', json: ada, headers: { accept: V2, 'idempotency-key': 'frozen-commit' } }))
    const during = await post()
    await frozen
    expect(during.status).toBe(503)
    expect(during.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(during.body.type).toMatch(/\/errors\/WRITE_OUTCOME_UNKNOWN$/)
    expect(during.body.detail).not.toContain('nothing was changed')

    proxy.thaw()
    const retry = await post()
    expect(retry.status).toBe(201)
    expect(retry.headers.get('idempotent-replayed')).toBe('true') // the frozen attempt had committed
    expect(retry.body).toEqual({ id: 0, ...ada })
    expect(await students()).toEqual([{ id: 0, firstName: 'Ada' }])
    // Retried again, later: still the same single record.
    expect((await post()).body).toEqual({ id: 0, ...ada })
    expect(await students()).toHaveLength(1)
  })

  it('a create without a key whose statement is held: "outcome unknown" — and it does land once the network is back', async () => {
    proxy.freeze()
    const during = await request(`${server.origin}/students`, bounded({ method: 'POST', json: { ...ada, firstName: 'Held' } }))
    expect(during.status).toBe(503)
    expect(during.body).toEqual({ isSuccessful: false, body: expect.stringContaining('may or may not have been made') })
    proxy.thaw()
    // The held statement reaches PostgreSQL after the answer was sent: saying "nothing changed" would have been false.
    expect(await settle((rows) => rows.length > 0)).toEqual([{ id: 0, firstName: 'Held' }])
  })

  it('a keyed create whose BEGIN is held is "nothing changed", and the retry creates it exactly once', async () => {
    proxy.freeze()
    const post = async (): ReturnType<typeof request> => await request(`${server.origin}/addresses`, bounded({ method: 'POST', json: { name: 'n', city: 'c', postalCode: 'p' }, headers: { 'idempotency-key': 'held-begin' } }))
    const during = await post()
    expect(during.status).toBe(503)
    // Nothing was committed: the transaction never got as far as COMMIT.
    expect(during.body.type).toMatch(/\/errors\/STORE_UNAVAILABLE$/)
    proxy.thaw()
    const retry = await post()
    expect(retry.status).toBe(201)
    expect(retry.headers.get('idempotent-replayed')).toBeNull()
    const again = await post()
    expect(again.text).toBe(retry.text)
    expect((await admin.query('SELECT count(*)::int AS n FROM rqs_addresses')).rows[0].n).toBe(1)
    await admin.query('TRUNCATE rqs_addresses')
  })

  it('when only the write\'s connection freezes, its server session is ended so the held statement can never land', async () => {
    const hangups = proxy.serverHangups
    const frozen = proxy.freezeOn('rqs-students-create', { when: 'before', scope: 'connection' })
    const during = await request(`${server.origin}/students`, bounded({ method: 'POST', json: { ...ada, firstName: 'Never' } }))
    await frozen
    expect(during.status).toBe(503)
    expect(during.body.body).toContain('may or may not have been made')
    // Before answering, rqs ended the session from another connection: the server hung up on the frozen one.
    expect(proxy.serverHangups).toBeGreaterThan(hangups)
    proxy.thaw()
    // Unlike the test above, the held statement reaches a closed session: nothing lands.
    expect(await settle((rows) => rows.length > 0, 20)).toEqual([])
    const next = await request(`${server.origin}/students`, bounded({ method: 'POST', json: ada }))
    expect(next.body.body).toEqual({ id: 0, ...ada })
  })

  it('a write stuck on a lock is cancelled by the server (statement_timeout): a known failure, nothing changed', async () => {
    // A longer client timeout here, so the server's cancel (1 s earlier) surely answers first.
    const direct = await openPostgresStores({ url: database.url, poolSize: 1, startupWaitMs: 0, queryTimeoutMs: 4000 })
    const slow = await startServer({}, { stores: direct })
    const blocker = new pg.Client({ connectionString: database.url })
    await blocker.connect()
    try {
      await blocker.query('BEGIN')
      await blocker.query("SELECT n FROM rqs_ids WHERE collection = 'students' FOR UPDATE")
      const during = await request(`${slow.origin}/students`, bounded({ method: 'POST', json: { ...ada, firstName: 'Blocked' }, headers: { accept: V2 } }))
      expect(during.status).toBe(503)
      // The server's cancel is the store's time running out: STORE_TIMEOUT, a known failure (nothing changed).
      expect(during.body.type).toMatch(/\/errors\/STORE_TIMEOUT$/)
      await blocker.query('COMMIT')
    } finally {
      await blocker.end()
      await slow.close()
      await direct.close()
    }
    expect(await students()).toEqual([])
  })
})
