import { afterEach, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { overriding, withRecordStores } from '../../helpers/stores.js'
import { berlin, expectProblem, hamburg } from './helpers.js'
import { memoryStores } from '../../helpers/built-ins.js'

let server: RunningServer | undefined
afterEach(async () => { await server?.close(); server = undefined })

async function withRecord (): Promise<{ url: string, etag: string }> {
  server = await startServer()
  const url = `${server.origin}/addresses/1`
  const created = await request(url, { method: 'PUT', json: berlin })
  return { url, etag: created.headers.get('etag') as string }
}

describe('ETag and If-None-Match on GET', () => {
  it('GET returns a strong ETag, stable while the record is unchanged and new after a change; PUT and POST return it too', async () => {
    const { url, etag } = await withRecord()
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/) // strong: no W/ prefix
    const get = await request(url)
    expect(get.headers.get('etag')).toBe(etag)
    expect((await request(url)).headers.get('etag')).toBe(etag)
    const put = await request(url, { method: 'PUT', json: hamburg })
    expect(put.headers.get('etag')).not.toBe(etag)
    expect((await request(url)).headers.get('etag')).toBe(put.headers.get('etag'))
    const post = await request(`${server!.origin}/addresses`, { method: 'POST', json: berlin })
    expect(post.headers.get('etag')).toBe((await request(`${server!.origin}/addresses/2`)).headers.get('etag'))
  })

  it('two records with the same fields but different ids have different ETags', async () => {
    const { etag } = await withRecord()
    const other = await request(`${server!.origin}/addresses/2`, { method: 'PUT', json: berlin })
    expect(other.headers.get('etag')).not.toBe(etag)
  })

  it('If-None-Match with the current tag (also weak, also in a list, also *) is 304 with the ETag and no body', async () => {
    const { url, etag } = await withRecord()
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await request(url, { headers: { 'if-none-match': header } })
      expect(res.status, header).toBe(304)
      expect(res.text).toBe('')
      expect(res.headers.get('etag')).toBe(etag)
    }
  })

  it('If-None-Match with another tag is 200 with the body', async () => {
    const { url } = await withRecord()
    const res = await request(url, { headers: { 'if-none-match': '"stale"' } })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ id: 1, ...berlin })
  })

  it('a missing record is 404 whatever If-None-Match says (RFC 9110 §13.2.1)', async () => {
    server = await startServer()
    expectProblem(await request(`${server.origin}/addresses/9`, { headers: { 'if-none-match': '*' } }), 404, 'ADDRESS_NOT_FOUND')
  })

  it('GET with an If-Match that does not match is 412', async () => {
    const { url, etag } = await withRecord()
    expectProblem(await request(url, { headers: { 'if-match': '"stale"' } }), 412, 'PRECONDITION_FAILED')
    expect((await request(url, { headers: { 'if-match': etag } })).status).toBe(200)
  })
})

describe('If-Match / If-None-Match on PUT', () => {
  it('If-Match with the current tag updates; with a stale or weak tag is 412 and changes nothing', async () => {
    const { url, etag } = await withRecord()
    expectProblem(await request(url, { method: 'PUT', json: hamburg, headers: { 'if-match': '"stale"' } }), 412, 'PRECONDITION_FAILED')
    // If-Match uses the strong comparison: a weak tag never matches.
    expectProblem(await request(url, { method: 'PUT', json: hamburg, headers: { 'if-match': `W/${etag}` } }), 412, 'PRECONDITION_FAILED')
    expect((await request(url)).body).toEqual({ id: 1, ...berlin })
    const ok = await request(url, { method: 'PUT', json: hamburg, headers: { 'if-match': `"x", ${etag}` } })
    expect(ok.status).toBe(200)
    expect(ok.body).toEqual({ id: 1, name: berlin.name, city: hamburg.city, postalCode: hamburg.postalCode })
  })

  it('If-Match on an absent record is 412 and creates nothing; If-Match: * requires the record to exist', async () => {
    server = await startServer()
    const url = `${server.origin}/addresses/3`
    expectProblem(await request(url, { method: 'PUT', json: berlin, headers: { 'if-match': '"abc"' } }), 412, 'PRECONDITION_FAILED')
    expectProblem(await request(url, { method: 'PUT', json: berlin, headers: { 'if-match': '*' } }), 412, 'PRECONDITION_FAILED')
    expect((await request(url)).status).toBe(404)
    await request(url, { method: 'PUT', json: berlin })
    expect((await request(url, { method: 'PUT', json: hamburg, headers: { 'if-match': '*' } })).status).toBe(200)
  })

  it('If-None-Match: * creates only: 201 when absent, 412 when the record exists', async () => {
    server = await startServer()
    const url = `${server.origin}/addresses/4`
    const first = await request(url, { method: 'PUT', json: berlin, headers: { 'if-none-match': '*' } })
    expect(first.status).toBe(201)
    const again = await request(url, { method: 'PUT', json: hamburg, headers: { 'if-none-match': '*' } })
    const problem = expectProblem(again, 412, 'PRECONDITION_FAILED')
    // Nothing "changed": the record exists, and the entry says so (issue 15).
    expect(problem.detail).toMatch(/^a record with this id already exists \(address 4\)/)
    expect(problem.errors).toEqual([expect.objectContaining({ error: 'RECORD_EXISTS', message: 'A record with this id already exists.' })])
    expect((await request(url)).body).toEqual({ id: 4, ...berlin })
  })

  it('a false If-Match keeps the "changed by someone else" wording', async () => {
    const { url } = await withRecord()
    const problem = expectProblem(await request(url, { method: 'PUT', json: hamburg, headers: { 'if-match': '"stale"' } }), 412, 'PRECONDITION_FAILED')
    expect(problem.errors).toEqual([expect.objectContaining({ error: 'PRECONDITION_FAILED', message: 'The record was changed by someone else. Reload it and try again.' })])
  })

  it('If-None-Match with the current tag on PUT is 412', async () => {
    const { url, etag } = await withRecord()
    expectProblem(await request(url, { method: 'PUT', json: hamburg, headers: { 'if-none-match': etag } }), 412, 'PRECONDITION_FAILED')
    expect((await request(url, { method: 'PUT', json: hamburg, headers: { 'if-none-match': '"old"' } })).status).toBe(200)
  })

  it('a PUT that would be 400 (create without name) stays 400 under a precondition (RFC 9110 §13.2.1)', async () => {
    server = await startServer()
    const res = await request(`${server.origin}/addresses/5`, { method: 'PUT', json: { city: 'X', postalCode: '1' }, headers: { 'if-match': '"abc"' } })
    expectProblem(res, 400, 'VALIDATION_FAILED')
  })
})

