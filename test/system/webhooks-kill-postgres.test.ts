import { afterAll, describe, expect, it } from 'vitest'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, type TestDatabase } from '../stores/harness.js'
import { spawnServer, type ServerProcess } from '../helpers/process.js'
import { request } from '../helpers/server.js'
import { eventually, Receiver } from '../services/webhooks/receiver.js'

/**
 * Issue 34, "done when": two instances on one PostgreSQL deliver to a
 * receiver on loopback, and one of them is killed with SIGKILL mid-run:
 * every change still arrives at least once (the other instance takes over
 * the dead one's leased deliveries when the lease expires, and fans out the
 * changes it had not queued).
 */
const WRITES = 300
let database: TestDatabase | undefined
afterAll(async () => { await database?.drop() })

describe.skipIf(SKIP_POSTGRES)(`webhooks with an instance killed (SIGKILL)${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  it('delivers every change at least once', async () => {
    database = await createTestDatabase()
    const receiver = await new Receiver().listen()
    const args = ['--store', database.url, '--webhooks', '--webhook-allow-hosts', '127.0.0.1', '--webhook-timeout', '2s', '--webhook-lease', '3s']
    const servers: ServerProcess[] = [await spawnServer(args), await spawnServer(args)]
    const [a, b] = servers as [ServerProcess, ServerProcess]
    try {
      expect((await request(`${a.origin}/webhooks`, { method: 'POST', json: { url: receiver.url, events: ['addresses.created'] } })).status).toBe(201)
      const acknowledged: string[] = []
      let killed = false
      const write = async (i: number): Promise<void> => {
        // After the kill, every write goes to the survivor.
        const origin = killed || i % 2 === 1 ? b.origin : a.origin
        try {
          const res = await request(`${origin}/addresses`, { method: 'POST', json: { name: `N${i}`, city: 'Kiel', postalCode: '24103' } })
          if (res.status === 201) acknowledged.push(String(res.body.id))
        } catch {
          // The killed instance's connection: the write may or may not have committed.
        }
      }
      for (let i = 0; i < WRITES; i += 10) {
        await Promise.all(Array.from({ length: 10 }, async (_, j) => { await write(i + j) }))
        if (!killed && receiver.delivered().length >= WRITES / 3) {
          a.child.kill('SIGKILL')
          killed = true
        }
      }
      expect(killed).toBe(true)
      const deliveredIds = (): Set<string> => new Set(receiver.delivered().map((r) => String(JSON.parse(r.body).data.id)))
      await eventually(() => acknowledged.every((id) => deliveredIds().has(id)), 60_000)
      // Every change numbered is delivered: the sequence numbers have no gap.
      const seqs = [...new Set(receiver.delivered().map((r) => JSON.parse(r.body).seq as number))].sort((x, y) => x - y)
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1))
      expect(seqs.length).toBeGreaterThanOrEqual(acknowledged.length)
    } finally {
      for (const s of servers) await s.stop('SIGKILL')
      await receiver.close()
    }
  }, 180_000)
})
