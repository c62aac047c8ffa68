import { once } from 'node:events'
import { createServer, type Server, type Socket } from 'node:net'

/*
 * Network faults for the outage tests: a proxy in front of the database that
 * a test can cut, freeze and restore, and a port where nothing listens.
 */

export interface TcpProxy {
  port: number
  /** Connections accepted since start (refused ones included). */
  readonly attempts: number
  /** Drops every open connection and refuses new ones, as a database outage would. */
  cut: () => void
  /** Stops all traffic without closing anything, as a network that drops packets would. */
  freeze: () => void
  restore: () => void
  close: () => Promise<void>
}

/** A loopback TCP proxy to `target`, which a test can cut and restore. */
export async function startTcpProxy (targetHost: string, targetPort: number): Promise<TcpProxy> {
  const open = new Set<Socket>()
  let up = true
  let frozen = false
  let attempts = 0
  const server: Server = createServer((client) => {
    attempts++
    if (!up) { client.destroy(); return }
    open.add(client)
    if (frozen) { client.on('error', () => {}).pause(); return } // accepted, never answered
    const upstream = new (client.constructor as typeof Socket)()
    open.add(upstream)
    const drop = (): void => { client.destroy(); upstream.destroy(); open.delete(client); open.delete(upstream) }
    client.on('error', drop).on('close', drop)
    upstream.on('error', drop).on('close', drop)
    upstream.connect(targetPort, targetHost, () => { client.pipe(upstream).pipe(client) })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('proxy did not bind')
  return {
    port: address.port,
    get attempts () { return attempts },
    cut: () => {
      up = false
      for (const s of open) s.destroy()
      open.clear()
    },
    freeze: () => {
      frozen = true
      for (const s of open) { s.unpipe(); s.pause() }
    },
    restore: () => {
      up = true
      frozen = false
    },
    close: async () => {
      up = false
      for (const s of open) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

/** A loopback port with nothing listening on it. */
export async function closedPort (): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
