import { describe, expect, it } from 'vitest'
import { referenceLabel, specFromDeclaration, toRecord } from '../../../web/app/resources.js'

/** Issue 30, item 6: the web app shows a reference by the target's label, read with the list's `expand`. */
describe('the web app\'s references', () => {
  const books = specFromDeclaration({
    name: 'books',
    url: '/books',
    schema: { properties: { title: { type: 'string' }, author: { type: 'integer', 'x-references': 'authors' }, tag: { type: 'integer', 'x-references': 'tags' } }, required: ['title', 'author'] }
  })

  it('asks the list to expand every reference field', () => {
    expect(books.listParams).toBe('expand=author,tag')
    expect(books.fields.find((f) => f.key === 'author')?.references).toBe('authors')
    expect(specFromDeclaration({ name: 'tags', url: '/tags', schema: { properties: { label: { type: 'string' } } } }).listParams).toBeUndefined()
  })

  it('labels a referenced record by its first text field, else its id', () => {
    const record = toRecord({ id: 1, title: 'Dune', author: 7, tag: 3, expand: { author: { id: 7, name: 'Frank Herbert', born: 1920 }, tag: { id: 3, rank: 2 } } })
    expect(record).toEqual({ id: '1', title: 'Dune', author: 7, tag: 3 })
    if (record === undefined) throw new Error('no record')
    expect(referenceLabel(record, 'author')).toBe('Frank Herbert')
    expect(referenceLabel(record, 'tag')).toBe('#3')
    expect(referenceLabel(toRecord({ id: 2, title: 'Alone', author: 8 }) ?? record, 'author')).toBeUndefined()
  })
})
