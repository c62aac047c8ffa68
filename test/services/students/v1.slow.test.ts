import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { memoryStores, type Stores } from '../../helpers/built-ins.js'

let server: RunningServer
let stores: Stores
let base: string

async function fresh (): Promise<void> {
  if (server !== undefined) await server.close()
  stores = memoryStores()
  server = await startServer({}, { stores })
  base = `${server.origin}/students`
}

const ada = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }
const alan = { firstName: 'Alan', lastName: 'Turing', age: 41 }
const grace = { firstName: 'Grace', lastName: 'Hopper', age: 85 }

async function create (student: object): Promise<any> {
  const res = await request(base, { method: 'POST', json: student })
  expect(res.status).toBe(201)
  return res.body.body
}

beforeEach(fresh)
afterAll(async () => { await server.close() })

describe('GET / (list)', () => {
  it('answers 200 with an empty array when no records exist', async () => {
    const res = await request(base)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.body).toEqual({ isSuccessful: true, body: [] })
  })

  it('contains every created student (rule 4)', async () => {
    const a = await create(ada)
    const b = await create(alan)
    const res = await request(base)
    expect(res.status).toBe(200)
    expect(res.body.isSuccessful).toBe(true)
    expect(res.body.body).toHaveLength(2)
    expect(res.body.body).toEqual(expect.arrayContaining([a, b]))
  })

  it('also answers with a trailing slash', async () => {
    await create(ada)
    const res = await request(`${base}/`)
    expect(res.status).toBe(200)
    expect(res.body.body).toHaveLength(1)
  })
})

describe('POST / (create)', () => {
  it('answers 201 with the stored student and its assigned id', async () => {
    const res = await request(base, { method: 'POST', json: ada })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({ isSuccessful: true, body: { id: 0, ...ada } })
  })

  it('assigns ids 0, 1, 2 in creation order while nothing was deleted', async () => {
    expect((await create(ada)).id).toBe(0)
    expect((await create(alan)).id).toBe(1)
    expect((await create(grace)).id).toBe(2)
  })

  it('ignores a submitted id: the service assigns it', async () => {
    await create(ada)
    const res = await request(base, { method: 'POST', json: { ...alan, id: 42 } })
    expect(res.status).toBe(201)
    expect(res.body.body.id).toBe(1)
    expect((await request(`${base}/42`)).status).toBe(404)
  })

  it('does not store unknown fields', async () => {
    const res = await request(base, { method: 'POST', json: { ...ada, email: 'ada@example.org', admin: true } })
    expect(res.status).toBe(201)
    expect(res.body.body).toEqual({ id: 0, ...ada })
    const stored = await request(`${base}/0`)
    expect(stored.body.body).toEqual({ id: 0, ...ada })
  })

  it('the id rule: after a delete, a create reuses the id = count and replaces that record', async () => {
    await create(ada) // 0
    await create(alan) // 1
    const third = await create(grace) // 2
    expect(third.id).toBe(2)
    expect((await request(`${base}/0`, { method: 'DELETE' })).status).toBe(200)
    // Two records are held now, so the next id is 2: it replaces Grace.
    const next = await create({ firstName: 'Barbara', lastName: 'Liskov', age: 86 })
    expect(next.id).toBe(2)
    const list = await request(base)
    expect(list.body.body).toHaveLength(2)
    const byId = Object.fromEntries(list.body.body.map((s: any) => [s.id, s]))
    expect(byId[1]).toEqual({ id: 1, ...alan })
    expect(byId[2]).toEqual({ id: 2, firstName: 'Barbara', lastName: 'Liskov', age: 86 })
    expect(byId[0]).toBeUndefined()
  })
})

describe('GET /{id}', () => {
  it('answers 200 with the student', async () => {
    await create(ada)
    const res = await request(`${base}/0`)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ isSuccessful: true, body: { id: 0, ...ada } })
  })

  it('answers 404 in the envelope for an unknown id, naming the id', async () => {
    const res = await request(`${base}/7`)
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ isSuccessful: false, body: 'Student with id 7 was not found' })
  })

  it('accepts leading zeros as the same decimal id', async () => {
    await create(ada)
    const res = await request(`${base}/000`)
    expect(res.status).toBe(200)
    expect(res.body.body.id).toBe(0)
  })
})

describe('PUT / (replace)', () => {
  it('replaces firstName, lastName and age under the submitted id (rule 2)', async () => {
    await create(ada)
    await create(alan)
    const res = await request(base, { method: 'PUT', json: { id: 1, ...grace } })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ isSuccessful: true, body: { id: 1, ...grace } })
    expect((await request(`${base}/1`)).body.body).toEqual({ id: 1, ...grace })
    expect((await request(`${base}/0`)).body.body).toEqual({ id: 0, ...ada })
  })

  it('answers 404 for an id that does not exist, and creates nothing', async () => {
    await create(ada)
    const res = await request(base, { method: 'PUT', json: { id: 5, ...alan } })
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ isSuccessful: false, body: 'Student with id 5 was not found' })
    expect((await request(base)).body.body).toEqual([{ id: 0, ...ada }])
  })

  it('answers 400 without an integer id', async () => {
    await create(ada)
    for (const id of [undefined, '0', 1.5, -1, null, 2 ** 53]) {
      const res = await request(base, { method: 'PUT', json: { id, ...alan } })
      expect(res.status, `id ${String(id)}`).toBe(400)
      expect(res.body.isSuccessful).toBe(false)
      expect(res.body.body).toMatch(/\bid\b/)
    }
    expect((await request(`${base}/0`)).body.body).toEqual({ id: 0, ...ada })
  })

  it('does not store unknown fields', async () => {
    await create(ada)
    const res = await request(base, { method: 'PUT', json: { id: 0, ...alan, role: 'admin' } })
    expect(res.body.body).toEqual({ id: 0, ...alan })
  })
})

describe('DELETE /{id}', () => {
  it('answers 200 with a message naming the id, and GET then answers 404 (rule 3)', async () => {
    await create(ada)
    const res = await request(`${base}/0`, { method: 'DELETE' })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ isSuccessful: true, body: 'Student with id 0 was deleted' })
    const after = await request(`${base}/0`)
    expect(after.status).toBe(404)
    expect(after.body).toEqual({ isSuccessful: false, body: 'Student with id 0 was not found' })
  })

  it('answers 404 in the envelope for an unknown id', async () => {
    const res = await request(`${base}/3`, { method: 'DELETE' })
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ isSuccessful: false, body: 'Student with id 3 was not found' })
  })
})
