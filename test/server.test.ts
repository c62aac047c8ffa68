import { describe, expect, it } from 'vitest'
import { request, startServer } from './helpers/server.js'

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe('server', () => {
  it('GET /healthz answers 200 {status:"ok"}', async () => {
    const srv = await startServer()
    try {
      const res = await request(`${srv.origin}/healthz`)
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ status: 'ok' })
    } finally { await srv.close() }
  })

  it('sends a fresh X-Request-Id on every response, and adopts a well-formed incoming one', async () => {
    const srv = await startServer()
    try {
      const a = await request(`${srv.origin}/students`)
      const b = await request(`${srv.origin}/students`)
      expect(a.headers.get('x-request-id')).toMatch(UUID_V4)
      expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'))
      const adopted = await request(`${srv.origin}/students/9`, { headers: { 'x-request-id': 'abc-123.def_4' } })
      expect(adopted.headers.get('x-request-id')).toBe('abc-123.def_4')
      for (const hostile of ['x'.repeat(200), 'a b', 'a"b', '<script>']) {
        const res = await request(`${srv.origin}/students`, { headers: { 'x-request-id': hostile } })
        expect(res.headers.get('x-request-id')).toMatch(UUID_V4)
      }
    } finally { await srv.close() }
  })

  it('builds independent servers in one process (no shared state)', async () => {
    const one = await startServer()
    const two = await startServer()
    try {
      await request(`${one.origin}/students`, { method: 'POST', json: { firstName: 'A', lastName: 'B', age: 1 } })
      expect((await request(`${one.origin}/students`)).body.body).toHaveLength(1)
      expect((await request(`${two.origin}/students`)).body.body).toHaveLength(0)
    } finally {
      await one.close()
      await two.close()
    }
  })

  it('mounts the student service under the configured base, or not at all', async () => {
    const moved = await startServer({ students: { base: '/api/students' } })
    const off = await startServer({ students: { enabled: false } })
    try {
      expect((await request(`${moved.origin}/api/students`)).body).toEqual({ isSuccessful: true, body: [] })
      expect((await request(`${moved.origin}/students`)).status).toBe(404)
      expect((await request(`${off.origin}/students`)).status).toBe(404)
    } finally {
      await moved.close()
      await off.close()
    }
  })
})
