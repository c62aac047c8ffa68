import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { MAX_COLLECTIONS, MAX_COLUMNS } from '../../../src/services/collections/limits.js'
import { runMain } from '../../helpers/cli.js'
import { declarationFiles } from './fixture.js'

/** Documented limits on declarations (issue 36, item 6): refused at start, the limit named. */
const files = declarationFiles()

const fields = (n: number, type: string): Record<string, unknown> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, { type }]))
const collection = (properties: Record<string, unknown>): unknown => ({ schema: { type: 'object', properties } })
const collections = (n: number): unknown => ({ collections: Object.fromEntries(Array.from({ length: n }, (_, i) => [`c${i}`, collection({ t: { type: 'string' } })])) })

function refusal (content: unknown): string {
  const path = files.write('limits.json', content)
  try {
    fromFile(path, '--collections')
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    return (err as Error).message.replace(path, 'FILE')
  }
  throw new Error('accepted')
}

describe('limits on declarations', () => {
  it(`at most ${MAX_COLLECTIONS} collections a server`, () => {
    expect(fromFile(files.write('ok.json', collections(MAX_COLLECTIONS)), '--collections').declared).toHaveLength(MAX_COLLECTIONS)
    expect(refusal(collections(MAX_COLLECTIONS + 1))).toBe(`FILE: collections: ${MAX_COLLECTIONS + 1} collections are declared; a server serves at most ${MAX_COLLECTIONS} (each adds routes, validators and a part of /openapi.json that the start builds): serve the others from another instance`)
  })

  it(`at most ${MAX_COLUMNS} columns a collection: ${MAX_COLUMNS / 2} string fields or ${MAX_COLUMNS} of other types`, () => {
    for (const ok of [fields(MAX_COLUMNS / 2, 'string'), fields(MAX_COLUMNS, 'integer')]) {
      expect(fromFile(files.write('ok.json', { collections: { books: collection(ok) } }), '--collections').declared).toHaveLength(1)
    }
    expect(refusal({ collections: { books: collection(fields(MAX_COLUMNS / 2 + 1, 'string')) } })).toBe(
      `FILE: collections.books.schema.properties: ${MAX_COLUMNS / 2 + 1} fields take ${MAX_COLUMNS + 2} columns; a collection takes at most ${MAX_COLUMNS} (a string field two: its value and the folded copy the search reads; so at most ${MAX_COLUMNS / 2} string fields): split the collection`)
    expect(refusal({ collections: { books: collection(fields(1000, 'string')) } })).toContain(`1000 fields take 2000 columns; a collection takes at most ${MAX_COLUMNS}`)
  })

  it('rqs serve exits 2 naming the limit', async () => {
    const file = files.write('many.json', collections(MAX_COLLECTIONS + 5))
    const { code, stderr } = await runMain(['serve', '--port', '0', '--collections', file])
    expect(code).toBe(2)
    expect(stderr).toContain(`at most ${MAX_COLLECTIONS}`)
  })
})
