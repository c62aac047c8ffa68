import { describe, expect, it } from 'vitest'
import { ConfigError, makeConfig, resolveConfig } from '../../../src/options.js'
import { buildServer } from '../../../src/server.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { runMain } from '../../helpers/cli.js'
import { declarationFiles } from './fixture.js'

/** Declarations are checked like code: each refusal is one line with the JSON path and a hint. */
const files = declarationFiles()

const books = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}): unknown =>
  ({ collections: { books: { schema: { type: 'object', properties, ...extra } } } })

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

describe('refused declarations', () => {
  it.each([
    ['an unknown keyword', books({ title: { type: 'string', maxLenght: 3 } }),
      'FILE: collections.books.schema.properties.title.maxLenght: unknown keyword "maxLenght"; did you mean "maxLength"? (allowed here: type, description, title, examples, default, minLength, maxLength, pattern, enum, format)'],
    ['"int" for integer', books({ year: { type: 'int' } }),
      'FILE: collections.books.schema.properties.year.type: "int" is not a type; use "integer"'],
    ['a field named id', books({ id: { type: 'integer' } }),
      'FILE: collections.books.schema.properties.id: a field may not be named "id": rqs gives every record its id'],
    // Nested objects are stored since issue 29 (item 8), up to three levels.
    ['an object nested four levels deep', books({ author: { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'object', properties: { c: { type: 'object', properties: { d: { type: 'string' } } } } } } } } } }),
      'FILE: collections.books.schema.properties.author.properties.a.properties.b.properties.c: objects nest at most 3 levels deep: flatten this one into its parent, or keep it as free JSON ({"type": "object", "additionalProperties": true})'],
    ['a keyword of another type', books({ year: { type: 'integer', maxLength: 4 } }),
      'FILE: collections.books.schema.properties.year.maxLength: applies to string fields, not to an integer field'],
    ['a default the field refuses (issue 29: defaults are checked at start)', books({ year: { type: 'integer', maximum: 3000, default: 5000 } }),
      'FILE: collections.books.schema.properties.year.default: 5000 breaks the field\'s own rules (year must be at most 3000); give a value a client could send'],
    ['a bad field name', books({ 'first-name': { type: 'string' } }),
      'FILE: collections.books.schema.properties.first-name: "first-name" is not a field name: use camelCase letters and digits, starting with a lower-case letter, at most 63 characters (e.g. "title", "publishedYear")'],
    ['__proto__ as a field', JSON.parse('{"collections": {"books": {"schema": {"type": "object", "properties": {"__proto__": {"type": "string"}}}}}}'),
      'FILE: collections.books.schema.properties.__proto__: "__proto__" is not a field name: use camelCase letters and digits, starting with a lower-case letter, at most 63 characters (e.g. "title", "publishedYear")'],
    ['a required field not declared', books({ title: { type: 'string' } }, { required: ['titel'] }),
      'FILE: collections.books.schema.required.0: "titel" is not a declared field; did you mean "title"?'],
    ['additionalProperties true', books({ title: { type: 'string' } }, { additionalProperties: true }),
      'FILE: collections.books.schema.additionalProperties: may only be false: a record holds its declared fields and nothing else (others are dropped)'],
    ['a bad collection name', { collections: { Books: { schema: { type: 'object', properties: { t: { type: 'string' } } } } } },
      'FILE: collections.Books: "Books" is not a collection name: use lower-case letters, digits and inner hyphens, starting with a letter, at most 40 characters (e.g. "books", "reading-list")'],
    ['an unknown id kind', { collections: { books: { ids: 'int64', schema: { type: 'object', properties: { t: { type: 'string' } } } } } },
      'FILE: collections.books.ids: "int64" is no id kind: use "sequence" (1, 2, 3 …, never reused) or "uuid"'],
    ['a misspelt collection member', { collections: { books: { shema: {} } } },
      'FILE: collections.books.shema: unknown keyword "shema"; did you mean "schema"? (allowed here: schema, ids, description, unique, indexes, rules, x-label)'],
    ['a bad pattern', books({ isbn: { type: 'string', pattern: '([' } }),
      'FILE: collections.books.schema.properties.isbn.pattern: is not a regular expression: Invalid regular expression: /([/u: Unterminated character class'],
    ['an unknown format', books({ at: { type: 'string', format: 'datetime' } }),
      'FILE: collections.books.schema.properties.at.format: "datetime" is not a format rqs checks: use date, date-time, email, uri (did you mean "date-time"?)'],
    ['no collections member', { books: {} },
      'FILE must hold one JSON object {"collections": {"<name>": {"schema": {…}}}}'],
    ['an x-hint that is not text', books({ isbn: { type: 'string', pattern: '^[0-9-]+$', 'x-hint': 13 } }),
      'FILE: collections.books.schema.properties.isbn.x-hint: must be a string, got 13'],
    ['invalid JSON', '{"collections": ',
      'FILE is not valid JSON: Unexpected end of JSON input']
  ])('refuses %s', (_what, content, message) => {
    expect(refusal(content)).toBe(message)
  })

  // The names of the other services' collections are known once every service is: checked as the configuration is read.
  it.each([['students'], ['addresses'], ['collections'], ['self']])('refuses the name %s, taken by rqs', (name) => {
    const path = files.write(`${name}.json`, { collections: { [name]: { schema: { type: 'object', properties: { t: { type: 'string' } } } } } })
    expect(() => resolveConfig({ collections: path }, {})).toThrow(new ConfigError(`${path}: collections.${name}: "${name}" is taken by rqs (students, addresses, collections, self, help, status, service-desc, service-doc are): choose another name`))
    // A Config made in code is checked at start.
    return expect(buildServer(makeConfig({ logLevel: 'silent', collections: fromFile(path, '--collections') }))).rejects.toThrow(ConfigError)
  })

  it('refuses a missing file', () => {
    expect(() => fromFile('/nonexistent/books.json', '--collections')).toThrow(new ConfigError('cannot read the collections file /nonexistent/books.json (--collections): no such file'))
  })

  it('refuses a collection whose path is a service\'s or the server\'s', async () => {
    const at = (name: string): ReturnType<typeof makeConfig> => makeConfig({ logLevel: 'silent', collections: fromFile(files.write(`${name}.json`, { collections: { [name]: { schema: { type: 'object', properties: { t: { type: 'string' } } } } } }), '--collections') })
    await expect(buildServer(at('events'))).rejects.toThrow(new ConfigError('collection events at /events overlaps events at /events: choose other paths'))
    await expect(buildServer(at('docs'))).rejects.toThrow(new ConfigError('collection docs at /docs overlaps the server\'s own /docs: choose other paths'))
    await expect(buildServer(at('v2'))).rejects.toThrow(ConfigError)
  })
})

