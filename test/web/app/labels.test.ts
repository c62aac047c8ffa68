import { describe, expect, it } from 'vitest'
import { keepReferenceLabels, labelFields, labelOf, referenceLabel, specFromDeclaration, toRecord } from '../../../web/app/resources.js'
import { hiddenFromSearch, searchOf } from '../../../web/app/view-state.js'

/** A reference is shown by its target's label field (GET /collections' `label`); a collection's description and chosen columns go with its view. */
describe('labels, descriptions and columns in the web app', () => {
  const authors = { name: 'authors', url: '/authors', label: 'name', description: 'Who wrote the books', schema: { properties: { born: { type: 'integer' }, name: { type: 'string' } }, required: ['born'] } }
  const books = { name: 'books', url: '/books', label: 'title', schema: { properties: { isbn: { type: 'string' }, title: { type: 'string' }, author: { type: 'integer', 'x-references': 'authors' } }, required: ['title', 'author'] } }
  const labels = labelFields([authors, books])

  it('names a record by its collection\'s label field, else its id', () => {
    const spec = specFromDeclaration(authors, labels)
    expect(spec.labelField).toBe('name')
    expect(spec.description).toBe('Who wrote the books')
    expect(spec.describe({ id: '7', born: 1920, name: 'Frank Herbert' })).toBe('Frank Herbert')
    expect(spec.describe({ id: '8', born: 1920 })).toBe('#8')
    expect(specFromDeclaration({ ...authors, label: 'id' }).describe({ id: '9', name: 'X' })).toBe('#9')
    // No description declared: none shown.
    expect(specFromDeclaration(books, labels).description).toBeUndefined()
  })

  it('labels an expanded reference by the target\'s label field, not its first text', () => {
    const spec = specFromDeclaration(books, labels)
    expect(spec.fields.find((f) => f.key === 'author')?.targetLabel).toBe('name')
    // The author's first text field would be "nickname"; its label field is "name".
    const record = toRecord({ id: 1, title: 'Dune', author: 7, expand: { author: { id: 7, nickname: 'Frank', name: 'Frank Herbert' } } }, spec)
    if (record === undefined) throw new Error('no record')
    expect(referenceLabel(record, 'author')).toBe('Frank Herbert')
    expect(labelOf({ id: 3, note: 'x' }, 'id')).toBe('#3')
    expect(labelOf({ id: 3 }, 'name')).toBe('#3')
  })

  it('keeps the columns shown in the URL, and reads them back as the ones hidden', () => {
    const spec = specFromDeclaration(books, labels)
    const query = { q: '', limit: 20, filters: {}, page: 0 }
    expect(searchOf(query, { spec, hidden: new Set(['isbn']), named: false })).toBe('?columns=title,author')
    // Nothing hidden: no columns, unless the URL names them (a choice made, or a link's).
    expect(searchOf(query, { spec, hidden: new Set(), named: false })).toBe('')
    expect(searchOf(query, { spec, hidden: new Set(), named: true })).toBe('?columns=isbn,title,author')
    expect([...hiddenFromSearch('?columns=title,author', spec) ?? []]).toEqual(['isbn'])
    expect([...hiddenFromSearch('?columns=isbn,title,author', spec) ?? ['x']]).toEqual([])
    // No columns, or none of the collection's: the browser's own choice applies.
    expect(hiddenFromSearch('?sort=title', spec)).toBeUndefined()
    expect(hiddenFromSearch('?columns=nope', spec)).toBeUndefined()
  })
})

describe('a fresher copy of a record', () => {
  it('keeps the labels of the references it still names', () => {
    const before = toRecord({ id: 1, title: 'Dune', author: 7, editor: 8, expand: { author: { id: 7, name: 'Frank Herbert' }, editor: { id: 8, name: 'Ed' } } })
    const after = toRecord({ id: 1, title: 'Dune!', author: 7, editor: 9 })
    if (before === undefined || after === undefined) throw new Error('no record')
    keepReferenceLabels(before, after)
    expect(referenceLabel(after, 'author')).toBe('Frank Herbert')
    // Another record named now: its label is not known yet.
    expect(referenceLabel(after, 'editor')).toBeUndefined()
  })
})
