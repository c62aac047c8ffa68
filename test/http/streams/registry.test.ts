import { EventEmitter } from 'node:events'
import { describe, expect, it } from 'vitest'
import { StreamRegistry, type StreamSlot } from '../../../src/http/streams/index.js'
import type { Authenticator } from '../../../src/http/security/index.js'

/**
 * The server's registry of long-lived streams (issue 36), on its own: one
 * budget for every kind, a kind's own cap within it, slots given back once,
 * and the ends it asks of a stream whose credential goes. The HTTP behaviour
 * (429/503 before a stream, the transports' end messages) is tested in
 * test/graphql/streams.test.ts and test/services/events/streams.test.ts.
 */

const slot = (taken: StreamSlot | string): StreamSlot => {
  if (typeof taken === 'string') throw new Error(`refused: ${taken}`)
  return taken
}

describe('StreamRegistry', () => {
  it('counts every kind against one budget, per client first, then in all, then a kind\'s own cap; a slot is given back once', () => {
    const registry = new StreamRegistry({ maxStreams: 4, maxStreamsPerClient: 2 })
    registry.limitKind('graphql', 1)
    const a1 = slot(registry.reserve('events', { client: 'a' }))
    slot(registry.reserve('graphql', { client: 'a' }))
    expect(registry.reserve('events', { client: 'a' })).toBe('client-full')
    expect(registry.reserve('graphql', { client: 'b' })).toBe('server-full') // the kind's cap, within the budget
    slot(registry.reserve('events', { client: 'b' }))
    slot(registry.reserve('events', { client: 'c' }))
    expect(registry.reserve('events', { client: 'd' })).toBe('server-full')
    expect([registry.open, registry.openOfKind('graphql'), registry.maxOfKind('graphql'), registry.maxOfKind('events')]).toEqual([4, 1, 1, 4])
    a1.release()
    a1.release()
    expect(registry.open).toBe(3)
    slot(registry.reserve('events', { client: 'a' }))
    expect(registry.reserve('events', { client: 'e' })).toBe('server-full')
  })

  it('ends the streams whose token a reload withdrew, and a JWT\'s stream at its expiry; a released slot is never ended', async () => {
    const tokenFile = new EventEmitter()
    const valid = new Set(['kept'])
    const authenticator = { tokenFile, stillValid: (p: { name: string }) => valid.has(p.name) } as unknown as Authenticator
    const registry = new StreamRegistry({ maxStreams: Infinity, maxStreamsPerClient: Infinity, authenticator })
    const ended: string[] = []
    const open = (name: string, kind: string, expiresAt?: number): StreamSlot => {
      const s = slot(registry.reserve(kind, { client: `token ${name}`, principal: { name, kind: 'token', scopes: ['read'], expiresAt } as never }))
      s.attach((reason) => { ended.push(`${kind} ${name} ${reason}`); s.release() })
      return s
    }
    open('gone', 'events')
    open('gone', 'graphql')
    open('kept', 'graphql')
    open('left', 'graphql').release()
    slot(registry.reserve('events', { client: 'address 192.0.2.1' })) // anonymous: nothing to withdraw
    tokenFile.emit('reloaded')
    expect(ended).toEqual(['events gone revoked', 'graphql gone revoked'])
    expect(registry.open).toBe(2)

    valid.add('jwt')
    open('jwt', 'graphql', Date.now() + 30)
    await expect.poll(() => ended.at(-1)).toBe('graphql jwt expired')
    registry.close()
    expect(registry.open).toBe(0)
  })
})
