import { once } from 'node:events'
import { createServer, Socket, type Server } from 'node:net'

/**
 * A loopback TCP proxy that can freeze the network the way a stalled link
 * does: bytes are held, not refused, and nothing is closed. Thawing delivers
 * the held bytes in order, as a network coming back would, so a statement
 * held on its way to PostgreSQL still arrives (and may commit) afterwards.
 * Freezes can be triggered by what a client sends (e.g. the moment a COMMIT
 * passes), so a test can stop the network at the worst moment on purpose.
 */
export interface FreezingProxy {
  port: number
  /** Freezes every connection, open and new. */
  freeze: () => void
  /**
   * Arms a freeze for the first client chunk containing `marker`: `before`
   * holds that chunk too, `after` lets it reach the server first. `scope`
   * freezes the whole network or only that connection (others keep working).
   * Resolves when it fired.
   */
  freezeOn: (marker: string, options: { when: 'before' | 'after', scope: 'all' | 'connection' }) => Promise<void>
  /** How many connections the server has closed (seen even while frozen: the bytes are held, the count is not). */
  readonly serverHangups: number
  /** Delivers everything held, in order, and forwards freely again. */
  thaw: () => void
  close: () => Promise<void>
}

interface Link {
  client: Socket
  upstream: Socket
  frozen: boolean
  /** Held chunks per direction, in arrival order; null marks an end of stream. */
  held: Array<{ to: Socket, chunk: Buffer | null }>
}

export async function startFreezingProxy (targetHost: string, targetPort: number): Promise<FreezingProxy> {
  const links = new Set<Link>()
  let networkFrozen = false
  let serverHangups = 0
  let trigger: { marker: string, when: 'before' | 'after', scope: 'all' | 'connection', fired: () => void } | undefined

  const deliver = (link: Link, to: Socket, chunk: Buffer | null): void => {
    if (link.frozen) { link.held.push({ to, chunk }); return }
    if (to.destroyed) return
    if (chunk === null) to.end()
    else to.write(chunk)
  }
  const freezeLink = (link: Link): void => { link.frozen = true }

  const server: Server = createServer((client) => {
    const upstream = new Socket()
    const link: Link = { client, upstream, frozen: networkFrozen, held: [] }
    links.add(link)
    const drop = (): void => {
      // A frozen network does not report a closed peer: the close waits in line like any byte.
      if (link.frozen) { link.held.push({ to: client.destroyed ? upstream : client, chunk: null }); return }
      client.destroy()
      upstream.destroy()
      links.delete(link)
    }
    client.on('error', drop).on('close', drop)
    upstream.on('error', drop).on('close', drop)
    client.on('data', (chunk: Buffer) => {
      const t = trigger
      if (t !== undefined && chunk.includes(t.marker)) {
        trigger = undefined
        const apply = (): void => {
          if (t.scope === 'all') { networkFrozen = true; for (const l of links) freezeLink(l) } else freezeLink(link)
          t.fired()
        }
        if (t.when === 'before') { apply(); deliver(link, upstream, chunk) } else { deliver(link, upstream, chunk); apply() }
        return
      }
      deliver(link, upstream, chunk)
    })
    client.on('end', () => { deliver(link, upstream, null) })
    upstream.on('data', (chunk: Buffer) => { deliver(link, client, chunk) })
    upstream.on('end', () => { serverHangups++; deliver(link, client, null) })
    upstream.connect(targetPort, targetHost)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('proxy did not bind')

  return {
    port: address.port,
    get serverHangups () { return serverHangups },
    freeze: () => {
      networkFrozen = true
      for (const link of links) freezeLink(link)
    },
    freezeOn: async (marker, options) => await new Promise<void>((resolve) => { trigger = { marker, ...options, fired: resolve } }),
    thaw: () => {
      networkFrozen = false
      trigger = undefined
      for (const link of links) {
        link.frozen = false
        const held = link.held.splice(0)
        for (const { to, chunk } of held) deliver(link, to, chunk)
      }
    },
    close: async () => {
      for (const link of links) { link.client.destroy(); link.upstream.destroy() }
      links.clear()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
