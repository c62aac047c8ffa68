import { afterEach, describe, expect, it } from 'vitest'
import { memoryStores } from '../../helpers/built-ins.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'

/**
 * Fastify is given no logger (it then neither times nor listens to a response
 * that no onResponse hook needs); the server's logger is app.log and every
 * request's logger is its child. What is logged stays the same: the listening
 * line, an error answered 5xx with its request id, the access log when on.
 */
describe('the server\'s logger, with Fastify given none', () => {
  let server: RunningServer | undefined
  afterEach(async () => { await server?.close(); server = undefined })

  async function serve (accessLog: boolean): Promise<{ origin: string, lines: Array<Record<string, unknown>> }> {
    const lines: Array<Record<string, unknown>> = []
    const stores = memoryStores()
    await stores.students.create({ firstName: 'Ada', lastName: 'Lovelace', age: 36 })
    // Student 1 cannot be read: the store fails (the answer is a 500, logged as an error).
    const students = stores.collections.get('students')!
    const get = students.get.bind(students)
    students.get = async (id) => { if (id === 1) throw new Error('the disk is on fire'); return await get(id) }
    await stores.students.create({ firstName: 'Alan', lastName: 'Turing', age: 41 })
    server = await startServer({ logLevel: 'info', accessLog }, { stores, logStream: { write: (line: string) => { lines.push(JSON.parse(line) as Record<string, unknown>) } } })
    return { origin: server.origin, lines }
  }

  it('logs the listening line, and an error answered 500 under the request id the client got', async () => {
    const { origin, lines } = await serve(false)
    expect(lines.some((line) => line.level === 30 && String(line.msg).startsWith('Server listening at http://127.0.0.1:'))).toBe(true)
    const ok = await request(`${origin}/students/0`)
    expect(ok.status).toBe(200)
    const failed = await request(`${origin}/students/1`)
    expect(failed.status).toBe(500)
    const id = failed.headers.get('x-request-id')
    expect(id).toBeTruthy()
    const errors = lines.filter((line) => line.level === 50)
    expect(errors).toHaveLength(1)
    expect(errors[0]!.reqId).toBe(id)
    expect(JSON.stringify(errors[0])).toContain('the disk is on fire')
    // No access log by default: nothing about the answered requests but the error.
    expect(lines.filter((line) => line.msg === 'request completed')).toEqual([])
  })

  it('with the access log on, one line per answer with the request id, status and response time', async () => {
    const { origin, lines } = await serve(true)
    const ok = await request(`${origin}/students/0`)
    const missing = await request(`${origin}/students/99`)
    expect([ok.status, missing.status]).toEqual([200, 404])
    await new Promise((resolve) => setTimeout(resolve, 50))
    const completed = lines.filter((line) => line.msg === 'request completed')
    expect(completed.map((line) => [line.reqId, line.method, line.url, line.statusCode])).toEqual([
      [ok.headers.get('x-request-id'), 'GET', '/students/0', 200],
      [missing.headers.get('x-request-id'), 'GET', '/students/99', 404]
    ])
    for (const line of completed) expect(typeof line.responseTime).toBe('number')
  })
})
