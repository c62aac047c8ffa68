import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IF_PRESENT, planChange, SchemaChangedError, userTableOf, type CollectionDeclaration, type RecordStore, type SchemaChanges, type SchemaHistoryEntry, type SchemaMove } from '../../src/domain/index.js'
import { storeKinds } from './harness.js'

/**
 * PostgreSQL shared by several instances: a collection pinned at a version of
 * its declaration writes only while the database holds that version. Every
 * kind of write (one statement, conditional, keyed, bulk, filtered, inside a
 * unit of work) is refused with SchemaChangedError once another instance
 * moved the version, writes nothing, and tells the instance to follow; the
 * database refuses a change planned from a version it no longer holds.
 */
const [kind] = storeKinds(['postgres'])
const NOTES: CollectionDeclaration = {
  name: 'guarded',
  table: userTableOf('guarded'),
  fields: { title: { type: 'string', required: true }, stars: { type: 'integer', required: false } },
  ids: 'sequence',
  firstId: 1,
  putCreates: false,
  keptOnUpdate: []
}

function entryOf (version: number, declaration = NOTES): SchemaHistoryEntry {
  return { name: declaration.name, version, source: { version }, at: new Date().toISOString(), caller: 'test', plan: planChange(declaration.name, undefined, declaration) }
}

/** The same collection under another name, for a test of its own. */
const SHELVES: CollectionDeclaration = { ...NOTES, name: 'guarded_run', table: userTableOf('guarded_run') }

const refusal = async (write: () => Promise<unknown>): Promise<unknown> => await write().then(() => undefined, (err: unknown) => err)

describe.skipIf(kind?.skip !== undefined)(`postgres store, writes guarded by the declaration's version${kind?.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
  beforeAll(async () => { await kind?.setup() })
  afterAll(async () => { await kind?.teardown() })

  it('pinned at a run of versions (this instance\'s own change its writes fit), writes while the database holds any of them', async () => {
    const stores = await kind!.fresh({})
    const schema = stores.schema as SchemaChanges
    try {
      const store = await schema.apply(planChange(SHELVES.name, undefined, SHELVES), undefined, SHELVES, entryOf(1, SHELVES)) as RecordStore
      schema.shared!.pin(SHELVES.name, 1, 2)
      expect((await store.create({ title: 'before the switch' })).outcome).toBe('created')
      await schema.record(entryOf(2, SHELVES))
      expect((await store.create({ title: 'after the switch' })).outcome).toBe('created')
      await schema.record(entryOf(3, SHELVES))
      expect(await refusal(async () => await store.create({ title: 'a version later' }))).toBeInstanceOf(SchemaChangedError)
      expect((await store.query({ where: [], sort: [] })).map((r) => r.title)).toEqual(['before the switch', 'after the switch'])
    } finally {
      await stores.close()
    }
  })

  it('writes while the database holds the pinned version; refuses every kind of write once it moved, writing nothing', async () => {
    const stores = await kind!.fresh({})
    const schema = stores.schema as SchemaChanges
    const heard: SchemaMove[] = []
    const stop = schema.shared!.watch((why) => { heard.push(why) })
    try {
      const store = await schema.apply(planChange(NOTES.name, undefined, NOTES), undefined, NOTES, entryOf(1)) as RecordStore
      schema.shared!.pin(NOTES.name, 1)
      const all = { where: [], sort: [] }
      expect((await store.create({ title: 'a' })).outcome).toBe('created')
      expect((await store.put(1, { title: 'a2', stars: 2 })).outcome).toBe('replaced')
      expect((await store.put(1, { title: 'a3' }, IF_PRESENT)).outcome).toBe('replaced')
      expect(await store.createMany([{ title: 'b' }, { title: 'c' }])).toHaveLength(2)
      expect(await store.updateWhere({ where: [{ field: 'title', op: 'eq', value: 'b' }] }, { stars: 5 })).toBe(1)
      expect(await store.deleteWhere({ where: [{ field: 'title', op: 'eq', value: 'c' }] })).toBe(1)
      expect((await store.delete(2)).outcome).toBe('deleted')
      const held = await store.query(all)
      expect(held.map((r) => r.title)).toEqual(['a3'])

      // Another instance changed the declaration: version 2 in the database.
      await schema.record(entryOf(2))
      const writes: Array<[string, () => Promise<unknown>]> = [
        ['create', async () => await store.create({ title: 'x' })],
        ['put', async () => await store.put(1, { title: 'x' })],
        ['conditional put', async () => await store.put(1, { title: 'x' }, IF_PRESENT)],
        ['delete', async () => await store.delete(1)],
        ['createMany', async () => await store.createMany([{ title: 'x' }])],
        ['updateWhere', async () => await store.updateWhere({ where: [] }, { stars: 1 })],
        ['deleteWhere', async () => await store.deleteWhere({ where: [] })],
        ['unit of work', async () => await stores.atomically(async (unit) => await unit.collections.get(NOTES.name)!.create({ title: 'x' }))]
      ]
      for (const [name, write] of writes) {
        const err = await refusal(write)
        expect(err, name).toBeInstanceOf(SchemaChangedError)
        expect((err as SchemaChangedError).collection, name).toBe(NOTES.name)
      }
      expect(await store.query(all)).toEqual(held)
      expect(heard).toContain('refused')
      // Reads are not guarded.
      expect(await store.get(1)).toMatchObject({ title: 'a3' })

      // Pinned at the version held, it writes again.
      schema.shared!.pin(NOTES.name, 2)
      expect((await store.create({ title: 'd' })).outcome).toBe('created')
    } finally {
      stop()
      await stores.close()
    }
  })

  it('refuses to record a version that does not follow the one held: a change planned from a declaration changed since', async () => {
    const stores = await kind!.fresh({})
    const schema = stores.schema as SchemaChanges
    try {
      const held = (await schema.saved()).find((s) => s.name === NOTES.name)?.version ?? 0
      await schema.record(entryOf(held + 1))
      expect(await refusal(async () => { await schema.record(entryOf(held + 3)) })).toBeInstanceOf(SchemaChangedError)
      // The same version with the same declaration again (instances starting together) is no change.
      await schema.record(entryOf(held + 1))
      expect((await schema.saved()).find((s) => s.name === NOTES.name)?.version).toBe(held + 1)
    } finally {
      await stores.close()
    }
  })
})
