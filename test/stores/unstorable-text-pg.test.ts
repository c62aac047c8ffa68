import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, type TestDatabase } from './harness.js'
import { request, startServer, type RunningServer } from '../helpers/server.js'

/**
 * PostgreSQL's text type cannot hold U+0000, which JSON allows ("\u0000").
 * Such a value is the client's error (400 in the service's shape), never a 500.
 */
describe.skipIf(SKIP_POSTGRES)(`text PostgreSQL cannot store${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  let database: TestDatabase
  let server: RunningServer
  beforeAll(async () => {
    database = await createTestDatabase()
    server = await startServer({ store: { kind: 'postgres', url: database.url } })
  })
  afterAll(async () => {
    await server?.close()
    await database?.drop()
  })

  it('a NUL character in a student field answers 400 in the envelope and stores nothing', async () => {
    const res = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'a\u0000b', lastName: 'c', age: 1 } })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ isSuccessful: false, body: expect.stringContaining('U+0000') })
    expect((await request(`${server.origin}/students`)).body.body).toEqual([])
    const ok = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'a', lastName: 'c', age: 1 } })
    expect(ok.body.body.id).toBe(0) // the refused create did not count
  })

  it('a NUL character in an address field answers 400 as a problem and stores nothing', async () => {
    const res = await request(`${server.origin}/addresses/5`, { method: 'PUT', json: { name: 'n', city: 'a\u0000b', postalCode: 'p' } })
    expect(res.status).toBe(400)
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect((await request(`${server.origin}/addresses/5`)).status).toBe(404)
  })
})
