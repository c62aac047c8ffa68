import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { request, startServer, type RunningServer } from '../helpers/server.js'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, tempDir, type TestDatabase } from './harness.js'
import type { ConfigOverrides } from '../../src/options.js'

/**
 * Issue 19: the same list query answers the same on every store, over HTTP:
 * `q`, `contains` and `X-Total-Count` with text whose case folding JavaScript's
 * toLowerCase and PostgreSQL's lower() disagreed on, and a cursor holding text
 * no record can hold (PostgreSQL refused U+0000, the others walked on).
 */
interface Kind {
  name: string
  skip?: string
  open: () => Promise<{ store: ConfigOverrides['store'], done: () => Promise<void> }>
}

const KINDS: Kind[] = [
  { name: 'memory', open: async () => ({ store: undefined, done: async () => {} }) },
  {
    name: 'sqlite',
    open: async () => {
      const tmp = tempDir()
      return { store: { kind: 'sqlite', path: join(tmp.dir, 'search.db') }, done: async () => { tmp.remove() } }
    }
  },
  {
    name: 'postgres',
    skip: SKIP_POSTGRES ? POSTGRES_SKIP_REASON : undefined,
    open: async () => {
      const database: TestDatabase = await createTestDatabase()
      return { store: { kind: 'postgres', url: database.url }, done: async () => { await database.drop() } }
    }
  }
]

const PEOPLE = [['Σίσυφος', 'Κόρινθος'], ['Istanbul', 'Straße'], ['İzmir', 'ﬁsh'], ['ΣΊΣΥΦΟΣ', 'STRASSE'], ['Ada', 'Lovelace']]

const cursorOf = (parts: unknown[]): string => Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url')

for (const kind of KINDS) {
  describe.skipIf(kind.skip !== undefined)(`${kind.name} store: search over HTTP${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
    let server: RunningServer
    let done: () => Promise<void>
    beforeAll(async () => {
      const opened = await kind.open()
      done = opened.done
      server = await startServer(opened.store === undefined ? {} : { store: opened.store })
      for (const [firstName, lastName] of PEOPLE) {
        expect((await request(`${server.origin}/students`, { method: 'POST', json: { firstName, lastName, age: 30 } })).status).toBe(201)
      }
    })
    afterAll(async () => {
      await server?.close()
      await done?.()
    })

    const ids = async (query: string): Promise<{ ids: number[], total: string | null }> => {
      const res = await request(`${server.origin}/v2/students?${query}&count=true&limit=10`)
      expect(res.status, res.text).toBe(200)
      return { ids: res.body.items.map((s: { id: number }) => s.id), total: res.headers.get('x-total-count') }
    }

    it.each([
      ['q=ΣΊΣΥΦΟΣ', [0, 3]],
      ['q=σίσυφος', [0, 3]],
      ['q=STRASSE', [1, 3]],
      ['q=İstanbul', []],
      ['q=istanbul', [1]],
      ['q=FISH', [2]],
      ['lastName[contains]=ß', [1, 3]],
      ['firstName[contains]=i̇', [2]]
    ])('%s finds the same records, and counts them the same', async (query, expected) => {
      expect(await ids(query)).toEqual({ ids: expected, total: String(expected.length) })
    })

    it.each([
      ['U+0000', 'a\u0000'],
      ['an unpaired surrogate', 'a\ud800']
    ])('refuses a cursor holding %s as one it did not issue (400 INVALID_CURSOR)', async (_what, text) => {
      const res = await request(`${server.origin}/v2/students?sort=firstName&limit=2&cursor=${cursorOf(['firstName', text, 0])}`)
      expect(res.status, res.text).toBe(400)
      expect(res.body.type).toMatch(/\/errors\/INVALID_CURSOR$/)
      const v1 = await request(`${server.origin}/students?sort=firstName&limit=2&cursor=${cursorOf(['firstName', text, 0])}`)
      expect(v1.status).toBe(400)
      expect(v1.body.body).toContain('cursor is not one this list issued')
    })

    it('still takes a cursor it issued for that text', async () => {
      const first = await request(`${server.origin}/v2/students?sort=firstName&limit=2`)
      const next = await request(`${server.origin}${first.body.next as string}`)
      expect(next.status).toBe(200)
      expect(next.body.items.length).toBeGreaterThan(0)
    })
  })
}
