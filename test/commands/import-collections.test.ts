import { describe, expect, it } from 'vitest'
import { importSteps } from '../../src/commands/import-order.js'
import { UsageError } from '../../src/commands/common.js'
import type { ServedCollection } from '../../src/data/collection.js'
import type { CollectionDeclaration } from '../../src/domain/index.js'
import { importCollectionsSuite } from './import-collections.suite.js'
import { scratch } from './helpers.js'

/** `rqs import` of several collections on SQLite (PostgreSQL: import-collections-pg.test.ts), and the order's refusal of a cycle. */
const tmp = scratch()
describe('sqlite store', () => { importCollectionsSuite(tmp, async () => tmp.sqlite()) })

describe('the dependency order of an import', () => {
  it('refuses collections that refer to each other in a cycle, naming it', () => {
    // The declaration checker refuses cycles at start; the order refuses them too, should declarations ever allow one.
    const declaration = (name: string, target: string): CollectionDeclaration => ({ name, table: name, fields: {}, ids: 'sequence', firstId: 1, putCreates: false, keptOnUpdate: [], references: { other: { collection: target, onDelete: 'restrict' } } })
    const collection = (name: string): ServedCollection => ({ name }) as unknown as ServedCollection
    expect(() => importSteps(['a.ndjson', 'b.ndjson'], [collection('a'), collection('b')], [declaration('a', 'b'), declaration('b', 'a')]))
      .toThrow(new UsageError('the collections refer to each other in a cycle (a → b → a): no order stores every reference before it is named; import them one at a time'))
    expect(importSteps(['a.ndjson', 'b.ndjson'], [collection('a'), collection('b')], [declaration('a', 'b'), declaration('b', 'c')]).map((s) => s.file)).toEqual(['b.ndjson', 'a.ndjson'])
  })
})
