import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DanglingReferenceError, type Change, type CollectionImport, type ImportOutcome, type StoredRecord } from '../../src/domain/index.js'
import { fromFile } from '../../src/services/collections/config.js'
import { declarationFiles } from '../services/collections/fixture.js'
import type { Stores } from '../helpers/built-ins.js'
import { kindLabel, type StoreKind } from './harness.js'

/**
 * RecordStores.importAllOf on every store (`rqs import` of several files):
 * the collections' records are applied in the order given and committed
 * together, or none of them, their changes included, whether a later
 * source fails while it is read or the store refuses a later part.
 */
const ref = (collection: string): Record<string, unknown> => ({ type: 'integer', 'x-references': collection })
const SHELF = {
  collections: {
    shelves: { schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
    volumes: { schema: { type: 'object', properties: { title: { type: 'string' }, shelf: ref('shelves') }, required: ['title', 'shelf'] } }
  }
}
const declarations = fromFile(declarationFiles().write('shelves.json', SHELF), '--collections').declared.map((c) => c.declaration)

async function * batches (records: readonly StoredRecord[], failAfter?: Error): AsyncGenerator<StoredRecord[]> {
  yield [...records]
  if (failAfter !== undefined) throw failAfter
}

async function failure (work: Promise<unknown>): Promise<unknown> {
  return await work.then(() => { throw new Error('expected the import to fail') }, (err: unknown) => err)
}

export function importAllOfSuite (kinds: StoreKind[]): void {
  for (const kind of kinds) suiteOn(kind)
}

function suiteOn (kind: StoreKind): void {
  describe.skipIf(kind.skip !== undefined)(`${kindLabel(kind)} store, an import of several collections${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
    let stores: Stores
    beforeAll(async () => {
      await kind.setup()
      stores = await kind.fresh({ collections: declarations })
    })
    afterAll(async () => {
      await (stores as Stores | undefined)?.close()
      await kind.teardown()
    })
    const all = async (name: string): Promise<StoredRecord[]> => await stores.collections.get(name)?.query({ where: [], sort: [] }) ?? []
    /** The changes after `seq`, once `expected` arrived (PostgreSQL numbers them just after commit), or all there are after a moment. */
    const changesAfter = async (seq: number, expected: number): Promise<Change[]> => {
      for (let i = 0; ; i++) {
        const changes = await stores.changes.since(seq, 1000)
        if (changes.length >= expected || i === 20) return changes
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
    const parts = (volumes: readonly StoredRecord[], readFailure?: Error): CollectionImport[] => [
      { collection: 'shelves', source: batches([{ id: 1, name: 'Fiction' }, { id: 2, name: 'Poetry' }]) },
      { collection: 'volumes', source: batches(volumes, readFailure) }
    ]

    it('stores nothing of any collection when a later part names a missing record, or its source fails', async () => {
      const seq = (await stores.changes.window()).latest
      const refused = await failure(stores.importAllOf?.(parts([{ id: 1, title: 'Dune', shelf: 1 }, { id: 2, title: 'Ghost', shelf: 9 }])) ?? Promise.resolve())
      expect(refused).toBeInstanceOf(DanglingReferenceError)
      const broken = new Error('the file could not be read')
      expect(await failure(stores.importAllOf?.(parts([{ id: 1, title: 'Dune', shelf: 1 }], broken)) ?? Promise.resolve())).toBe(broken)
      expect(await all('shelves')).toEqual([])
      expect(await all('volumes')).toEqual([])
      expect(await changesAfter(seq, 1)).toEqual([])
    })

    it('applies the parts in order and commits them together, a change each, and says what each stored', async () => {
      const seq = (await stores.changes.window()).latest
      const outcomes: ImportOutcome[] = []
      const given = parts([{ id: 1, title: 'Dune', shelf: 1 }, { id: 2, title: 'Odes', shelf: 2 }, { id: 3, title: 'Emma', shelf: 1 }])
      expect(await stores.importAllOf?.(given.map((part) => ({ ...part, onApplied: (outcome) => { outcomes.push(outcome) } })))).toEqual([2, 3])
      expect(outcomes).toEqual([{ created: 2, replaced: 0 }, { created: 3, replaced: 0 }])
      expect((await all('volumes')).map((v) => v.title)).toEqual(['Dune', 'Odes', 'Emma'])
      const changes = await changesAfter(seq, 5)
      expect(changes.map((c) => `${c.service} ${c.kind} ${String(c.id)}`)).toEqual(['shelves created 1', 'shelves created 2', 'volumes created 1', 'volumes created 2', 'volumes created 3'])
      // A write after the import takes the next id of each collection.
      expect((await stores.collections.get('volumes')?.create({ title: 'Next', shelf: 2 }))?.record.id).toBe(4)
    })
  })
}
