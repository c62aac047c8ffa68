import { describe, expect, it } from 'vitest'
import { specFromDeclaration } from '../../../web/app/resources.js'
import { filterParams, queryFromSearch } from '../../../web/app/view-state.js'
import type { AppCollection } from '../../../src/services/app/page-config.js'

/** Issue 29 in the web app's views: enums, null, defaults and timestamps read from a declared schema. */
const BOOKS: AppCollection = {
  name: 'books',
  url: '/books',
  schema: {
    properties: {
      title: { type: 'string' },
      status: { type: 'string', enum: ['draft', 'published'], default: 'draft' },
      rating: { type: ['integer', 'null'], enum: [1, 2, 3, null] },
      copies: { type: 'integer', default: 1 },
      createdAt: { type: 'string', format: 'date-time', 'x-auto': 'created' }
    },
    required: ['title']
  },
  sort: ['id', 'title', 'createdAt']
}

describe('a declared collection\'s data model in the web app', () => {
  const spec = specFromDeclaration(BOOKS)
  const field = (key: string): (typeof spec.fields)[number] | undefined => spec.fields.find((f) => f.key === key)

  it('reads a nullable type as its kind, an enum as the values a select offers, a default as the form\'s start', () => {
    expect(field('rating')).toMatchObject({ kind: 'integer', allowed: ['1', '2', '3'] })
    expect(field('status')).toMatchObject({ kind: 'string', allowed: ['draft', 'published'], initial: 'draft' })
    expect(field('copies')).toMatchObject({ kind: 'integer', initial: '1' })
    expect(field('createdAt')).toMatchObject({ kind: 'date-time', readOnly: true, editable: false })
  })

  it('never sends a timestamp, and sends an integer enum\'s choice as a number', () => {
    const values = { title: 'Dune', status: 'published', rating: '3', copies: '1', createdAt: '2024-01-01T00:00:00.000Z' }
    expect(spec.createBody(values)).toEqual({ title: 'Dune', status: 'published', rating: 3, copies: 1 })
    expect(spec.replaceBody({ ...values, rating: '' })).toEqual({ title: 'Dune', status: 'published', copies: 1 })
  })

  it('filters an enum by one of its values, and drops a link\'s value that is none of them', () => {
    expect(filterParams(field('status') ?? spec.fields[0]!)).toEqual(['status'])
    expect(queryFromSearch('?status=published&rating=3', spec).filters).toEqual({ status: 'published', rating: '3' })
    expect(queryFromSearch('?status=gone', spec).filters).toEqual({})
  })
})
