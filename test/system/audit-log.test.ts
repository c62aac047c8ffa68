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
    expect(audits.map((l) => ({ reqId: l.reqId, ...l.audit }))).toEqual([
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
  })
})
