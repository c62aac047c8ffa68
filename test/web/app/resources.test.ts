import { describe, expect, it } from 'vitest'
import { translator } from '../../../web/app/i18n.js'
import { ADDRESSES, formValues, inputModeOf, say, specFromDeclaration, STUDENTS, toRecord, type FieldSpec } from '../../../web/app/resources.js'

/** The web app's record views (web/app/resources.ts): bodies from forms, records from answers, views from declarations. */
describe('the web app\'s resources', () => {
  const en = translator('en')

  it('words a text from the page\'s tables or as the declaration gives it', () => {
    expect(say(en, 'students')).toBe(en('students'))
    expect(say(en, { literal: 'Bücher' })).toBe('Bücher')
  })

  it('turns answers into records with string ids, dropping what is not a field value', () => {
    expect(toRecord({ id: 7, firstName: 'Ada', age: 36, active: true, tags: ['x'], note: null })).toEqual({ id: '7', firstName: 'Ada', age: 36, active: true })
    expect(toRecord({ id: '9223372036854775807', name: 'Big' })).toEqual({ id: '9223372036854775807', name: 'Big' })
    expect(toRecord({ firstName: 'no id' })).toBeUndefined()
    expect(toRecord(null)).toBeUndefined()
    expect(toRecord('7')).toBeUndefined()
  })

  it('sends a whole number as a number, an empty field not at all, and anything else as typed for the service to name', () => {
    expect(STUDENTS.createBody({ firstName: 'Ada', lastName: 'Lovelace', age: ' 36 ' })).toEqual({ firstName: 'Ada', lastName: 'Lovelace', age: 36 })
    expect(STUDENTS.createBody({ firstName: 'Ada', lastName: 'Lovelace', age: '' })).toEqual({ firstName: 'Ada', lastName: 'Lovelace' })
    expect(STUDENTS.createBody({ firstName: '', lastName: 'L', age: '3.5' })).toEqual({ firstName: '', lastName: 'L', age: '3.5' })
    expect(STUDENTS.createBody({ firstName: 'A', lastName: 'B', age: '99999999999999999999' })).toEqual({ firstName: 'A', lastName: 'B', age: '99999999999999999999' })
  })

  it('keeps an address\'s name out of an update (the address book keeps the stored one)', () => {
    const values = { name: 'Ada', city: 'London', postalCode: 'W1' }
    expect(ADDRESSES.createBody(values)).toEqual(values)
    expect(ADDRESSES.replaceBody(values)).toEqual({ city: 'London', postalCode: 'W1' })
  })

  it('names records for messages', () => {
    expect(STUDENTS.describe({ id: '1', firstName: 'Ada', lastName: 'Lovelace' })).toBe('Ada Lovelace')
    expect(ADDRESSES.describe({ id: '1', name: 'Ada', city: '' })).toBe('Ada')
  })

  it('builds a declared collection\'s view from its schema: labels, kinds, search, and optional fields left out when empty', () => {
    const books = specFromDeclaration({
      name: 'books',
      url: '/books',
      schema: {
        properties: { title: { type: 'string', title: 'Book title' }, pageCount: { type: 'integer' }, price: { type: 'number' }, inPrint: { type: 'boolean' }, subtitle: { type: 'string' } },
        required: ['title', 'pageCount']
      }
    })
    expect(books.key).toBe('books')
    expect(books.title).toEqual({ literal: 'Books' })
    expect(books.fields.map((f) => [f.key, f.kind, say(en, f.label)])).toEqual([
      ['title', 'string', 'Book title'], ['pageCount', 'integer', 'Page count'], ['price', 'number', 'Price'], ['inPrint', 'boolean', 'In print'], ['subtitle', 'string', 'Subtitle']
    ])
    expect(books.searchHint).toEqual({ literal: 'Book title, Subtitle' })
    expect(books.createBody({ title: '', pageCount: '12', price: '9.50', inPrint: 'false', subtitle: '' })).toEqual({ title: '', pageCount: 12, price: 9.5, inPrint: false })
    expect(books.createBody({ title: 'T', pageCount: '', price: '1e3', inPrint: '', subtitle: 'S' })).toEqual({ title: 'T', price: 1000, subtitle: 'S' })
    expect(books.createBody({ title: 'T', pageCount: '1', price: 'cheap' })).toEqual({ title: 'T', pageCount: 1, price: 'cheap' })
    expect(books.describe({ id: '4', title: 'Emma' })).toBe('Emma')
    expect(books.describe({ id: '4', title: '' })).toBe('#4')
  })

  it('fills a form from a record, and asks phones for the right keyboard', () => {
    expect(formValues(STUDENTS, { id: '1', firstName: 'Ada', age: 36 })).toEqual({ firstName: 'Ada', lastName: '', age: '36' })
    const field = (kind: FieldSpec['kind']): FieldSpec => ({ key: 'x', label: { literal: 'x' }, kind, searchable: false, editable: true })
    expect([inputModeOf(field('integer')), inputModeOf(field('number')), inputModeOf(field('string')), inputModeOf(field('boolean'))]).toEqual(['numeric', 'decimal', undefined, undefined])
  })
})
