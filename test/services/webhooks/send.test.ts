import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { post } from '../../../src/services/webhooks/send.js'

/** One attempt against a receiver on loopback that misbehaves on purpose. */
describe('a webhook attempt', () => {
  let server: Server
  let base: string
  const seen: string[] = []
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.url ?? '')
      if (req.url === '/redirect') { res.writeHead(302, { location: '/elsewhere' }); res.end(); return }
      if (req.url === '/silent') return // never answers
      if (req.url === '/chatty') { res.writeHead(200); res.end(Buffer.alloc(1024 * 1024, 'x')); return }
      res.writeHead(204)
      res.end()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  const target = { address: '127.0.0.1', family: 4 as const }

  it('does not follow a redirect: the 3xx is the answer', async () => {
    expect(await post(new URL(`${base}/redirect`), target, {}, '{}', 2_000)).toMatchObject({ status: 302, error: null })
    expect(seen).not.toContain('/elsewhere')
  })

  it('gives up after the timeout', async () => {
    const result = await post(new URL(`${base}/silent`), target, {}, '{}', 200)
    expect(result).toMatchObject({ status: null, error: 'no answer within 200 ms' })
    expect(result.durationMs).toBeGreaterThanOrEqual(190)
  })

  it('reads a long answer only up to its limit', async () => {
    expect(await post(new URL(`${base}/chatty`), target, {}, '{}', 2_000)).toMatchObject({ status: 200 })
  })

  it('reports a refused connection', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    expect(await post(new URL(`http://127.0.0.1:${port}/`), target, {}, '{}', 2_000)).toMatchObject({ status: null, error: 'ECONNREFUSED' })
  })

  it('connects to the address checked, whatever the name would resolve to now', async () => {
    // "rebound.invalid" resolves nowhere: the attempt reaches the receiver through the pinned address.
    const url = new URL(`${base.replace('127.0.0.1', 'rebound.invalid')}/pinned`)
    expect(await post(url, target, {}, '{}', 2_000)).toMatchObject({ status: 204 })
    expect(seen).toContain('/pinned')
  })
})
