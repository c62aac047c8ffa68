import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestDatabase, DATABASE_URL, POSTGRES_SKIP_REASON, SKIP_POSTGRES, type TestDatabase } from '../../stores/harness.js'
import { runMain } from '../../helpers/cli.js'
import { spawnServer } from '../../helpers/process.js'
import { closedPort, startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { openPostgresStores } from '../../helpers/built-ins.js'

/**
 * PostgreSQL goes away mid-run: a TCP proxy between the server and the
 * database is cut (open connections dropped, new ones refused) and restored.
 */
describe.skipIf(SKIP_POSTGRES)(`PostgreSQL outage${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  let database: TestDatabase
  let proxy: TcpProxy
  let proxiedUrl: string

  beforeAll(async () => {
    database = await createTestDatabase()
    const target = new URL(DATABASE_URL as string)
    proxy = await startTcpProxy(target.hostname, Number(target.port === '' ? 5432 : target.port))
    const url = new URL(database.url)
    url.hostname = '127.0.0.1'
    url.port = String(proxy.port)
    proxiedUrl = url.toString()
  })
  afterAll(async () => {
    await proxy?.close()
    await database?.drop()
  })

  describe('while serving', () => {
    let server: RunningServer
    beforeAll(async () => { server = await startServer({ store: { kind: 'postgres', url: proxiedUrl, poolSize: 4 } }) })
    afterAll(async () => { await server?.close() })

    it('answers 503 with Retry-After in the envelope, reports not ready but alive, and recovers by itself with no acknowledged write lost', async () => {
      const acknowledged = []
      for (let i = 0; i < 5; i++) {
        const res = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'Before', lastName: `${i}`, age: i } })
        expect(res.status).toBe(201)
        acknowledged.push(res.body.body)
      }
      expect((await request(`${server.origin}/readyz`)).status).toBe(200)

      proxy.cut()
      const post = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'During', lastName: 'Outage', age: 1 } })
      expect(post.status).toBe(503)
      expect(post.headers.get('retry-after')).toMatch(/^\d+$/)
      expect(post.body).toEqual({ isSuccessful: false, body: expect.any(String) })
      const get = await request(`${server.origin}/students/0`)
      expect(get.status).toBe(503)
      expect(get.body.isSuccessful).toBe(false)
      expect((await request(`${server.origin}/students`)).status).toBe(503)
      const address = await request(`${server.origin}/addresses`, { method: 'POST', json: { name: 'n', city: 'c', postalCode: 'p' } })
      expect(address.status).toBe(503)
      expect(address.headers.get('retry-after')).toMatch(/^\d+$/)
      expect(address.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      const ready = await request(`${server.origin}/readyz`)
      expect(ready.status).toBe(503)
      expect(ready.body).toEqual({ status: 'unavailable' })
      expect((await request(`${server.origin}/healthz`)).status).toBe(200)

      proxy.restore()
      // No restart: the pool opens new connections on the next requests.
      expect((await request(`${server.origin}/readyz`)).status).toBe(200)
      const after = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'After', lastName: 'Outage', age: 2 } })
      expect(after.status).toBe(201)
      acknowledged.push(after.body.body)
      expect(after.body.body.id).toBe(5) // the failed create left nothing behind
      expect((await request(`${server.origin}/students`)).body.body).toEqual(acknowledged)
    })

    it('also recovers when the server terminates every connection of the pool', async () => {
      const { Client } = (await import('pg')).default
      const admin = new Client({ connectionString: database.url })
      await admin.connect()
      try {
        expect((await request(`${server.origin}/students`)).status).toBe(200)
        await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'rqs'")
      } finally {
        await admin.end()
      }
      // Every pooled connection is dead now, and the pool may not have seen it yet: a read
      // that meets one is sent again on another connection, so no read fails.
      for (const path of ['/students', '/students/0', '/addresses', '/students']) {
        expect((await request(`${server.origin}${path}`)).status).toBeLessThan(500)
      }
    })
  })

  it('answers 503 within the query timeout when the network drops packets instead of refusing, and recovers', async () => {
    const stores = await openPostgresStores({ url: proxiedUrl, poolSize: 2, startupWaitMs: 0, queryTimeoutMs: 500, connectTimeoutMs: 500 })
    const server = await startServer({}, { stores })
    try {
      const before = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'Before', lastName: 'Freeze', age: 1 } })
      expect(before.status).toBe(201)
      proxy.freeze()
      const during = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'During', lastName: 'Freeze', age: 2 } })
      expect(during.status).toBe(503)
      expect(during.headers.get('retry-after')).toMatch(/^\d+$/)
      expect((await request(`${server.origin}/readyz`)).status).toBe(503)
      proxy.restore()
      expect((await request(`${server.origin}/readyz`)).status).toBe(200)
      const after = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'After', lastName: 'Freeze', age: 3 } })
      expect(after.status).toBe(201)
      const listed = (await request(`${server.origin}/students/${before.body.body.id}`)).body.body
      expect(listed).toEqual(before.body.body)
    } finally {
      proxy.restore()
      await server.close()
      await stores.close()
    }
  })

  describe('at start-up', () => {
    it('rqs serve exits with code 1 and says which database it cannot reach', async () => {
      const port = await closedPort()
      const { code, stderr } = await runMain(['serve', '--port', '0', '--store', `postgres://postgres@127.0.0.1:${port}/nowhere`])
      expect(code).toBe(1)
      expect(stderr).toContain(`cannot reach PostgreSQL at 127.0.0.1:${port}/nowhere`)
    })

    it('a start-up failure after the database opened still exits with code 1 (the pool is closed)', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'rqs-albums-'))
      try {
        const albums = join(dir, 'bad.json')
        writeFileSync(albums, '[{"title": "x", "year": 1971}]')
        const { code, stderr } = await runMain(['serve', '--port', '0', '--store', database.url, '--albums-file', albums])
        expect(code).toBe(1)
        expect(stderr).toContain('rqs: could not start: albums file')
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })

    it('with --store-wait, keeps retrying until the database is reachable, then serves', async () => {
      proxy.cut()
      const before = proxy.attempts
      const starting = spawnServer(['--store', proxiedUrl, '--store-wait', '60000'])
      try {
        while (proxy.attempts < before + 2) await new Promise((resolve) => setTimeout(resolve, 50)) // refused twice at least
        proxy.restore()
        const server = await starting
        try {
          expect(server.lines.some((l) => l.includes('PostgreSQL unreachable; retrying'))).toBe(true)
          expect((await request(`${server.origin}/readyz`)).status).toBe(200)
          expect((await request(`${server.origin}/students`)).status).toBe(200)
        } finally {
          await server.stop()
        }
      } finally {
        proxy.restore()
        await starting.then((s) => s.stop(), () => {})
      }
    }, 60_000)
  })
})
