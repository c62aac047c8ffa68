import { afterAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import type { ConfigOverrides } from '../../../src/options.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { tempDir } from '../../stores/harness.js'
import { FAST, register } from './delivery.suite.js'
import { eventually, Receiver } from './receiver.js'

const tmp = tempDir()
afterAll(() => { tmp.remove() })

async function createStudent (origin: string, firstName: string): Promise<void> {
  expect((await request(`${origin}/students`, { method: 'POST', json: { firstName, lastName: 'L', age: 20 } })).status).toBe(201)
}

async function createAddress (origin: string, name: string): Promise<void> {
  expect((await request(`${origin}/addresses`, { method: 'POST', json: { name, city: 'Kiel', postalCode: '24103' } })).status).toBe(201)
}

function dispatcherOf (server: RunningServer): NonNullable<RunningServer['app']['webhookDispatcher']> {
  const dispatcher = server.app.webhookDispatcher
  if (dispatcher === undefined) throw new Error('webhooks are not served')
  return dispatcher
}

/**
 * With webhooks served, a change no enabled webhook asks for is not kept by
 * the dispatcher until its next round (kept, a few hundred such changes a
 * round outlived the young generation and cost every write of the other
 * collections a share of old-generation collections).
 */
describe('webhooks: the changes no webhook asks for', () => {
  it('are not kept (memory store), while the changes of the collection asked for are delivered in order', async () => {
    const receiver = await new Receiver().listen()
    const server = await startServer({ webhooks: FAST })
    const dispatcher = dispatcherOf(server)
    try {
      await register(server.origin, { url: receiver.url, events: ['students.*'] })
      await createStudent(server.origin, 'S0')
      await eventually(() => receiver.received.length === 1)
      // A round after the delivery listed the webhooks and let go of the student's change.
      await eventually(() => dispatcher.fedHeld === 0)
      for (let i = 0; i < 20; i++) {
        await createAddress(server.origin, `A${i}`)
        // Told of at once (the memory log delivers on a microtask after the write), and not kept.
        expect(dispatcher.fedHeld).toBe(0)
      }
      for (let i = 1; i <= 5; i++) {
        await createStudent(server.origin, `S${i}`)
        await createAddress(server.origin, `B${i}`)
      }
      await eventually(() => receiver.received.length === 6)
      await new Promise((resolve) => setTimeout(resolve, 200))
      const events = receiver.events().sort((a, b) => a.seq - b.seq)
      expect(events.map((e) => e.type)).toEqual(Array.from({ length: 6 }, () => 'students.created'))
      expect(events.map((e) => e.seq)).toEqual([1, 22, 24, 26, 28, 30])
    } finally {
      await server.close()
      await receiver.close()
    }
  })
})

/**
 * Two instances on one store: one passes over changes by the webhooks it
 * listed last, which the other may have changed since. A round that finds a
 * webhook asking for changes passed over reads them from the log.
 */
async function staleInstance (store: ConfigOverrides['store']): Promise<void> {
  const receiver = await new Receiver().listen()
  // No poll to speak of on the second instance: its rounds run only when its changes wake them, so its
  // patterns stay the ones it listed last until a change it passed over makes the catch-up round.
  const second = await startServer({ store, webhooks: { ...FAST, pollMs: 600_000 } })
  let first: RunningServer | undefined = await startServer({ store, webhooks: FAST })
  try {
    await register(second.origin, { url: receiver.url, events: ['students.*'] })
    await createStudent(second.origin, 'S0')
    await eventually(() => receiver.received.length === 1)
    // Before the webhook for addresses: passed over, and never its.
    for (let i = 0; i < 3; i++) await createAddress(second.origin, `Early${i}`)
    await new Promise((resolve) => setTimeout(resolve, 300))

    // Registered through the first instance, which then stops: the second was not told of it.
    await register(first.origin, { url: receiver.url, events: ['addresses.created'] })
    await first.close()
    first = undefined
    for (let i = 0; i < 5; i++) await createAddress(second.origin, `Late${i}`)
    await createStudent(second.origin, 'S1')
    await eventually(() => receiver.events().filter((e) => e.type === 'addresses.created').length === 5)
    await eventually(() => receiver.events().filter((e) => e.type === 'students.created').length === 2)
    await new Promise((resolve) => setTimeout(resolve, 300))
    // Different records: delivered in any order among them.
    const addresses = receiver.events().filter((e) => e.type === 'addresses.created').sort((a, b) => a.seq - b.seq)
    expect(addresses.map((e) => (e.data.record as { name: string }).name)).toEqual(['Late0', 'Late1', 'Late2', 'Late3', 'Late4'])
    expect(addresses.map((e) => e.seq)).toEqual([5, 6, 7, 8, 9])
    expect(receiver.received).toHaveLength(7)
  } finally {
    await first?.close()
    await second.close()
    await receiver.close()
  }
}

describe('webhooks: two instances on one SQLite file', () => {
  it('deliver the changes one passed over by the webhooks it listed last, once a round finds a webhook the other registered for them', async () => {
    await staleInstance({ kind: 'sqlite', path: join(tmp.dir, 'stale.db'), url: '' })
  }, 30_000)
})
