import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { declarationFiles } from './fixture.js'

/** Reference fields are checked at start like every keyword (issue 30, item 1): one line with the JSON path and a hint. */
const files = declarationFiles()
const object = (properties: Record<string, unknown>, required: string[] = []): unknown => ({ schema: { type: 'object', properties, required } })
const AUTHORS = object({ name: { type: 'string' } })

function refusal (collections: Record<string, unknown>): string {
  const path = files.write('c.json', { collections })
  try {
    fromFile(path, '--collections')
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    return (err as Error).message.replace(`${path}`, 'FILE')
  }
  throw new Error('accepted')
}

describe('refused references', () => {
  it.each([
    ['an unknown target', { books: object({ author: { type: 'integer', 'x-references': 'autors' } }), authors: AUTHORS },
      'FILE: collections.books.schema.properties.author.x-references: "autors" is not a collection; did you mean "authors"? (declared: students, addresses, books, authors)'],
    ['a type other than the target\'s ids', { books: object({ author: { type: 'string', 'x-references': 'authors' } }), authors: AUTHORS },
      'FILE: collections.books.schema.properties.author.type: authors ids are integers: declare the reference as {"type": "integer", "x-references": "authors"}'],
    ['an integer reference to uuid ids', { books: object({ author: { type: 'integer', 'x-references': 'authors' } }), authors: { ...AUTHORS as object, ids: 'uuid' } },
      'FILE: collections.books.schema.properties.author.type: authors ids are UUID strings: declare the reference as {"type": "string", "x-references": "authors"}'],
    ['a boolean reference', { books: object({ author: { type: 'boolean', 'x-references': 'authors' } }), authors: AUTHORS },
      'FILE: collections.books.schema.properties.author.type: a reference holds an id: "integer" (sequence ids, students, addresses) or "string" (uuid ids), not "boolean"'],
    ['an unknown x-on-delete', { books: object({ author: { type: 'integer', 'x-references': 'authors', 'x-on-delete': 'delete' } }), authors: AUTHORS },
      'FILE: collections.books.schema.properties.author.x-on-delete: "delete" is not applied: use "restrict", "cascade", "set-null"'],
    ['set-null on a required field', { books: object({ author: { type: 'integer', 'x-references': 'authors', 'x-on-delete': 'set-null' } }, ['author']), authors: AUTHORS },
      'FILE: collections.books.schema.properties.author.x-on-delete: "set-null" clears the field, but "author" is required: make it optional or use "restrict" or "cascade"'],
    ['x-on-delete without x-references', { books: object({ author: { type: 'integer', 'x-on-delete': 'cascade' } }) },
      'FILE: collections.books.schema.properties.author.x-on-delete: applies only to a reference field: add "x-references": "<collection>"'],
    ['a reference to its own collection', { people: object({ parent: { type: 'integer', 'x-references': 'people' } }) },
      'FILE: collections.people.schema.properties.parent.x-references: the references form a cycle (people → people), which rqs cannot apply (deletes and creates would have no order); keep the id in a plain field without x-references'],
    ['a cycle of two', { a: object({ b: { type: 'integer', 'x-references': 'b' } }), b: object({ a: { type: 'integer', 'x-references': 'a' } }) },
      'FILE: collections.b.schema.properties.a.x-references: the references form a cycle (a → b → a), which rqs cannot apply (deletes and creates would have no order); keep the id in a plain field without x-references'],
    ['a field named expand once references exist', { books: object({ author: { type: 'integer', 'x-references': 'authors' } }), authors: object({ name: { type: 'string' }, expand: { type: 'boolean' } }) },
      'FILE: collections.authors.schema.properties.expand: "expand" is the member that holds expanded references (?expand=…) once any collection has a reference field: rename the field']
  ])('refuses %s', (_what, collections, message) => {
    expect(refusal(collections)).toBe(message)
  })

  it('accepts references to declared and built-in collections, restrict by default', () => {
    const path = files.write('ok.json', {
      collections: {
        authors: AUTHORS,
        books: object({ author: { type: 'integer', 'x-references': 'authors' }, owner: { type: 'integer', 'x-references': 'students', 'x-on-delete': 'set-null' } }, ['author']),
        expand: object({ title: { type: 'string' } })
      }
    })
    const declared = fromFile(path, '--collections').declared
    expect(declared.find((c) => c.declaration.name === 'books')?.declaration.references).toEqual({
      author: { collection: 'authors', onDelete: 'restrict' },
      owner: { collection: 'students', onDelete: 'set-null' }
    })
  })
})

describe('lists of references (many-to-many)', () => {
  const tags = (items: Record<string, unknown>, extra: Record<string, unknown> = {}): unknown => object({ title: { type: 'string' }, tags: { type: 'array', items, ...extra } })
  it.each([
    ['cascade on a list', { books: tags({ type: 'integer', 'x-references': 'authors' }, { 'x-on-delete': 'cascade' }), authors: AUTHORS },
      'FILE: collections.books.schema.properties.tags.x-on-delete: "cascade" is not applied to a list of references: use "restrict" or "remove" (the deleted id is taken out of each list)'],
    ['items of another type than the target\'s ids', { books: tags({ type: 'string', 'x-references': 'authors' }), authors: AUTHORS },
      'FILE: collections.books.schema.properties.tags.items.type: authors ids are integers: declare the reference as {"type": "array", "items": {"type": "integer", "x-references": "authors"}}'],
    ['x-on-delete on the items', { books: tags({ type: 'integer', 'x-references': 'authors', 'x-on-delete': 'remove' }), authors: AUTHORS },
      'FILE: collections.books.schema.properties.tags.items.x-on-delete: belongs on the list: {"type": "array", "items": {…, "x-references": …}, "x-on-delete": "remove"}'],
    ['x-on-delete on a list of plain values', { books: tags({ type: 'integer' }, { 'x-on-delete': 'remove' }) },
      'FILE: collections.books.schema.properties.tags.x-on-delete: applies only to a list of references: add "x-references": "<collection>" to its items'],
    ['remove on a single reference', { books: object({ author: { type: 'integer', 'x-references': 'authors', 'x-on-delete': 'remove' } }), authors: AUTHORS },
      'FILE: collections.books.schema.properties.author.x-on-delete: "remove" is not applied: use "restrict", "cascade", "set-null"']
  ])('refuses %s', (_what, collections, message) => {
    expect(refusal(collections)).toBe(message)
  })

  it('accepts a list of references, restrict by default, remove when asked', () => {
    const path = files.write('m2m.json', {
      collections: { authors: AUTHORS, books: object({ tags: { type: 'array', items: { type: 'integer', 'x-references': 'authors' }, uniqueItems: true }, editors: { type: 'array', items: { type: 'integer', 'x-references': 'authors' }, 'x-on-delete': 'remove' } }) }
    })
    expect(fromFile(path, '--collections').declared.find((c) => c.declaration.name === 'books')?.declaration.references).toEqual({
      tags: { collection: 'authors', onDelete: 'restrict', many: true },
      editors: { collection: 'authors', onDelete: 'remove', many: true }
    })
  })
})
