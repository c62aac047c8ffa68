import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type RunningServer } from '../helpers/server.js'

/**
 * Issue 10, defect 8: CONNECT got no answer at all (Node closes the socket
 * when the server has no 'connect' listener). It is now answered like any
 * other method the resource does not serve, in the shape of the service the
 * path belongs to, and the connection is closed afterwards.
 */
let server: RunningServer
beforeAll(async () => { server = await startServer() })
afterAll(async () => { await server.close() })

interface RawAnswer { status: number, headers: Record<string, string>, body: any, closed: boolean }

/** Sends raw bytes and reads until the server closes the connection (bounded wait). */
async function raw (text: string): Promise<RawAnswer> {
  const { port } = new URL(server.origin)
  const data = await new Promise<{ text: string, closed: boolean }>((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(text))
    let received = ''
    const timer = setTimeout(() => { socket.destroy(); resolve({ text: received, closed: false }) }, 5000)
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => { received += chunk })
    socket.on('close', () => { clearTimeout(timer); resolve({ text: received, closed: true }) })
    socket.on('error', reject)
  })
  const [head = '', body = ''] = data.text.split('\r\n\r\n')
  const [statusLine = '', ...lines] = head.split('\r\n')
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
  return { status: Number(statusLine.split(' ')[1]), headers, body: body === '' ? undefined : JSON.parse(body), closed: data.closed }
}

describe('CONNECT (issue 10, defect 8)', () => {
  it('on the student service: 405 with Allow, in the v1 envelope, then the connection closes', async () => {
    const res = await raw('CONNECT /students HTTP/1.1\r\nHost: localhost\r\n\r\n')
    expect(res.status).toBe(405)
    expect(res.headers.allow).toBe('GET, POST, PUT, HEAD, OPTIONS')
    expect(res.body).toEqual({ isSuccessful: false, body: 'Method CONNECT is not allowed here; allowed: GET, POST, PUT, HEAD, OPTIONS' })
    expect(res.closed).toBe(true)
  })

  it('on the address book and student v2: a 405 problem', async () => {
    for (const path of ['/addresses/1', '/v2/students/0']) {
      const res = await raw(`CONNECT ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`)
      expect(res.status, path).toBe(405)
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
      expect(res.body.errors[0].error).toBe('METHOD_NOT_ALLOWED')
    }
  })

  it('on the GraphQL endpoint: 405 as a GraphQL error', async () => {
    const res = await raw('CONNECT /graphql HTTP/1.1\r\nHost: localhost\r\n\r\n')
    expect(res.status).toBe(405)
    expect(res.body).toEqual({ errors: [{ message: 'Method CONNECT is not allowed; use GET or POST.', extensions: { code: 'METHOD_NOT_ALLOWED' } }] })
  })

  it('a proxy tunnel request (authority target): 400 problem; elsewhere 404 problem', async () => {
    const tunnel = await raw('CONNECT example.com:443 HTTP/1.1\r\nHost: localhost\r\n\r\n')
    expect(tunnel.status).toBe(400)
    expect(tunnel.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(tunnel.closed).toBe(true)
    const elsewhere = await raw('CONNECT /nothing HTTP/1.1\r\nHost: localhost\r\n\r\n')
    expect(elsewhere.status).toBe(404)
    expect(elsewhere.body.errors[0].error).toBe('ROUTE_NOT_FOUND')
  })

  it('the server keeps serving others meanwhile', async () => {
    await raw('CONNECT /students HTTP/1.1\r\nHost: localhost\r\n\r\n{"tunnel": "bytes"}')
    const res = await fetch(`${server.origin}/students`)
    expect(res.status).toBe(200)
  })
})
