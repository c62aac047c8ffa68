import { describe, expect, it } from 'vitest'
import { BOOLEAN_FORMS, separatorHint, typeCell, typeRecord } from '../../src/data/cells.js'
import { CsvParser, csvColumns, csvObject, type CsvCell } from '../../src/data/csv.js'
import { collectionFrom } from '../../src/commands/common.js'
import { declarationFiles } from '../services/collections/fixture.js'
import { planImport } from '../../web/app/import-plan.js'
import { specFromDeclaration, STUDENTS, ADDRESSES } from '../../web/app/resources.js'

/** Issue 37, item 2: one typing of CSV cells for `rqs import` and the web app's import (src/data/cells.ts). */
describe('typeCell', () => {
  it.each([
    ['true', true], ['TRUE', true], ['True', true], ['tRuE', true], ['1', true],
    ['false', false], ['FALSE', false], ['False', false], ['0', false]
  ])('reads the boolean %j as %j', (text, value) => {
    expect(typeCell('available', 'boolean', text)).toEqual({ value })
  })

  it.each(['yes', 'no', 'ja', 'nein', 'y', 'n', 'on', 'off', 't', 'f', ' true', 'true ', '01', '-1', '2', '1.0', 'wahr'])('refuses the boolean %j, naming the accepted forms', (text) => {
    expect(typeCell('available', 'boolean', text)).toEqual({ reason: `available must be ${BOOLEAN_FORMS}, not "${text}"` })
    expect(BOOLEAN_FORMS).toBe('true or false (in any case), 1 or 0')
  })

  it.each([['0', 0], ['-0', -0], ['42', 42], ['-7', -7], ['9007199254740991', 9007199254740991]])('reads the integer %j', (text, value) => {
    expect(typeCell('age', 'integer', text)).toEqual({ value })
  })

  it.each(['1.0', '01', '+1', ' 1', '1 ', '1e3', '0x10', '', '1,000', 'one'])('refuses the integer %j', (text) => {
    expect(typeCell('age', 'integer', text)).toEqual({ reason: `age must be an integer, not "${text}"` })
  })

  it('refuses an integer past 2^53 with the range, and reads int64 ids exactly', () => {
    expect(typeCell('age', 'integer', '9007199254740992')).toEqual({ reason: 'age must be an integer from -9007199254740991 to 9007199254740991, not 9007199254740992' })
    expect(typeCell('id', 'int64', '9223372036854775807')).toEqual({ value: 9223372036854775807n })
    expect(typeCell('id', 'int64', '1.5')).toEqual({ reason: 'id must be an integer, not "1.5"' })
  })

  it.each([['9.5', 9.5], ['-2', -2], ['0', 0], ['1e3', 1000], ['2.5E-2', 0.025]])('reads the number %j', (text, value) => {
    expect(typeCell('price', 'number', text)).toEqual({ value })
  })

  it.each(['9,5', '.5', '5.', '+1', ' 1', 'NaN', 'Infinity', '1e999', '€5', ''])('refuses the number %j, naming the accepted forms', (text) => {
    expect(typeCell('price', 'number', text)).toEqual({ reason: `price must be a number such as 9.5, -2 or 1e3 (a decimal point, not a comma), not "${text}"` })
  })

  it('keeps text as written; an unquoted empty cell is absent, a quoted one the empty text of a text field only', () => {
    expect(typeCell('title', 'text', ' x ')).toEqual({ value: ' x ' })
    const columns = [{ name: 'title', kind: 'text' as const }, { name: 'year', kind: 'integer' as const }]
    expect(typeRecord(columns, [{ text: '', quoted: true }, { text: '', quoted: true }])).toEqual({ value: { title: '' } })
    expect(typeRecord(columns, [{ text: '', quoted: false }, { text: '7', quoted: false }])).toEqual({ value: { year: 7 } })
    expect(typeRecord(columns, [{ text: 'a', quoted: false }])).toEqual({ reason: 'the record has 1 field, the header 2' })
  })

  it('names the separator of a header written with another one', () => {
    expect(separatorHint('title;year;isbn;available', ['title', 'year', 'isbn', 'available'])).toBe(' (the header looks semicolon-separated: columns must be separated by commas)')
    expect(separatorHint('title\tyear', ['title', 'year'])).toBe(' (the header looks tab-separated: columns must be separated by commas)')
    expect(separatorHint('title|year', ['title', 'year'])).toBe(' (the header looks pipe-separated: columns must be separated by commas)')
    expect(separatorHint('email', ['title'])).toBe('')
    expect(separatorHint('a;b', ['title'])).toBe('')
  })
})

