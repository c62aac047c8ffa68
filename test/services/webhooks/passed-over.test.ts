import { afterAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { startServer } from '../../helpers/server.js'
import { tempDir } from '../../stores/harness.js'
import { FAST, register } from './delivery.suite.js'
import { createAddress, createStudent, dispatcherOf, staleInstance } from './passed-over.suite.js'
import { eventually, Receiver } from './receiver.js'

const tmp = tempDir()
afterAll(() => { tmp.remove() })

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

describe('webhooks: two instances on one SQLite file', () => {
  it('deliver the changes one passed over by the webhooks it listed last, once a round finds a webhook the other registered for them', async () => {
    await staleInstance({ kind: 'sqlite', path: join(tmp.dir, 'stale.db'), url: '' })
  }, 30_000)
})
