import { afterEach, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'

/**
 * Issue 22, item 1: under the spec's count rule a create after a delete can
 * take the id of a record held and replace it. The create stays a 201 (the
 * spec), and says so: `Replaced-Record` names the replaced record's path.
 */
const V2 = { accept: 'application/vnd.rqs.v2+json' }
let server: RunningServer | undefined
afterEach(async () => { await server?.close(); server = undefined })

async function threeThenDeleteOne (origin: string): Promise<void> {
  for (const firstName of ['Grace', 'Katherine', 'Mary']) await request(`${origin}/students`, { method: 'POST', json: { firstName, lastName: 'X', age: 30 } })
  expect((await request(`${origin}/students/1`, { method: 'DELETE' })).status).toBe(200)
}

describe('a create that replaced a record (count id rule)', () => {
  it('is 201 with Replaced-Record naming the record it replaced, in v1 and v2; an ordinary create has none', async () => {
    server = await startServer()
    const first = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'A', lastName: 'B', age: 1 } })
    expect(first.headers.get('replaced-record')).toBeNull()
    await request(`${server.origin}/students/0`, { method: 'DELETE' })
    await threeThenDeleteOne(server.origin) // ids 0, 1, 2; 1 deleted: two held
    const v1 = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'New', lastName: 'Person', age: 20 } })
    expect(v1.status).toBe(201)
    expect(v1.body).toEqual({ isSuccessful: true, body: { id: 2, firstName: 'New', lastName: 'Person', age: 20 } })
    expect(v1.headers.get('replaced-record')).toBe('/students/2')

    const v2 = await request(`${server.origin}/students`, { method: 'POST', headers: V2, json: { firstName: 'Newer', lastName: 'Person', age: 21 } })
    expect(v2.status).toBe(201)
    expect(v2.headers.get('location')).toBe('/students/2')
    expect(v2.headers.get('replaced-record')).toBe('/students/2')
    const uri = await request(`${server.origin}/v2/students`, { method: 'POST', json: { firstName: 'Newest', lastName: 'Person', age: 22 } })
    expect(uri.headers.get('replaced-record')).toBe('/v2/students/2')
  })

  it('is kept with the answer of an Idempotency-Key and sent again to a retry', async () => {
    server = await startServer()
    await threeThenDeleteOne(server.origin)
    const keyed = { method: 'POST', headers: { ...V2, 'idempotency-key': 'replace-once' }, json: { firstName: 'New', lastName: 'Person', age: 20 } }
    const once = await request(`${server.origin}/students`, keyed)
    const again = await request(`${server.origin}/students`, keyed)
    expect(once.headers.get('replaced-record')).toBe('/students/2')
    expect(again.headers.get('replaced-record')).toBe('/students/2')
    expect(again.text).toBe(once.text)
  })

  it('is kept with the answer of an Idempotency-Key in v1 too: the envelope and the header sent again as a replay', async () => {
    server = await startServer()
    await threeThenDeleteOne(server.origin)
    const keyed = { method: 'POST', headers: { 'idempotency-key': 'replace-once-v1' }, json: { firstName: 'New', lastName: 'Person', age: 20 } }
    const once = await request(`${server.origin}/students`, keyed)
    const again = await request(`${server.origin}/students`, keyed)
    expect(once.status).toBe(201)
    expect(once.body).toEqual({ isSuccessful: true, body: { id: 2, firstName: 'New', lastName: 'Person', age: 20 } })
    expect(once.headers.get('replaced-record')).toBe('/students/2')
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.headers.get('replaced-record')).toBe('/students/2')
    expect(again.text).toBe(once.text)
    expect((await request(`${server.origin}/students`)).body.body).toEqual([{ id: 0, firstName: 'Grace', lastName: 'X', age: 30 }, { id: 2, firstName: 'New', lastName: 'Person', age: 20 }])
  })

  it('never happens with --student-ids sequence', async () => {
    server = await startServer({ students: { ids: 'sequence' } })
    await threeThenDeleteOne(server.origin)
    const res = await request(`${server.origin}/students`, { method: 'POST', headers: V2, json: { firstName: 'New', lastName: 'Person', age: 20 } })
    expect(res.body.id).toBe(3)
    expect(res.headers.get('replaced-record')).toBeNull()
  })

  it('is described in the API description', async () => {
    server = await startServer()
    const doc = (await request(`${server.origin}/openapi.json`)).body
    expect(doc.components.headers['Replaced-Record'].description).toContain('--student-ids sequence')
  })
})
