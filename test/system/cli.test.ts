import { connect } from 'node:net'
import { describe, expect, it } from 'vitest'
import { runCliToEnd, spawnServer } from '../helpers/process.js'
import { request } from '../helpers/server.js'

// What only a real process shows: signals, graceful shutdown and the exit code src/bin.ts sets.
describe('rqs as a process', () => {
  it('exits with the code main() returns: 2 for a bad flag, in one line', async () => {
    const res = await runCliToEnd(['serve', '--port', 'eighty'])
    expect(res.code).toBe(2)
    expect(res.stderr).toBe('rqs: --port must be a non-negative integer, got "eighty"\n')
    const unknown = await runCliToEnd(['serve', '--prot', '80'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toBe("rqs: unknown option --prot (did you mean --port?); see 'rqs serve --help'\n")
  })

  it('serves, logs structured JSON with request ids, and stops gracefully on SIGTERM with exit 0', async () => {
    const srv = await spawnServer(['--access-log'])
    const res = await request(`${srv.origin}/students`, { headers: { 'x-request-id': 'trace-123' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-request-id')).toBe('trace-123')
    srv.child.kill('SIGTERM')
    const { code } = await srv.exited
    expect(code).toBe(0)
    const logs = srv.lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l))
    const access = logs.find((l) => l.msg === 'request completed')
    expect(access).toMatchObject({ reqId: 'trace-123', method: 'GET', url: '/students', statusCode: 200, bytes: expect.any(Number), responseTime: expect.any(Number) })
    // Not a terminal: the start-up summary is one JSON line, and the last line says shutdown finished.
    expect(logs.filter((l) => /listening/.test(l.msg))).toEqual([expect.objectContaining({ msg: `Server listening at ${srv.origin}`, store: { kind: 'memory' } })])
    expect(logs.some((l) => l.msg?.includes('shutting down'))).toBe(true)
    expect(logs.at(-1)?.msg).toMatch(/^shutdown complete/)
  })

  it('finishes an in-flight request before exiting on SIGTERM', async () => {
    const srv = await spawnServer()
    const { port } = new URL(srv.origin)
    const body = JSON.stringify({ firstName: 'Ada', lastName: 'Lovelace', age: 36 })
    const socket = connect(Number(port), '127.0.0.1')
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
    let answer = ''
    socket.on('data', (c) => { answer += c.toString() })
    // Send the headers and half the body, signal, then the rest: the request is in flight during shutdown.
    // Waits are on events, not fixed sleeps (issue 36, item 10): `Expect: 100-continue` makes the server say
    // when it has read the headers, and its log when it is shutting down.
    socket.write(`POST /students HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nexpect: 100-continue\r\nconnection: close\r\n\r\n${body.slice(0, 10)}`)
    await until(() => answer.includes('HTTP/1.1 100 Continue\r\n\r\n'))
    srv.child.kill('SIGTERM')
    await until(() => srv.lines.some((l) => l.includes('shutting down')))
    socket.end(body.slice(10))
    await new Promise<void>((resolve) => socket.once('close', () => resolve()))
    answer = answer.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '')
    expect(answer).toMatch(/^HTTP\/1\.1 201/)
    expect(answer).toContain('"isSuccessful":true')
    const { code } = await srv.exited
    expect(code).toBe(0)
  })
})

/** Polls `check` every 20 ms until it holds; fails after a bound generous on a loaded machine (20 s). */
async function until (check: () => boolean, boundMs = 20_000): Promise<void> {
  const deadline = Date.now() + boundMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not reached within ${boundMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
