import { getOperationAST, parse } from 'graphql'
import { describe, expect, it } from 'vitest'
import { DEFAULT_ALBUMS } from '../../../src/services/albums/albums.js'
import { CostBudget } from '../../../src/services/albums/cost.js'
import { QueryEngine } from '../../../src/services/albums/engine.js'
import { buildAlbumSchema } from '../../../src/services/albums/schema.js'

const options = { maxDepth: 20, maxFields: 500, maxAliases: 30, maxDocumentBytes: 16384, introspection: true, documentCacheSize: 2 }

function engine (): QueryEngine {
  return new QueryEngine(buildAlbumSchema(DEFAULT_ALBUMS), options)
}

/** The parse/validate cache and graphql-jit compilation behind /graphql. */
describe('QueryEngine', () => {
  it('parses and validates a query text once: the same text gives the same document', () => {
    const e = engine()
    const first = e.prepare('{ albums { title } }')
    expect(first.document).toBeDefined()
    expect(e.prepare('{ albums { title } }')).toBe(first)
  })

  it('remembers errors too, so a repeated bad query is not re-parsed', () => {
    const e = engine()
    const first = e.prepare('{ albums { year } }')
    expect(first.errors?.[0]?.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED')
    expect(e.prepare('{ albums { year } }')).toBe(first)
  })

  it('is bounded: the least recently used text is dropped beyond documentCacheSize', () => {
    const e = engine()
    const a = e.prepare('{ a: albums { title } }')
    e.prepare('{ b: albums { title } }')
    expect(e.prepare('{ a: albums { title } }')).toBe(a) // a is now the most recent
    e.prepare('{ c: albums { title } }') // evicts b
    const b2 = e.prepare('{ b: albums { title } }') // parsed again, evicts a
    expect(b2.document).toBeDefined()
    expect(e.prepare('{ a: albums { title } }')).not.toBe(a)
  })

  it('compiles each operation with graphql-jit on first execution and serialises with its serialiser', async () => {
    const e = engine()
    const { document } = e.prepare('query A { albums(titleFilter: "Pet") { title recordNo } } query B { albums { artist } }')
    if (document === undefined) throw new Error('expected a document')
    expect(e.isCompiled(document, 'A')).toBe(false)
    const args = { schema: e.schema, document, operationName: 'A' }
    const result = await e.execute(args)
    expect(result).toEqual({ data: { albums: [{ title: 'Pet Sounds', recordNo: 12 }] } })
    expect(e.isCompiled(document, 'A')).toBe(true)
    expect(e.isCompiled(document, 'B')).toBe(false)
    expect(JSON.parse(e.stringify(args, result))).toEqual(result)
  })

  it('falls back to graphql-js for a document it did not prepare', async () => {
    const e = engine()
    const document = parse('{ albums(titleFilter: "Rum") { artist } }')
    expect(await e.execute({ schema: e.schema, document })).toEqual({ data: { albums: [{ artist: 'Fleetwood Mac' }] } })
    expect(e.isCompiled(document)).toBe(false)
  })

  it('an unknown operation name does not grow the compiled set', async () => {
    const e = engine()
    const { document } = e.prepare('query A { albums { title } }')
    if (document === undefined) throw new Error('expected a document')
    const result = await e.execute({ schema: e.schema, document, operationName: 'Nope' })
    expect(result.data).toBeUndefined()
    expect(result.errors?.[0]?.message).toMatch(/Unknown operation named "Nope"/)
    expect(e.isCompiled(document, 'Nope')).toBe(false)
  })

  it('weighs an operation once per prepared document: a constant when no weighed argument names a variable', () => {
    const e = engine()
    const costs = new CostBudget(e.schema, 100_000)
    const { document } = e.prepare('query ($t: String) { albums(titleFilter: $t) { title artist } }')
    if (document === undefined) throw new Error('expected a document')
    const operation = getOperationAST(document)
    if (operation == null) throw new Error('expected an operation')
    // 1 for albums, 2 for its fields: titleFilter is not weighed, so the variables change nothing.
    expect(costs.weightOf(document, operation, undefined)).toBe(3)
    expect(costs.check(document, undefined, { t: 'Pet' })).toBeUndefined()
    expect(new CostBudget(e.schema, 2).check(document, undefined, { t: 'Pet' })?.extensions).toEqual({ code: 'QUERY_TOO_COSTLY', cost: 3, budget: 2 })
  })
})
