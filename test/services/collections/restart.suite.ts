import { expect } from 'vitest'
import { request } from '../../helpers/server.js'
import { runMain, serveMain } from '../../helpers/cli.js'
import { declarationFiles } from './fixture.js'

/**
 * Issue 21, item 3: a declared collection survives a restart of a durable
 * store; a changed declaration migrates what it can (an added optional field)
 * and refuses, with exit 2 and one line, what would lose or reinterpret
 * stored data.
 */
const files = declarationFiles()
const declare = (properties: Record<string, unknown>, required: string[]): unknown => ({ collections: { books: { schema: { type: 'object', properties, required }, ids: 'sequence' } } })
const title = { type: 'string', minLength: 1, maxLength: 200 }

/** The story of one collection across four starts of `rqs serve` on one durable store (also run on PostgreSQL: restart-pg.test.ts). */
export async function acrossRestarts (store: string): Promise<void> {
  {
    const first = files.write('v1.json', declare({ title, year: { type: 'integer' } }, ['title']))
    let server = await serveMain(['--store', store, '--collections', first])
    const created = await request(`${server.origin}/books`, { method: 'POST', json: { title: 'Dune', year: 1965 } })
    expect(created.status).toBe(201)
    expect(await server.stop()).toBe(0)

    // An optional field added: the file is migrated, the old record lacks it, a new one has it.
    const second = files.write('v2.json', declare({ title, year: { type: 'integer' }, isbn: { type: 'string', maxLength: 17 } }, ['title']))
    server = await serveMain(['--store', store, '--collections', second])
    expect((await request(`${server.origin}/books/1`)).body).toEqual({ id: 1, title: 'Dune', year: 1965 })
    const next = await request(`${server.origin}/books`, { method: 'POST', json: { title: 'Emma', year: 1815, isbn: '978-0141439587' } })
    expect(next.body).toEqual({ id: 2, title: 'Emma', year: 1815, isbn: '978-0141439587' })
    expect((await request(`${server.origin}/books?isbn=978-0141439587`)).body.items.map((b: { id: number }) => b.id)).toEqual([2])
    expect(await server.stop()).toBe(0)

    // A type changed: refused before listening, one line naming the change, exit 2; the data stays.
    const third = files.write('v3.json', declare({ title, year: { type: 'string' }, isbn: { type: 'string', maxLength: 17 } }, ['title']))
    const refused = await runMain(['serve', '--port', '0', '--store', store, '--collections', third])
    expect(refused.code).toBe(2)
    expect(refused.stderr.trim().split('\n')).toHaveLength(1)
    expect(refused.stderr).toContain('collection books no longer matches the one stored in')
    expect(refused.stderr).toContain('year: type integer → string')

    server = await serveMain(['--store', store, '--collections', second])
    expect((await request(`${server.origin}/books`)).body.items).toHaveLength(2)
    expect(await server.stop()).toBe(0)
  }
}
