import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, tempDir, type TestDatabase } from '../stores/harness.js'
import { spawnServer } from '../helpers/process.js'
import { request } from '../helpers/server.js'

/**
 * kill -9 while writes of every kind are in flight. Several clients create,
 * replace and delete students and addresses at once, each write with its own
 * Idempotency-Key, and the server is SIGKILLed as soon as enough writes have
 * been acknowledged. After a restart on the same store, each client retries
 * the one write that had no answer, with the same key, and then the store
 * must hold exactly what the acknowledged writes say: nothing acknowledged
 * lost, nothing written twice. `--student-ids sequence`, because under the
 * spec's rule a create after a delete may overwrite a record by design.
 */
const CLIENTS = 6
const ACKNOWLEDGED_BEFORE_KILL = 120
/** Address PUTs use a private id range per client. */
const PUT_BASE = 10_000_000

interface StudentRecord { id: number, firstName: string, lastName: string, age: number }
interface AddressRecord { id: number, name: string, city: string, postalCode: string }

interface Write {
  method: string
  path: string
  body?: unknown
  key: string
  expected: number[]
  /** Applies the acknowledged answer to the model. */
  apply: (body: any) => void
}

class Model {
  readonly students = new Map<number, StudentRecord>()
  readonly addresses = new Map<number, AddressRecord>()
}

/** The next write of client `c` (its `n`th), chosen from what it owns. */
function nextWrite (model: Model, c: number, n: number, own: { students: number[], addresses: number[] }): Write {
  const key = `kill-${c}-${n}`
  const pick = <T>(list: T[]): T => list[n % list.length] as T
  switch (n % 6) {
    case 1:
      if (own.students.length > 0) {
        const id = pick(own.students)
        const body = { id, firstName: `F${c}`, lastName: `Replaced ${n}`, age: n % 120 }
        return { method: 'PUT', path: '/students', body, key, expected: [200], apply: () => { model.students.set(id, body) } }
      }
      break
    case 2: {
      const body = { name: `N${c}-${n}`, city: `C${n % 7}`, postalCode: `P${n}` }
      return { method: 'POST', path: '/addresses', body, key, expected: [201], apply: (a) => { own.addresses.push(a.id); model.addresses.set(a.id, a) } }
    }
    case 3: {
      const id = PUT_BASE + c * 100_000 + (n % 5)
      const body = { name: `Put ${c}-${n}`, city: `City ${n}`, postalCode: `${n}` }
      return {
        method: 'PUT',
        path: `/addresses/${id}`,
        body,
        key,
        expected: [200, 201],
        apply: (a) => { if (!own.addresses.includes(id)) own.addresses.push(id); model.addresses.set(id, a) }
      }
    }
    case 4:
      if (own.students.length > 2) {
        const id = own.students.shift() as number
        return { method: 'DELETE', path: `/students/${id}`, key, expected: [200], apply: () => { model.students.delete(id) } }
      }
      break
    case 5:
      if (own.addresses.length > 2) {
        const id = own.addresses.shift() as number
        return { method: 'DELETE', path: `/addresses/${id}`, key, expected: [204], apply: () => { model.addresses.delete(id) } }
      }
      break
  }
  const body = { firstName: `F${c}`, lastName: `L${n}`, age: n % 120 }
  return { method: 'POST', path: '/students', body, key, expected: [201], apply: (envelope) => { own.students.push(envelope.body.id); model.students.set(envelope.body.id, envelope.body) } }
}

async function send (origin: string, write: Write): Promise<{ status: number, body: any }> {
  const headers = { 'idempotency-key': write.key }
  const res = await request(`${origin}${write.path}`, { method: write.method, json: write.body, headers, signal: AbortSignal.timeout(20_000) })
  return { status: res.status, body: res.body }
}

async function allAddresses (origin: string): Promise<AddressRecord[]> {
  const out: AddressRecord[] = []
  let next: string | undefined = '/addresses?limit=500'
  for (let pages = 0; next !== undefined && pages < 100; pages++) {
    const page = await request(`${origin}${next}`)
    out.push(...page.body.items)
    next = page.body.next
  }
  return out
}

interface Durable { name: string, skip?: string, setup: () => Promise<string>, teardown: () => Promise<void> }

const tmp = tempDir()
let database: TestDatabase | undefined
const durableStores: Durable[] = [
  { name: 'sqlite', setup: async () => `sqlite:${join(tmp.dir, 'mixed.db')}`, teardown: async () => { tmp.remove() } },
  {
    name: 'postgres',
    skip: SKIP_POSTGRES ? POSTGRES_SKIP_REASON : undefined,
    setup: async () => { database = await createTestDatabase(); return database.url },
    teardown: async () => { await database?.drop() }
  }
]

for (const store of durableStores) {
  describe.skipIf(store.skip !== undefined)(`${store.name} store, kill -9 during mixed writes${store.skip === undefined ? '' : ` (${store.skip})`}`, () => {
    let spec: string
    beforeAll(async () => { spec = await store.setup() })
    afterAll(store.teardown)

    it('finds every acknowledged write after a restart, and retried writes land exactly once', async () => {
      const args = ['--store', spec, '--student-ids', 'sequence']
      const model = new Model()
      const pending: Write[] = []
      let acknowledged = 0
      let killed = false
      const first = await spawnServer(args)

      const client = async (c: number): Promise<void> => {
        const own = { students: [] as number[], addresses: [] as number[] }
        for (let n = 0; !killed; n++) {
          const write = nextWrite(model, c, n, own)
          let answer
          try {
            answer = await send(first.origin, write)
          } catch {
            pending.push(write) // no answer: the server died with this write in flight
            return
          }
          expect(write.expected, `${write.method} ${write.path}: ${JSON.stringify(answer.body)}`).toContain(answer.status)
          write.apply(answer.body)
          if (++acknowledged === ACKNOWLEDGED_BEFORE_KILL) {
            killed = true
            first.child.kill('SIGKILL')
          }
        }
      }
      try {
        await Promise.all(Array.from({ length: CLIENTS }, async (_, c) => { await client(c) }))
      } finally {
        expect(await first.stop('SIGKILL')).toBe('SIGKILL')
      }
      expect(acknowledged).toBeGreaterThanOrEqual(ACKNOWLEDGED_BEFORE_KILL)

      const second = await spawnServer(args)
      try {
        for (const write of pending) {
          const answer = await send(second.origin, write)
          expect(write.expected, `retry of ${write.method} ${write.path}: ${JSON.stringify(answer.body)}`).toContain(answer.status)
          write.apply(answer.body)
        }
        const students = (await request(`${second.origin}/students`)).body.body
        expect(students).toEqual([...model.students.values()].sort((a, b) => a.id - b.id))
        expect(await allAddresses(second.origin)).toEqual([...model.addresses.values()].sort((a, b) => a.id - b.id))
        // And the id sequence went on from the highest id issued.
        const after = await request(`${second.origin}/students`, { method: 'POST', json: { firstName: 'After', lastName: 'Restart', age: 1 } })
        expect(after.body.body.id).toBeGreaterThan(Math.max(-1, ...model.students.keys()))
      } finally {
        await second.stop()
      }
    }, 120_000)
  })
}
