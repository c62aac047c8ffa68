import { expect } from 'vitest'
import type { ConfigOverrides } from '../../../src/options.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { FAST, register } from './delivery.suite.js'
import { eventually, Receiver } from './receiver.js'

export async function createStudent (origin: string, firstName: string): Promise<void> {
  expect((await request(`${origin}/students`, { method: 'POST', json: { firstName, lastName: 'L', age: 20 } })).status).toBe(201)
}

export async function createAddress (origin: string, name: string): Promise<void> {
  expect((await request(`${origin}/addresses`, { method: 'POST', json: { name, city: 'Kiel', postalCode: '24103' } })).status).toBe(201)
}

export function dispatcherOf (server: RunningServer): NonNullable<RunningServer['app']['webhookDispatcher']> {
  const dispatcher = server.app.webhookDispatcher
  if (dispatcher === undefined) throw new Error('webhooks are not served')
  return dispatcher
}

/**
 * Two instances on one store: one passes over changes by the webhooks it
 * listed last, which the other may have changed since. A round that finds a
 * webhook asking for changes passed over reads them from the log.
 */
export async function staleInstance (store: ConfigOverrides['store']): Promise<void> {
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
