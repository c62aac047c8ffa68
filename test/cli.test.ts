import { connect } from 'node:net'
import { describe, expect, it } from 'vitest'
import { runCliToEnd, startServerProcess } from './helpers/process.js'
import { request } from './helpers/server.js'
import pkg from '../package.json' with { type: 'json' }

describe('rqs command line', () => {
  it('--help lists the options with their environment variables and exits 0', async () => {
    const res = await runCliToEnd(['--help'])
    expect(res.code).toBe(0)
    expect(res.stdout).toContain('Usage: rqs serve [options]')
    for (const flag of ['--port', '--host', '--students-base', '--assets-dir', '--body-limit']) expect(res.stdout).toContain(flag)
    expect(res.stdout).toContain('[env PORT]')
  })

  it('--version prints the package version', async () => {
    const res = await runCliToEnd(['--version'])
    expect(res.code).toBe(0)
    expect(res.stdout.trim()).toBe(pkg.version)
  })

  const bad: Array<[string, string[], NodeJS.ProcessEnv, RegExp]> = [
    ['an unknown flag', ['serve', '--prot', '80'], {}, /Unknown option '--prot'/],
    ['a non-numeric port', ['serve', '--port', 'eighty'], {}, /--port must be a non-negative integer/],
    ['a port out of range', ['serve', '--port', '70000'], {}, /--port must be between 0 and 65535/],
    ['a bad PORT variable', ['serve'], { PORT: 'x' }, /PORT must be a non-negative integer/],
    ['a bad base path', ['serve', '--students-base', 'students'], {}, /--students-base must be a path/],
    ['a bad body limit', ['serve', '--body-limit', 'lots'], {}, /--body-limit must be a size/],
    ['a bad log level', ['serve', '--log-level', 'loud'], {}, /--log-level must be one of/],
    ['no command', [], {}, /a command is required/],
    ['an unknown command', ['launch'], {}, /unknown command "launch"/]
  ]
  for (const [name, args, env, message] of bad) {
    it(`exits 2 with a clear message for ${name}`, async () => {
      const res = await runCliToEnd(args, env)
      expect(res.code).toBe(2)
      expect(res.stderr).toMatch(message)
    })
  }

  it('serves, logs structured JSON with request ids, and stops gracefully on SIGTERM with exit 0', async () => {
    const srv = await startServerProcess(['--access-log'])
    const res = await request(`${srv.origin}/students`, { headers: { 'x-request-id': 'trace-123' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-request-id')).toBe('trace-123')
    srv.child.kill('SIGTERM')
    const { code } = await srv.exited
    expect(code).toBe(0)
    const logs = srv.lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l))
    const access = logs.find((l) => l.msg === 'request completed')
    expect(access).toMatchObject({ reqId: 'trace-123', method: 'GET', url: '/students', statusCode: 200 })
    expect(logs.some((l) => l.msg?.includes('shutting down'))).toBe(true)
  })

  it('finishes an in-flight request before exiting on SIGTERM', async () => {
    const srv = await startServerProcess()
    const { port } = new URL(srv.origin)
    const body = JSON.stringify({ firstName: 'Ada', lastName: 'Lovelace', age: 36 })
    const socket = connect(Number(port), '127.0.0.1')
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
    let answer = ''
    socket.on('data', (c) => { answer += c.toString() })
    // Send the headers and half the body, signal, then the rest: the request is in flight during shutdown.
    socket.write(`POST /students HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body.slice(0, 10)}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
    srv.child.kill('SIGTERM')
    await new Promise((resolve) => setTimeout(resolve, 200))
    socket.end(body.slice(10))
    await new Promise<void>((resolve) => socket.once('close', () => resolve()))
    expect(answer).toMatch(/^HTTP\/1\.1 201/)
    expect(answer).toContain('"isSuccessful":true')
    const { code } = await srv.exited
    expect(code).toBe(0)
  })

  it('takes flags over environment variables over defaults', async () => {
    const srv = await startServerProcess(['--students-base', '/pupils'], { RQS_STUDENTS_BASE: '/learners' })
    try {
      expect((await request(`${srv.origin}/pupils`)).status).toBe(200)
      expect((await request(`${srv.origin}/learners`)).status).toBe(404)
    } finally {
      srv.child.kill('SIGTERM')
      await srv.exited
    }
  })
})
