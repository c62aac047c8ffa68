import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { declarationFiles } from './fixture.js'

/** Issue 29's keywords (x-auto, enum, null, default, unique) checked at start: each mistake one line with its JSON path and a hint. */
const files = declarationFiles()

const books = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}, collection: Record<string, unknown> = {}): unknown =>
  ({ collections: { books: { schema: { type: 'object', properties, ...extra }, ...collection } } })
const AT = { type: 'string', format: 'date-time' }

function refusal (content: unknown): string {
  const path = files.write('c.json', content)
  try {
    fromFile(path, '--collections')
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    return (err as Error).message.replace(`${path}`, 'FILE')
  }
  throw new Error('accepted')
}

const P = 'FILE: collections.books.schema.properties'

describe('refused model declarations', () => {
  it.each([
    ['an unknown x-auto', books({ at: { ...AT, 'x-auto': 'create' } }),
      `${P}.at.x-auto: "create" is no automatic timestamp: use "created" (set when the record is created) or "updated" (set on every write); did you mean "created"?`],
    ['x-auto on text', books({ at: { type: 'string', 'x-auto': 'created' } }),
      `${P}.at.x-auto: applies to a date-time field only: {"type": "string", "format": "date-time", "x-auto": "created"}`],
    ['a required timestamp', books({ at: { ...AT, 'x-auto': 'updated' } }, { required: ['at'] }),
      `${P}.at.x-auto: the server sets this field, so a client never sends it: leave it out of "required" (every record has it anyway)`],
    ['a timestamp with a default', books({ at: { ...AT, 'x-auto': 'created', default: '2024-01-01T00:00:00Z' } }),
      `${P}.at.default: an automatic timestamp has no default: the server sets it`],
    ['a type list of two types', books({ n: { type: ['string', 'integer'] } }),
      `${P}.n.type: must be one type, or one type and "null" such as ["string", "null"] (a field may hold null); got ["string","integer"]`],
    ['null with an unknown type', books({ n: { type: ['object', 'null'] } }),
      `${P}.n.type: "object" is not a type to pair with "null": use one of string, integer, number, boolean`],
    ['an integer enum of text', books({ n: { type: 'integer', enum: ['1'] } }),
      `${P}.n.enum: must be a non-empty array of integers, e.g. [1, 2, 3]`],
    ['an enum value twice', books({ s: { type: 'string', enum: ['a', 'b', 'a'] } }),
      `${P}.s.enum.2: "a" is listed twice`],
    ['an enum on a number', books({ n: { type: 'number', enum: [1.5] } }),
      `${P}.n.enum: applies to string and integer fields, not to a number field`],
    ['a default outside the enum', books({ s: { type: 'string', enum: ['draft', 'published'], default: 'gone' } }),
      `${P}.s.default: "gone" breaks the field's own rules (s must be one of "draft", "published"); give a value a client could send`],
    ['a default of the wrong type', books({ n: { type: 'integer', default: 'one' } }),
      `${P}.n.default: "one" breaks the field's own rules (n must be a whole number); give a value a client could send`],
    ['unique as one array', books({ isbn: { type: 'string' } }, {}, { unique: ['isbn'] }),
      'FILE: collections.books.unique.0: must be an array of field names: write ["isbn"]'],
    ['unique naming an unknown field', books({ isbn: { type: 'string' } }, {}, { unique: [['isnb']] }),
      'FILE: collections.books.unique.0.0: "isnb" is not a declared field; did you mean "isbn"?'],
    ['unique over a timestamp', books({ isbn: { type: 'string' }, at: { ...AT, 'x-auto': 'created' } }, {}, { unique: [['at']] }),
      'FILE: collections.books.unique.0.0: "at" is set by the server (x-auto) and cannot be part of a unique key'],
    ['a unique key twice', books({ a: { type: 'string' }, b: { type: 'string' } }, {}, { unique: [['a', 'b'], ['b', 'a']] }),
      'FILE: collections.books.unique.1: the key ["b","a"] is declared twice'],
    ['an empty unique key', books({ a: { type: 'string' } }, {}, { unique: [[]] }),
      'FILE: collections.books.unique.0: must be a non-empty array of field names, e.g. ["isbn"]'],
    ['unique not an array', books({ a: { type: 'string' } }, {}, { unique: 'a' }),
      'FILE: collections.books.unique: must be an array of keys, each an array of field names: [["isbn"], ["title", "year"]]'],
    ['indexes not an array', books({ a: { type: 'string' } }, {}, { indexes: 'a' }),
      'FILE: collections.books.indexes: must be an array of indexes, each an array of field names: [["year"], ["author", "year"]] ([] for none)'],
    ['an index as a name', books({ a: { type: 'string' } }, {}, { indexes: ['a'] }),
      'FILE: collections.books.indexes.0: must be an array of field names: write ["a"]'],
    ['an empty index', books({ a: { type: 'string' } }, {}, { indexes: [[]] }),
      'FILE: collections.books.indexes.0: must be a non-empty array of field names, e.g. ["year"]'],
    ['an index naming an unknown field', books({ year: { type: 'integer' } }, {}, { indexes: [['yaer']] }),
      'FILE: collections.books.indexes.0.0: "yaer" is not a declared field; did you mean "year"?'],
    ['an index of five fields', books({ a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' }, d: { type: 'string' }, e: { type: 'string' } }, {}, { indexes: [['a', 'b', 'c', 'd', 'e']] }),
      'FILE: collections.books.indexes.0: combines 5 fields; an index combines at most 4'],
    ['a field twice in an index', books({ a: { type: 'string' } }, {}, { indexes: [['a', 'a']] }),
      'FILE: collections.books.indexes.0.1: "a" is listed twice'],
    ['an index twice', books({ a: { type: 'string' }, b: { type: 'string' } }, {}, { indexes: [['a', 'b'], ['a', 'b']] }),
      'FILE: collections.books.indexes.1: the index ["a","b"] is declared twice'],
    ['a list in a compound index', books({ a: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } }, {}, { indexes: [['a', 'tags']] }),
      'FILE: collections.books.indexes.0.1: "tags" holds a list, an object or JSON: it can be indexed alone (["tags"]), not with other fields']
  ])('refuses %s', (_name, content, message) => {
    expect(refusal(content)).toBe(message)
  })

  it('accepts every keyword together', () => {
    const path = files.write('ok.json', books({
      title: { type: 'string' },
      rating: { type: ['integer', 'null'], enum: [1, 2, 3], default: null },
      status: { type: 'string', enum: ['a', 'b'], default: 'a' },
      at: { type: 'string', format: 'date-time', 'x-auto': 'updated' }
    }, { required: ['title', 'rating'] }, { unique: [['title'], ['title', 'status']] }))
    const [books_] = fromFile(path, '--collections').declared
    expect(books_?.rules).toEqual({ nullable: ['rating'], auto: { at: 'updated' }, unique: [['title'], ['title', 'status']] })
    expect(books_?.declaration.fields.rating).toEqual({ type: 'integer', required: false })
    expect(books_?.declaration.fields.at).toEqual({ type: 'date-time', required: true, default: expect.stringMatching(/Z$/) })
  })

  it('keeps declared indexes as given, none for [], and leaves them out when not declared (every field indexed)', () => {
    const declared = (indexes?: unknown): unknown => fromFile(files.write('ix.json', books({ a: { type: 'string' }, b: { type: 'integer' } }, {}, indexes === undefined ? {} : { indexes })), '--collections').declared[0]?.declaration.indexes
    expect(declared([['b'], ['a', 'b']])).toEqual([['b'], ['a', 'b']])
    expect(declared([])).toEqual([])
    expect(declared()).toBeUndefined()
  })
})