describe('where declarations come from', () => {
  const declared = { collections: { books: { schema: { type: 'object', properties: { title: { type: 'string' } } } } } }

  it('reads --collections, RQS_COLLECTIONS, and the configuration file (inline or a file name)', () => {
    const file = files.write('books.json', declared)
    expect(resolveConfig({ collections: file }, {}).collections.declared.map((c) => c.declaration.name)).toEqual(['books'])
    expect(resolveConfig({}, { RQS_COLLECTIONS: file }).collections.declared.map((c) => c.declaration.name)).toEqual(['books'])
    expect(resolveConfig({}, {}, { name: 'rqs.json', values: declared }).collections.declared[0]?.declaration).toEqual({
      name: 'books', table: 'rqs_col_books', fields: { title: { type: 'string', required: false } }, ids: 'sequence', firstId: 1, putCreates: false, keptOnUpdate: []
    })
    expect(resolveConfig({}, {}, { name: `${files.dir}/rqs.json`, values: { collections: 'books.json' } }).collections.declared).toHaveLength(1)
    expect(resolveConfig({}, {}).collections.declared).toEqual([])
  })

  it('exits 2 with the one line from rqs serve', async () => {
    const file = files.write('bad.json', books({ year: { type: 'int' } }))
    const { code, stderr } = await runMain(['serve', '--port', '0', '--collections', file])
    expect(code).toBe(2)
    expect(stderr).toContain(`${file}: collections.books.schema.properties.year.type: "int" is not a type; use "integer"`)
  })

  it('exits 2 from rqs serve for a path collision', async () => {
    const file = files.write('events.json', { collections: { events: { schema: { type: 'object', properties: { t: { type: 'string' } } } } } })
    const { code, stderr } = await runMain(['serve', '--port', '0', '--collections', file])
    expect(code).toBe(2)
    expect(stderr).toContain('collection events at /events overlaps events at /events')
  })
})
