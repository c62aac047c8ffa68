import { describe, expect, it } from 'vitest'
import fastJson from 'fast-json-stringify'
import type { RecordStores } from '../../../src/domain/index.js'
import { relationsOf } from '../../../src/records/index.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { expansionOf } from '../../../src/services/collections/expand.js'
import { declarationFiles } from './fixture.js'

/**
 * The schemas an `expand` answer is written with: each relation typed as its
 * target's records (a record, or a list of them), nested levels inside, so
 * the serializer is compiled and writes the declared fields only.
 */
const files = declarationFiles()
const ref = (collection: string): Record<string, unknown> => ({ type: 'integer', 'x-references': collection })
const LIBRARY = {
  collections: {
    authors: { schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
    tags: { schema: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] } },
    books: { schema: { type: 'object', properties: { title: { type: 'string' }, author: ref('authors'), tags: { type: 'array', items: ref('tags') } }, required: ['title', 'author'] } }
  }
}

function expansionOfBooks (): NonNullable<ReturnType<typeof expansionOf>> {
  const collections = fromFile(files.write('library.json', LIBRARY), '--collections')
  const declared = collections.declared
  // The schemas need no store: only apply reads one.
  const expansion = expansionOf(relationsOf(declared.map((c) => c.declaration)), 'books', {} as RecordStores, declared)
  if (expansion === undefined) throw new Error('books has relations')
  return expansion
}

describe('the shape of an expanded answer', () => {
  const expansion = expansionOfBooks()

  it('writes an expanded page exactly as its records are, nested levels and back-relations included', () => {
    const asked = expansion.parse('author.books_via_author,tags')
    const page = {
      items: [{
        id: 1,
        title: 'Dune',
        author: 1,
        tags: [2, 1],
        expand: {
          author: { id: 1, name: 'Frank Herbert', expand: { books_via_author: [{ id: 1, title: 'Dune', author: 1, tags: [2, 1] }], _capped: ['books_via_author'] } },
          tags: [{ id: 2, label: 'sf' }, { id: 1, label: 'classic' }]
        }
      }, { id: 2, title: 'Nameless', author: 9, expand: { author: { id: 9, name: 'Gone', expand: {} } } }],
      next: '/books?after=2'
    }
    expect(JSON.parse(fastJson(asked.page as object)(page))).toEqual(page)
    expect(JSON.parse(fastJson(asked.record as object)(page.items[0]))).toEqual(page.items[0])
  })

  it('leaves out what an expanded record holds beyond its declared fields, at every level', () => {
    const asked = expansion.parse('author,tags')
    const leaky = {
      id: 1,
      title: 'Dune',
      author: 1,
      secret: 'own',
      expand: { author: { id: 1, name: 'Frank Herbert', password: 'x' }, tags: [{ id: 1, label: 'sf', hidden: true }], publisher: { id: 3 } }
    }
    const written = JSON.parse(fastJson(asked.record as object)(leaky))
    expect(written).toEqual({ id: 1, title: 'Dune', author: 1, expand: { author: { id: 1, name: 'Frank Herbert' }, tags: [{ id: 1, label: 'sf' }] } })
  })

  it('parses each expand text once: the same schemas come back, so a route compiles their serializer once', () => {
    const first = expansion.parse('author')
    expect(expansion.parse('author')).toBe(first)
    expect(expansion.parse('tags').page).not.toBe(first.page)
    expect(() => expansion.parse('writer')).toThrow('books has no relation "writer"')
  })
})
