import { EventEmitter } from 'node:events'
import { createServer, type Server } from 'node:net'
import { describe, expect, it } from 'vitest'
import { main, type CliIo } from '../../src/cli.js'

/**
 * `rqs serve` tells the executable once it is ready (the bundled executable
 * then writes its code cache): called once, after it listens, never by a
 * start that fails.
 */
describe('rqs serve tells when it has started', () => {
  it('calls `started` once, when it answers requests', async () => {
    let stdout = ''
    let calls = 0
    let ready = (): void => {}
    const started = new Promise<void>((resolve) => { ready = resolve })
    const signals = new EventEmitter()
    const io: CliIo = {
      stdout: { write: (text: string) => { stdout += text } },
      stderr: { write: () => {} },
      signals,
      started: () => { calls++; ready() }
    }
    const exited = main(['serve', '--port', '0', '--host', '127.0.0.1', '--log-format', 'json'], {}, io)
    await started
    const origin = /Server listening at (http:\/\/[^"\s]+)/.exec(stdout)?.[1]
    expect(origin).toBeDefined()
    expect((await fetch(`${origin ?? ''}/healthz`)).status).toBe(200)
    signals.emit('SIGTERM', 'SIGTERM')
    expect(await exited).toBe(0)
    expect(calls).toBe(1)
  })

  it('has its SIGINT and SIGTERM handlers in place before it says it is listening', async () => {
    const signals = new EventEmitter()
    let handlersAtListening: number | undefined
    let ready = (): void => {}
    const started = new Promise<void>((resolve) => { ready = resolve })
    const io: CliIo = {
      stdout: {
        write: (text: string) => {
          if (text.includes('Server listening at')) handlersAtListening = signals.listenerCount('SIGTERM') + signals.listenerCount('SIGINT')
        }
      },
      stderr: { write: () => {} },
      signals,
      started: () => { ready() }
    }
    const exited = main(['serve', '--port', '0', '--host', '127.0.0.1', '--log-format', 'json'], {}, io)
    await started
    // Without a listener, a real process meeting SIGTERM right after that line would be killed by its default action.
    expect(handlersAtListening).toBe(2)
    signals.emit('SIGINT', 'SIGINT')
    expect(await exited).toBe(0)
  })

  it('does not call it when the server cannot start', async () => {
    const blocker = await new Promise<Server>((resolve) => { const s = createServer(); s.listen(0, '127.0.0.1', () => { resolve(s) }) })
    const address = blocker.address()
    const port = typeof address === 'object' && address !== null ? address.port : 0
    let calls = 0
    const io: CliIo = { stdout: { write: () => {} }, stderr: { write: () => {} }, signals: new EventEmitter(), started: () => { calls++ } }
    const code = await main(['serve', '--port', String(port), '--host', '127.0.0.1', '--log-format', 'json'], {}, io)
    blocker.close()
    await new Promise((resolve) => setImmediate(resolve))
    expect(code).toBe(1)
    expect(calls).toBe(0)
  })
})
