import { describe, expect, it } from 'vitest'
import { constraintsOf, declarationOf, DECLARABLE_KINDS, draftOf, labelsRecords } from '../../../web/app/schema-draft.js'

/** The schema editor's model (web/app/schema-draft.ts): a declaration as rows of fields, and back. */
describe('schema drafts', () => {
  const BOOKS = {
    description: 'Books',
    ids: 'sequence',
    unique: [['isbn'], ['title', 'year']],
    schema: {
      type: 'object',
      properties: {
        title: { type: 'string', title: 'Title', maxLength: 200 },
        year: { type: 'integer', minimum: 0, enum: [1965, 1815] },
        isbn: { type: 'string', pattern: '^[0-9-]+$' },
        price: { type: 'number', default: 9.5 },
        available: { type: 'boolean', default: true },
        at: { type: 'string', format: 'date-time' }
      },
      required: ['title']
    }
  }

  it('offers every declarable kind of the registry, each with the constraints its declaration takes', () => {
    expect(DECLARABLE_KINDS).toEqual(expect.arrayContaining(['string', 'integer', 'number', 'boolean', 'date-time']))
    expect(constraintsOf('integer')).toEqual(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'enum'])
    // A kind with a format of its own takes no other.
    expect(constraintsOf('date-time')).toEqual([])
    expect(constraintsOf('boolean')).toEqual([])
  })

  it('reads a declaration into rows and writes the same declaration back', () => {
    const draft = draftOf(BOOKS)
    expect(draft.fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ['title', 'string', true], ['year', 'integer', false], ['isbn', 'string', false], ['price', 'number', false], ['available', 'boolean', false], ['at', 'date-time', false]
    ])
    expect(draft.unique).toBe('isbn; title, year')
    expect(declarationOf(draft)).toEqual(BOOKS)
  })

  it('writes a renamed field with x-renamed-from, a new one with its typed constraints and default', () => {
    const draft = draftOf(BOOKS)
    const title = draft.fields[0]
    if (title === undefined) throw new Error('no title row')
    title.name = 'name'
    draft.fields.push({ row: 99, name: 'pages', kind: 'integer', required: false, constraints: { minimum: '1', enum: '' }, initial: '100', rest: {} })
    const out = declarationOf(draft) as { schema: { properties: Record<string, unknown>, required: string[] }, unique: string[][] }
    expect(out.schema.properties.name).toEqual({ type: 'string', title: 'Title', maxLength: 200, 'x-renamed-from': 'title' })
    expect(out.schema.properties.pages).toEqual({ type: 'integer', minimum: 1, default: 100 })
    expect(out.schema.required).toEqual(['name'])
  })
})

describe('the schema editor\'s label field', () => {
  const TAGS = { schema: { type: 'object', properties: { label: { type: 'string' }, rank: { type: 'integer' } }, required: ['label'] }, ids: 'sequence', 'x-label': 'label' }

  it('reads x-label as the row of its field and writes it back by that field\'s name, renamed or not', () => {
    const draft = draftOf(TAGS)
    expect(draft.label).toBe(draft.fields[0]?.row)
    expect(declarationOf(draft)).toEqual(TAGS)
    const label = draft.fields[0]
    if (label === undefined) throw new Error('no label row')
    label.name = 'name'
    expect(declarationOf(draft)).toMatchObject({ 'x-label': 'name', schema: { properties: { name: { 'x-renamed-from': 'label' } } } })
  })

  it('follows a field that was renamed from the label it names', () => {
    const draft = draftOf({ ...TAGS, schema: { type: 'object', properties: { name: { type: 'string', 'x-renamed-from': 'label' } } } })
    expect(draft.label).toBe(draft.fields[0]?.row)
    expect(declarationOf(draft)['x-label']).toBe('name')
  })

  it('leaves the server\'s rule when the label field is removed or is no longer text', () => {
    const removed = draftOf(TAGS)
    removed.fields = removed.fields.slice(1)
    expect(declarationOf(removed)).not.toHaveProperty('x-label')
    const retyped = draftOf(TAGS)
    const first = retyped.fields[0]
    if (first === undefined) throw new Error('no label row')
    first.kind = 'integer'
    expect(declarationOf(retyped)).not.toHaveProperty('x-label')
    expect(labelsRecords('string')).toBe(true)
    expect(labelsRecords('date-time')).toBe(true)
    expect(labelsRecords('boolean')).toBe(false)
  })
})
