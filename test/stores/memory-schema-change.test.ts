import { describe, expect, it } from 'vitest'
import { planChange, StoreUnavailableError, type CollectionDeclaration, type SchemaHistoryEntry } from '../../src/domain/index.js'
import { MemoryRecordStore } from '../../src/stores/memory/records.js'
import { MemorySchema } from '../../src/stores/memory/schema.js'

/** A collection changed while the server runs, on the memory store: no write is lost to the copy, or to the old store. */
const before: CollectionDeclaration = {
  name: 'books',
  table: 'books',
  fields: { title: { type: 'string', required: true } },
  ids: 'sequence',
  firstId: 1,
  putCreates: false,
  keptOnUpdate: []
}
const after: CollectionDeclaration = { ...before, fields: { ...before.fields, year: { type: 'integer', required: false } } }

function entryOf (declaration: CollectionDeclaration): SchemaHistoryEntry {
  return { name: declaration.name, version: 2, source: null, at: new Date().toISOString(), caller: 'test', plan: planChange(declaration.name, before, declaration) }
}

describe('a memory collection changed while writes arrive', () => {
  it('takes over a write that lands during the copy, and refuses (503) a write that reaches the old store after the swap', async () => {
    const collections = new Map<string, MemoryRecordStore>()
    let landed = false
    const schema = new MemorySchema(collections, (d) => new MemoryRecordStore(d))
    const old = await schema.open(before) as MemoryRecordStore
    for (let i = 0; i < 3; i++) await old.create({ title: `T${i}` })
    // The copy reads the records held in batches, turns of the event loop apart: a write lands on the old store there.
    const batches = old.batches.bind(old)
    old.batches = (query) => (async function * () {
      for await (const batch of batches(query)) {
        yield batch
        if (!landed) {
          landed = true
          await old.create({ title: 'during' })
        }
      }
    })()

    const plan = planChange('books', before, after)
    const next = await schema.apply(plan, before, after, entryOf(after))
    expect(landed).toBe(true)
    expect(collections.get('books')).toBe(next)
    const titles = (await next!.query({ where: [], sort: [] })).map((r) => r.title)
    expect(titles).toEqual(['T0', 'T1', 'T2', 'during'])

    await expect(old.create({ title: 'late' })).rejects.toBeInstanceOf(StoreUnavailableError)
    expect((await next!.query({ where: [], sort: [] })).map((r) => r.title)).not.toContain('late')
  })
})
