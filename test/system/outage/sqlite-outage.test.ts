import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { tempDir } from '../../stores/harness.js'
import { runMain } from '../../helpers/cli.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { openSqliteStores } from '../../helpers/built-ins.js'

describe('SQLite store unavailable', () => {
  const tmp = tempDir()
  afterAll(() => { tmp.remove() })

  describe('while serving', () => {
    let server: RunningServer
    const path = join(tmp.dir, 'locked.db')
    beforeAll(async () => { server = await startServer({ store: { kind: 'sqlite', path } }) })
    afterAll(async () => { await server?.close() })

    it('answers 503 with Retry-After while another connection holds the write lock past the busy timeout, and recovers once it is released', async () => {
      expect((await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'A', lastName: 'B', age: 1 } })).status).toBe(201)
      const other = new Database(path)
      other.exec('BEGIN EXCLUSIVE')
      try {
        const blocked = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'C', lastName: 'D', age: 2 } })
        expect(blocked.status).toBe(503)
        expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/)
        expect(blocked.body.isSuccessful).toBe(false)
        expect((await request(`${server.origin}/healthz`)).status).toBe(200)
      } finally {
        other.exec('ROLLBACK')
        other.close()
      }
      const after = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'E', lastName: 'F', age: 3 } })
      expect(after.status).toBe(201)
      expect(after.body.body.id).toBe(1)
    }, 30_000)
  })

  it('a closed database makes requests and /readyz answer 503 (never a crash)', async () => {
    const stores = openSqliteStores({ path: join(tmp.dir, 'closed.db') })
    const server = await startServer({}, { stores })
    try {
      expect((await request(`${server.origin}/readyz`)).status).toBe(200)
      await stores.close()
      expect((await request(`${server.origin}/readyz`)).status).toBe(503)
      const res = await request(`${server.origin}/students/0`)
      expect(res.status).toBe(503)
      expect(res.body.isSuccessful).toBe(false)
    } finally {
      await server.close()
    }
  })

  it('rqs serve exits with code 1 when the file cannot be opened', async () => {
    const { code, stderr } = await runMain(['serve', '--port', '0', '--store', `sqlite:${join(tmp.dir, 'missing-folder', 'x.db')}`])
    expect(code).toBe(1)
    expect(stderr).toContain('cannot open SQLite database')
  })
})

describe('/readyz and /healthz', () => {
  it('/readyz is 200 on the memory store', async () => {
    const server = await startServer()
    try {
      const res = await request(`${server.origin}/readyz`)
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ status: 'ready' })
    } finally {
      await server.close()
    }
  })
})
