import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../../helpers/server.js'
import { STREAM_FROM } from '../../../../src/records/index.js'
import { tempDir } from '../../../stores/harness.js'
import { memoryStores, openSqliteStores, type Stores } from '../../../helpers/built-ins.js'

const V2 = { accept: 'application/vnd.rqs.v2+json' }
const dir = tempDir()
afterAll(() => { dir.remove() })

/** Whole lists from STREAM_FROM records on are streamed; the bytes must be those of one serialisation. */
describe.each([
  ['memory', (): Stores => memoryStores()],
  ['sqlite', (): Stores => openSqliteStores({ path: join(dir.dir, 'streamed.db') })]
])('GET /students of a long list on the %s store', (_name, open) => {
  let stores: Stores
  let server: RunningServer
  beforeAll(async () => {
    stores = open()
    server = await startServer({}, { stores })
  })
  afterAll(async () => { await server.close(); await stores.close() })

  const expectSameBytes = async (): Promise<void> => {
    const list = await stores.students.list()
    const v1 = await request(`${server.origin}/students`)
    expect(v1.status).toBe(200)
    expect(v1.headers.get('content-type')).toMatch(/^application\/json/)
    expect(v1.text).toBe(JSON.stringify({ isSuccessful: true, body: list }))
    const v2 = await request(`${server.origin}/students`, { headers: V2 })
    expect(v2.headers.get('content-type')).toBe('application/vnd.rqs.v2+json')
    expect(v2.text).toBe(JSON.stringify(list))
  }

  it('is byte for byte the one-piece answer just below and from the threshold on, with text that needs escaping', async () => {
    for (let i = 0; i < STREAM_FROM - 1; i++) await stores.students.create({ firstName: `Zoë "${i}"`, lastName: 'O\\Brien\n', age: i })
    await expectSameBytes() // one piece
    await stores.students.create({ firstName: 'Ada', lastName: 'Lovelace', age: 36 })
    await expectSameBytes() // streamed
    await stores.students.delete(5)
    await stores.students.create({ firstName: 'Reused', lastName: 'Id', age: 1 }) // the spec's id rule reuses an id
    await expectSameBytes()
  })

  it('leaves the server healthy when a client goes away in the middle', async () => {
    const controller = new AbortController()
    const res = await fetch(`${server.origin}/students`, { signal: controller.signal })
    const reader = res.body?.getReader()
    await reader?.read()
    controller.abort()
    expect((await request(`${server.origin}/healthz`)).status).toBe(200)
    expect((await request(`${server.origin}/students/0`)).status).toBe(200)
  })
})
