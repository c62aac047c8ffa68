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
  /** Accepts and forwards again; connections a freeze held carry on where they stopped, as over a network that is back. */
  restore: () => void
  close: () => Promise<void>
}

/** A loopback TCP proxy to `target`, which a test can cut and restore. */
export async function startTcpProxy (targetHost: string, targetPort: number): Promise<TcpProxy> {
  const open = new Set<Socket>()
  /** Connections a freeze holds: each carries on when restored (accepted ones connect upstream then). */
  let held: Array<() => void> = []
  /** How to pipe each forwarded client and its upstream (again, after a freeze). */
  const piped = new Map<Socket, () => void>()
  let up = true
  let frozen = false
  let attempts = 0
  const forward = (client: Socket): void => {
    const upstream = new (client.constructor as typeof Socket)()
    open.add(upstream)
    const drop = (): void => { client.destroy(); upstream.destroy(); open.delete(client); open.delete(upstream); piped.delete(client) }
    client.on('error', drop).on('close', drop)
    upstream.on('error', drop).on('close', drop)
    upstream.connect(targetPort, targetHost, () => {
      const flow = (): void => { if (!client.destroyed && !upstream.destroyed) client.pipe(upstream).pipe(client) }
      piped.set(client, flow)
      if (frozen) held.push(flow); else flow()
    })
  }
  const server: Server = createServer((client) => {
    attempts++
    if (!up) { client.destroy(); return }
    open.add(client)
    if (frozen) { // accepted, not answered until restored
      client.on('error', () => {}).on('close', () => { open.delete(client) }).pause()
      held.push(() => { if (!client.destroyed) forward(client) })
      return
    }
    forward(client)
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
      piped.clear()
      held = []
    },
    freeze: () => {
      if (frozen) return
      frozen = true
      for (const s of open) { s.unpipe(); s.pause() }
      for (const flow of piped.values()) held.push(flow)
    },
    restore: () => {
      up = true
      if (!frozen) return
      frozen = false
      const resumed = held
      held = []
      for (const carryOn of resumed) carryOn()
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