describe('the app and rqs import type a file alike', () => {
  const files = declarationFiles()
  const books = collectionFrom('books', files.write('books.json', { collections: { books: { schema: { type: 'object', properties: { title: { type: 'string' }, year: { type: 'integer' }, price: { type: 'number' }, available: { type: 'boolean' } } } } } }), {})
  const spec = specFromDeclaration({ name: 'books', url: '/books', schema: { properties: { title: { type: 'string' }, year: { type: 'integer' }, price: { type: 'number' }, available: { type: 'boolean' } } } })
  const cells = ['TRUE', 'True', 'ja', 'yes', '1', '0', 'false', '', '""', '2.5', '9,5', '1.0', '12', 'x']

  it.each(cells)('the cell %j: the same value or the same reason', (cell) => {
    const csv = `title,year,price,available\r\nt,${/^\d+$/.test(cell) ? cell : '1'},${cell === '9,5' ? '"9,5"' : cell.replace(/^""$/, '""')},${cell === '9,5' ? '1' : cell}\r\n`
    const app = planImport(csv, spec, (f) => f.key)
    if (!('plan' in app)) throw new Error('the app refused the header')
    // rqs import's reading of the same file (src/data/read-records.ts: header, then each record), up to the collection's check.
    const [header, record] = new CsvParser(1 << 20).push(csv) as Array<{ cells: CsvCell[] }>
    const cli = csvObject(csvColumns(books, header?.cells ?? []), record?.cells ?? [])
    const appAnswer = app.plan.errors.length > 0 ? { reason: app.plan.errors[0]?.reason } : { value: app.plan.rows[0]?.body }
    expect(appAnswer).toEqual(cli)
  })

  it('keeps the ids of a file only where a client may choose them (addresses); students and declared collections refuse an id column', () => {
    const addresses = planImport('id,name,city,postalCode\r\n9223372036854775807,A,B,1\r\n', ADDRESSES, (f) => f.key)
    expect(addresses).toEqual({ plan: { mapping: [{ header: 'id', field: 'id' }, { header: 'name', field: 'name' }, { header: 'city', field: 'city' }, { header: 'postalCode', field: 'postalCode' }], rows: [{ line: 2, id: '9223372036854775807', body: { name: 'A', city: 'B', postalCode: '1' } }], errors: [] } })
    expect(planImport('id,firstName,lastName,age\r\n100,A,B,1\r\n', STUDENTS, (f) => f.key)).toEqual({ problem: { idRefused: true } })
    expect(planImport('id,title\r\n1,A\r\n', spec, (f) => f.key)).toEqual({ problem: { idRefused: true } })
  })

  it('maps a column by its label too, and names the separator of a header it cannot read', () => {
    const byLabel = planImport('First name,Last name,Age\r\nA,B,3\r\n', STUDENTS, (f) => ({ firstName: 'First name', lastName: 'Last name', age: 'Age' } as Record<string, string>)[f.key] ?? f.key)
    expect(byLabel).toEqual({ plan: { mapping: [{ header: 'First name', field: 'firstName' }, { header: 'Last name', field: 'lastName' }, { header: 'Age', field: 'age' }], rows: [{ line: 2, body: { firstName: 'A', lastName: 'B', age: 3 } }], errors: [] } })
    expect(planImport('title;year\r\n', spec, (f) => f.key)).toEqual({ problem: { unknown: ['title;year'], expected: ['title', 'year', 'price', 'available'], separator: ';' } })
  })
})
