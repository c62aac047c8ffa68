import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { labelFieldOf } from '../../../src/services/collections/label.js'
import { runMain } from '../../helpers/cli.js'
import { declarationFiles } from './fixture.js'

/**
 * A declaration may name the field that labels its records (`"x-label"`, a
 * string field of the collection); without it the first required string
 * field labels them, else the id. A collection's `description` is taken too.
 */
const files = declarationFiles()
const PROPERTIES = {
  year: { type: 'integer' },
  title: { type: 'string' },
  isbn: { type: 'string' },
  tags: { type: 'array', items: { type: 'string' } }
}
const books = (extra: Record<string, unknown>, required: string[] = ['year', 'isbn']): unknown =>
  ({ collections: { books: { schema: { type: 'object', properties: PROPERTIES, required }, ...extra } } })

function accepted (content: unknown): ReturnType<typeof fromFile>['declared'][number] {
  const [collection] = fromFile(files.write('ok.json', content), '--collections').declared
  if (collection === undefined) throw new Error('no collection')
  return collection
}

function refusal (content: unknown): string {
  const path = files.write('c.json', content)
  try {
    fromFile(path, '--collections')
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    return (err as Error).message.replace(path, 'FILE')
  }
  throw new Error('accepted')
}

describe('a collection\'s label field', () => {
  it('is the declared string field', () => {
    const collection = accepted(books({ 'x-label': 'title', description: 'Books on the shelf' }))
    expect(collection.label).toBe('title')
    expect(collection.description).toBe('Books on the shelf')
    expect(labelFieldOf(collection)).toBe('title')
    // The declaration as given keeps it (what the admin API answers and `rqs collections export` writes).
    expect(collection.source).toMatchObject({ 'x-label': 'title' })
  })

  it('is otherwise the first required string field, else the id', () => {
    expect(labelFieldOf(accepted(books({})))).toBe('isbn')
    expect(labelFieldOf(accepted(books({}, ['year'])))).toBe('id')
    // A string field that takes null labels too.
    expect(labelFieldOf(accepted({ collections: { notes: { schema: { type: 'object', properties: { text: { type: ['string', 'null'] } }, required: ['text'] } } } }))).toBe('text')
  })

  it('follows a rename of the field it names', () => {
    const renamed = { collections: { books: { 'x-label': 'title', schema: { type: 'object', properties: { heading: { type: 'string', 'x-renamed-from': 'title' } } } } } }
    expect(accepted(renamed).label).toBe('heading')
  })

  it.each([
    ['an unknown field', { 'x-label': 'titel' },
      'FILE: collections.books.x-label: "titel" is not a declared field; did you mean "title"? (a label is one of "title", "isbn")'],
    ['an integer field', { 'x-label': 'year' },
      'FILE: collections.books.x-label: "year" is an integer field: a label is a string field, one of "title", "isbn"'],
    ['a list field', { 'x-label': 'tags' },
      'FILE: collections.books.x-label: "tags" is an array field: a label is a string field, one of "title", "isbn"'],
    ['not a name', { 'x-label': ['title'] },
      'FILE: collections.books.x-label: must name the string field that labels a record, one of "title", "isbn"'],
    ['a description that is no text', { description: 7 },
      'FILE: collections.books.description: must be a string, got 7']
  ])('refuses %s with the JSON path', (_what, extra, message) => {
    expect(refusal(books(extra))).toBe(message)
  })

  it('refuses a label in a collection without string fields, saying the id labels it', () => {
    expect(refusal({ collections: { counts: { 'x-label': 'n', schema: { type: 'object', properties: { n: { type: 'integer' } } } } } }))
      .toBe('FILE: collections.counts.x-label: "n" is an integer field: a label is a string field, the collection has no string field: leave "x-label" out and its records are named by their id')
  })

  it('exits 2 from rqs serve, with the one line', async () => {
    const file = files.write('bad-label.json', books({ 'x-label': 'year' }))
    const { code, stderr } = await runMain(['serve', '--port', '0', '--collections', file])
    expect(code).toBe(2)
    expect(stderr).toContain(`${file}: collections.books.x-label: "year" is an integer field`)
  })
})
