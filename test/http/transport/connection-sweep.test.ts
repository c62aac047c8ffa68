import { connect, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { ConnectionSweep } from '../../../src/http/transport/connection-sweep.js'

/** Sends raw HTTP on a fresh connection; resolves with what came back once the server closes it, `until` matches it, or `untilMs` passes. */
function rawExchange (port: number, request: string, opts: { untilMs: number, until?: RegExp, read?: boolean }): Promise<{ text: string, closedAfterMs: number | undefined, socket: Socket }> {
  return new Promise((resolve) => {
    const started = Date.now()
    let text = ''
    let closedAfterMs: number | undefined
    const socket = connect(port, '127.0.0.1', () => { socket.write(request) })
    socket.on('error', () => {})
    if (opts.read === false) socket.pause()
    else socket.on('data', (chunk: Buffer) => { text += chunk.toString('latin1'); if (opts.until?.test(text) === true) done() })
    const done = (): void => { clearTimeout(timer); resolve({ text, closedAfterMs, socket }) }
    socket.on('close', () => { closedAfterMs = Date.now() - started; done() })
    const timer = setTimeout(done, opts.untilMs)
  })
}

describe('the connection sweep: request deadlines and the idle limit through the server\'s connections', () => {
  let app: FastifyInstance | undefined
  let sweep: ConnectionSweep | undefined
  afterEach(async () => {
    sweep?.stop()
    await app?.close()
    app = undefined
  })

  async function serve (idleMs: number): Promise<{ port: number, checked: string[], idled: boolean[] }> {
    const checked: string[] = []
    /** For each connection closed as idle: whether it was sending an answer. */
    const idled: boolean[] = []
    sweep = new ConnectionSweep(20, (reply: FastifyReply, elapsedMs: number) => {
      checked.push(reply.request.url)
      if (reply.sent) return true
      if (elapsedMs < 200) return false
      void reply.code(503).send('late')
      return true
    }, { ms: idleMs, onIdle: (socket) => { idled.push((socket as Socket & { _httpMessage?: unknown })._httpMessage != null); socket.destroy() } })
    app = Fastify({ forceCloseConnections: true })
    sweep.attach(app.server)
    const watching = sweep
    app.addHook('onRequest', (_request, reply, done) => { watching.watch(reply); done() })
    app.get('/fast', async () => 'ok')
    app.get('/never', async (_request, reply) => { await new Promise(() => {}); return reply })
    // More than the socket buffers hold, for a client that does not read.
    app.get('/big', async (_request, reply) => reply.type('application/octet-stream').send(Buffer.alloc(32 * 1024 * 1024)))
    await app.listen({ port: 0, host: '127.0.0.1' })
    return { port: (app.server.address() as AddressInfo).port, checked, idled }
  }

  it('acts on a request past its deadline (not before), and never asks about an answered one', async () => {
    const { port, checked } = await serve(60_000)
    const fast = await rawExchange(port, 'GET /fast HTTP/1.1\r\nHost: x\r\n\r\n', { untilMs: 10_000, until: /\r\n\r\nok$/ })
    expect(fast.text).toMatch(/^HTTP\/1.1 200/)
    // Answered: its connection stays open (keep-alive), and the sweeps that follow (a 503 comes after ten and more) no longer see the request.
    const askedAboutFast = checked.filter((url) => url === '/fast').length
    const never = await rawExchange(port, 'GET /never HTTP/1.1\r\nHost: x\r\n\r\n', { untilMs: 10_000, until: /late$/ })
    expect(never.text).toMatch(/^HTTP\/1.1 503[\s\S]*late$/)
    fast.socket.destroy()
    never.socket.destroy()
    expect(fast.closedAfterMs).toBeUndefined()
    expect(checked.filter((url) => url === '/fast').length).toBe(askedAboutFast)
    expect(checked.filter((url) => url === '/never').length).toBeGreaterThan(1)
  })

  it('closes a busy connection on which nothing moves (a client that stops reading), and leaves a quiet one alone until then', async () => {
    const { port, idled } = await serve(400)
    // A quiet connection: answered, then open; nothing is closed as idle before the limit has passed.
    const quiet = await rawExchange(port, 'GET /fast HTTP/1.1\r\nHost: x\r\n\r\n', { untilMs: 10_000, until: /\r\n\r\nok$/ })
    expect(quiet.text).toMatch(/^HTTP\/1.1 200/)
    expect(quiet.closedAfterMs).toBeUndefined()
    expect(idled).toEqual([])
    // Past the limit, the connection of an answer its client stopped reading is closed (the client, not reading, does not see it yet).
    const stalled = await rawExchange(port, 'GET /big HTTP/1.1\r\nHost: x\r\n\r\n', { untilMs: 0, read: false })
    for (let i = 0; i < 200 && !idled.includes(true); i++) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(idled).toContain(true)
    stalled.socket.destroy()
    quiet.socket.destroy()
  })
})
