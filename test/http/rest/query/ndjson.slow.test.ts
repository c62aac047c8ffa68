import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../../helpers/server.js'
import { LOCAL_STORES, storeKinds } from '../../../stores/harness.js'
import { NDJSON, ndjsonSuite } from './ndjson.suite.js'

ndjsonSuite(storeKinds(LOCAL_STORES))

describe('NDJSON negotiation', () => {
  let server: RunningServer
  beforeEach(async () => { server = await startServer() })
  afterEach(async () => { await server.close() })

  it('is offered by collections only; other resources answer 406 or JSON the client also accepts', async () => {
    await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'A', lastName: 'B', age: 1 } })
    const item = await request(`${server.origin}/students/0`, { headers: NDJSON })
    expect(item.status).toBe(406)
    const fallback = await request(`${server.origin}/students/0`, { headers: { accept: 'application/x-ndjson, application/json;q=0.5' } })
    expect(fallback.status).toBe(200)
    expect(fallback.body.body.id).toBe(0)
    const preferred = await request(`${server.origin}/students`, { headers: { accept: 'application/x-ndjson, application/json;q=0.5' } })
    expect(preferred.headers.get('content-type')).toMatch(/^application\/x-ndjson/)
    const json = await request(`${server.origin}/students`, { headers: { accept: 'application/json, application/x-ndjson;q=0.5' } })
    expect(json.body).toEqual({ isSuccessful: true, body: [{ id: 0, firstName: 'A', lastName: 'B', age: 1 }] })
    expect((await request(`${server.origin}/addresses/1`, { headers: NDJSON })).status).toBe(406)
  })
})
