import { describe, expect, it } from 'vitest'
import { fieldMessage, invalidRuleOf } from '../../../src/http/errors/messages/fields.js'
import { queryModel } from '../../../src/services/collections/schema.js'
import { isSortable } from '../../../src/records/model.js'
import { declaredCollections } from '../../../src/services/app/index.js'
import type { AppCollection } from '../../../src/services/app/page-config.js'
import type { CollectionSchema } from '../../../src/services/collections/declare.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { servedCollection } from '../../../src/services/collections/records.js'
import { isSortKey, limitsOf, specFromDeclaration } from '../../../web/app/resources.js'
import { queryFromSearch } from '../../../web/app/view-state.js'
import { declarationFiles } from '../../services/collections/fixture.js'

/**
 * The web app offers only what the server accepts (issue 37, item 3): the
 * sort keys of a declared view are the server's query model's, a link naming
 * another is read as the default order, and a field's message states the
 * limit, the allowed values or the declared words for its pattern.
 */
const files = declarationFiles()
const SHELF = {
  collections: {
    books: {
      schema: {
        type: 'object',
        properties: {
          title: { type: 'string', maxLength: 200 },
          year: { type: 'integer', maximum: 3000 },
          price: { type: 'number', exclusiveMinimum: 0 },
          isbn: { type: 'string', pattern: '^[0-9-]{10,17}$', 'x-hint': '10 to 17 digits or hyphens' },
          shelf: { type: 'string', enum: ['A', 'B'] },
          note: { type: 'string', pattern: '^[a-z ]*$', description: 'lower-case letters and spaces' }
        },
        required: ['title', 'year']
      }
    }
  }
}

describe('what the web app offers of a declared collection', () => {
  const declared = fromFile(files.write('shelf.json', SHELF), '--collections').declared[0] as CollectionSchema
  const listed = declaredCollections([servedCollection(declared)], [{ rel: 'books', href: '/books', title: 'Books' }])
  const shelf = listed[0] as AppCollection
  const books = specFromDeclaration(shelf)

  it('sorts by the server\'s sort keys only: the id and every field (optional ones too, issue 31)', () => {
    const model = queryModel(declared)
    const serverKeys = Object.entries(model.fields).filter(([, p]) => isSortable(p)).map(([k]) => k)
    expect(shelf.sort).toEqual(serverKeys)
    expect(serverKeys).toEqual(['id', 'title', 'year', 'price', 'isbn', 'shelf', 'note'])
    expect(books.fields.filter((f) => f.sortable !== false).map((f) => f.key)).toEqual(['title', 'year', 'price', 'isbn', 'shelf', 'note'])
    for (const key of ['id', 'title', 'year', 'isbn', 'price', 'shelf']) expect(isSortKey(books, key), key).toBe(true)
    for (const key of ['secret', 'constructor']) expect(isSortKey(books, key), key).toBe(false)
    // Without the server's list (an older page): its rule, the required fields.
    const bare = specFromDeclaration({ ...shelf, sort: undefined })
    expect(bare.fields.filter((f) => f.sortable !== false).map((f) => f.key)).toEqual(['title', 'year'])
  })

  it('reads a link sorted by a field the server refuses as the default order, keeping the rest', () => {
    expect(queryFromSearch('?sort=secret&q=dune&year[gte]=1900', books)).toMatchObject({ sort: undefined, q: 'dune', filters: { 'year[gte]': '1900' } })
    expect(queryFromSearch('?sort=-secret', books).sort).toBeUndefined()
    expect(queryFromSearch('?sort=-year', books).sort).toEqual({ field: 'year', desc: true })
    // A filter the view has no control for is not read (the list is not asked for it).
    expect(queryFromSearch('?isbn[gt]=9&year[contains]=19', books).filters).toEqual({})
    // A value the field cannot take is dropped too; one it can is kept as written.
    expect(queryFromSearch('?year[gte]=old&year[lte]=2000&price[gte]=cheap', books).filters).toEqual({ 'year[lte]': '2000' })
  })

  it('keeps the limits its messages state, leaving out the ±(2^53 − 1) every integer has', () => {
    const field = (key: string): Record<string, unknown> => ({ ...books.fields.find((f) => f.key === key) })
    expect(field('year')).toMatchObject({ maximum: 3000 })
    expect(field('year').minimum).toBeUndefined()
    expect(field('price')).toMatchObject({ exclusiveMinimum: 0 })
    expect(field('isbn')).toMatchObject({ hint: '10 to 17 digits or hyphens' })
    expect(field('note')).toMatchObject({ hint: 'lower-case letters and spaces' })
    expect(field('shelf')).toMatchObject({ allowed: ['A', 'B'] })
    // An integer's exclusive bounds are said inclusively; a description without a pattern is no hint.
    expect(limitsOf('integer', { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 10 })).toEqual({ minimum: 1, maximum: 9 })
    expect(limitsOf('string', { type: 'string', description: 'A title' })).toEqual({})
  })
})

