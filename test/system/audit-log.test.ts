import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnServer, type ServerProcess } from '../helpers/process.js'
import { request } from '../helpers/server.js'

const ada = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }
const berlin = { name: 'Ada Lovelace', city: 'Berlin', postalCode: '10115' }

describe('the audit log (--audit-log)', () => {
  let srv: ServerProcess
  beforeAll(async () => { srv = await spawnServer(['--audit-log']) })
  afterAll(async () => {
    if (srv?.child.exitCode === null) { srv.child.kill('SIGTERM'); await srv.exited }
  })

  it('is one line per create, replace and delete, with request id, principal, service, id and outcome, never a body', async () => {
    const send = async (path: string, init: RequestInit & { json?: unknown }, id: string): Promise<number> =>
      (await request(`${srv.origin}${path}`, { ...init, headers: { 'x-request-id': id } })).status
    expect(await send('/students', { method: 'POST', json: ada }, 'r1')).toBe(201)
    expect(await send('/students', { method: 'PUT', json: { id: 0, ...ada, age: 37 } }, 'r2')).toBe(200)
    expect(await send('/v2/students', { method: 'POST', json: ada }, 'r3')).toBe(201)
    expect(await send('/addresses/9223372036854775807', { method: 'PUT', json: berlin }, 'r4')).toBe(201)
    expect(await send('/addresses/9223372036854775807', { method: 'PUT', json: berlin }, 'r5')).toBe(200)
    expect(await send('/addresses', { method: 'POST', json: berlin }, 'r6')).toBe(201)
    expect(await send('/addresses/424242', { method: 'DELETE' }, 'r7')).toBe(404)
    expect(await send('/students/1', { method: 'DELETE' }, 'r8')).toBe(200)
    expect(await send('/students', {}, 'r9')).toBe(200) // a read: no audit line
    expect(await send('/graphql', { method: 'POST', json: { query: '{ albums { title } }' } }, 'r10')).toBe(200)

    await expect.poll(() => srv.lines.filter((l) => l.includes('"msg":"audit"')).length, { timeout: 5000 }).toBe(8)
    const audits = srv.lines.filter((l) => l.includes('"msg":"audit"')).map((l) => JSON.parse(l))
    expect(audits.map((l) => ({ reqId: l.reqId, ...withoutServerId(l.audit) }))).toEqual([
      { reqId: 'r1', action: 'create', service: 'students', id: '0', principal: null, outcome: 'success', status: 201 },
      { reqId: 'r2', action: 'replace', service: 'students', id: '0', principal: null, outcome: 'success', status: 200 },
      { reqId: 'r3', action: 'create', service: 'students', id: '1', principal: null, outcome: 'success', status: 201 },
      { reqId: 'r4', action: 'create', service: 'addresses', id: '9223372036854775807', principal: null, outcome: 'success', status: 201 },
      { reqId: 'r5', action: 'replace', service: 'addresses', id: '9223372036854775807', principal: null, outcome: 'success', status: 200 },
      { reqId: 'r6', action: 'create', service: 'addresses', id: '1', principal: null, outcome: 'success', status: 201 },
      { reqId: 'r7', action: 'delete', service: 'addresses', id: '424242', principal: null, outcome: 'refused', status: 404 },
      { reqId: 'r8', action: 'delete', service: 'students', id: '1', principal: null, outcome: 'success', status: 200 }
    ])
    for (const line of audits) expect(JSON.stringify(line)).not.toMatch(/Lovelace|Berlin/)
    // Issue 19: the ids above are the clients' own; each line also carries one the server made, all different.
    const serverIds = audits.map((l) => l.audit.serverRequestId)
    for (const id of serverIds) expect(id).toMatch(UUID)
    expect(new Set(serverIds).size).toBe(audits.length)
  })

  it('a client-chosen X-Request-Id is still echoed; a reused one cannot make two writes indistinguishable', async () => {
    const reused = 'same-id'
    const first = await request(`${srv.origin}/addresses`, { method: 'POST', json: berlin, headers: { 'x-request-id': reused } })
    const second = await request(`${srv.origin}/addresses`, { method: 'POST', json: berlin, headers: { 'x-request-id': reused } })
    expect([first.headers.get('x-request-id'), second.headers.get('x-request-id')]).toEqual([reused, reused])
    const lines = async (): Promise<any[]> => srv.lines.filter((l) => l.includes('"msg":"audit"') && l.includes(`"reqId":"${reused}"`)).map((l) => JSON.parse(l))
    await expect.poll(async () => (await lines()).length, { timeout: 5000 }).toBe(2)
    const [a, b] = await lines()
    expect(a.audit.serverRequestId).not.toBe(b.audit.serverRequestId)
  })

  it('without X-Request-Id the server-made id is the request id itself', async () => {
    const res = await request(`${srv.origin}/students`, { method: 'POST', json: ada })
    const id = res.headers.get('x-request-id') as string
    expect(id).toMatch(UUID)
    await expect.poll(() => srv.lines.some((l) => l.includes('"msg":"audit"') && l.includes(`"reqId":"${id}"`)), { timeout: 5000 }).toBe(true)
    const line = JSON.parse(srv.lines.find((l) => l.includes('"msg":"audit"') && l.includes(`"reqId":"${id}"`)) as string)
    expect(line.audit.serverRequestId).toBe(id)
  })
})

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

function withoutServerId ({ serverRequestId: _, ...rest }: Record<string, unknown>): Record<string, unknown> {
  return rest
}