describe('If-Match on DELETE', () => {
  it('a stale tag is 412 and the record stays; the current tag deletes', async () => {
    const { url, etag } = await withRecord()
    expectProblem(await request(url, { method: 'DELETE', headers: { 'if-match': '"stale"' } }), 412, 'PRECONDITION_FAILED')
    expect((await request(url)).status).toBe(200)
    expect((await request(url, { method: 'DELETE', headers: { 'if-match': etag } })).status).toBe(204)
    expect((await request(url)).status).toBe(404)
  })

  it('DELETE of a missing record is 404 even with a precondition (RFC 9110 §13.2.1)', async () => {
    server = await startServer()
    expectProblem(await request(`${server.origin}/addresses/8`, { method: 'DELETE', headers: { 'if-match': '"abc"' } }), 404, 'ADDRESS_NOT_FOUND')
  })
})

describe('lost updates are prevented', () => {
  it('two clients read the same version; the second write with the old ETag is 412', async () => {
    const { url, etag } = await withRecord()
    const alice = await request(url, { method: 'PUT', json: { city: 'Hamburg', postalCode: '20095' }, headers: { 'if-match': etag } })
    expect(alice.status).toBe(200)
    const bob = await request(url, { method: 'PUT', json: { city: 'Munich', postalCode: '80331' }, headers: { 'if-match': etag } })
    expectProblem(bob, 412, 'PRECONDITION_FAILED')
    expect((await request(url)).body.city).toBe('Hamburg')
  })

  it('concurrent writes with the same If-Match: exactly one succeeds', async () => {
    const { url, etag } = await withRecord()
    const cities = ['Hamburg', 'Munich', 'Cologne', 'Dresden', 'Leipzig', 'Bremen']
    const results = await Promise.all(cities.map(async (city) =>
      await request(url, { method: 'PUT', json: { city, postalCode: '1' }, headers: { 'if-match': etag } })))
    const statuses = results.map((r) => r.status).sort()
    expect(statuses).toEqual([200, 412, 412, 412, 412, 412])
    const winner = results.find((r) => r.status === 200)
    expect((await request(url)).body).toEqual(winner?.body)
  })

  it('the store compare-and-set catches a change between the precondition check and the write', async () => {
    // A store in which another writer changes the record right after the route has read it.
    const stores = memoryStores()
    // The routes write through the record store: the race is there.
    const records = stores.collections.get('addresses')!
    const racingRecords = overriding(records, {
      put: async (id, input, condition) => {
        if (condition?.kind === 'matches') await records.put(id, { ...input, city: 'Intruder City' })
        return await records.put(id, input, condition)
      },
      delete: async (id, condition) => {
        if (condition?.kind === 'matches') await records.put(id, { name: 'x', city: 'Intruder City', postalCode: '0' })
        return await records.delete(id, condition)
      }
    })
    server = await startServer({}, { stores: withRecordStores(stores, (store, name) => name === 'addresses' ? racingRecords : store) })
    const url = `${server.origin}/addresses/1`
    const etag = (await request(url, { method: 'PUT', json: berlin })).headers.get('etag') as string
    expectProblem(await request(url, { method: 'PUT', json: hamburg, headers: { 'if-match': etag } }), 412, 'PRECONDITION_FAILED')
    const current = await request(url)
    expect(current.body.city).toBe('Intruder City')
    expectProblem(await request(url, { method: 'DELETE', headers: { 'if-match': current.headers.get('etag') as string } }), 412, 'PRECONDITION_FAILED')
    expect((await request(url)).status).toBe(200)
  })
})