describe('the words of a field\'s failure', () => {
  it('states the limit a number breaks, in English and German', () => {
    const year = { label: 'Year', kind: 'integer' as const, maximum: 3000 }
    expect(fieldMessage('en', 'FIELD_OUT_OF_RANGE', year)).toBe('Year must be at most 3,000.')
    expect(fieldMessage('de', 'FIELD_OUT_OF_RANGE', year)).toBe('Year darf höchstens 3.000 sein.')
    expect(fieldMessage('en', 'FIELD_TYPE', year)).toBe('Year must be a whole number.')
    expect(fieldMessage('en', 'FIELD_OUT_OF_RANGE', { label: 'Year', kind: 'integer', minimum: 1 })).toBe('Year must be at least 1.')
    expect(fieldMessage('en', 'FIELD_OUT_OF_RANGE', { label: 'Price', kind: 'number', exclusiveMinimum: 0 })).toBe('Price must be greater than 0.')
    expect(fieldMessage('de', 'FIELD_OUT_OF_RANGE', { label: 'Preis', kind: 'number', exclusiveMaximum: 100 })).toBe('Preis muss kleiner als 100 sein.')
    expect(fieldMessage('en', 'FIELD_OUT_OF_RANGE', { label: 'Price', kind: 'number', minimum: 1, maximum: 9.5 })).toBe('Price must be from 1 to 9.5.')
    // Both bounds of an integer: the words the students' age has always had.
    expect(fieldMessage('en', 'FIELD_OUT_OF_RANGE', { label: 'Age', kind: 'integer', minimum: 0, maximum: 150 })).toBe('Age must be a whole number from 0 to 150.')
    // No bound known: as before.
    expect(fieldMessage('en', 'FIELD_OUT_OF_RANGE', { label: 'Year', kind: 'integer' })).toBe('Year must be a whole number.')
  })

  it('says a pattern\'s declared words and an enum\'s values, else "is not valid"', () => {
    const pattern = invalidRuleOf('body.isbn must match pattern "^[0-9-]{10,17}$"')
    const isbn = { label: 'ISBN', kind: 'string' as const, hint: '10 to 17 digits or hyphens' }
    expect(pattern).toBe('pattern')
    expect(fieldMessage('en', 'FIELD_INVALID', isbn, false, pattern)).toBe('ISBN is not valid: 10 to 17 digits or hyphens')
    expect(fieldMessage('de', 'FIELD_INVALID', isbn, false, pattern)).toBe('ISBN ist ungültig: 10 to 17 digits or hyphens')
    expect(fieldMessage('en', 'FIELD_INVALID', { label: 'ISBN', kind: 'string' }, false, pattern)).toBe('ISBN is not valid.')
    const choice = invalidRuleOf('body.shelf must be equal to one of the allowed values')
    expect(choice).toBe('enum')
    expect(fieldMessage('en', 'FIELD_INVALID', { label: 'Shelf', kind: 'string', allowed: ['A', 'B'] }, false, choice)).toBe('Shelf must be one of: A, B.')
    expect(fieldMessage('de', 'FIELD_INVALID', { label: 'Regal', kind: 'string', allowed: ['A', 'B'] }, false, choice)).toBe('Regal muss einer dieser Werte sein: A, B.')
    // A format failure has no declared words: the general ones.
    expect(fieldMessage('en', 'FIELD_INVALID', isbn, false, invalidRuleOf('body.isbn must match format "email"'))).toBe('ISBN is not valid.')
  })
})
