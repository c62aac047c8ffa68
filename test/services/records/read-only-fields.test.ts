import { describe, expect, it } from 'vitest'
import { readOnlyFields } from '../../../src/services/records/bodies.js'

describe('readOnlyFields', () => {
  it('lists the fields a schema marks readOnly, read once per schema object', () => {
    const schema = { type: 'object', properties: { title: { type: 'string' }, created: { type: 'string', readOnly: true }, updated: { type: 'string', readOnly: true } } }
    const fields = readOnlyFields(schema)
    expect(fields).toEqual(['created', 'updated'])
    // The same answer object for every route that asks (three per mount), and none of them can change it.
    expect(readOnlyFields(schema)).toBe(fields)
    expect(Object.isFrozen(fields)).toBe(true)
    // Another schema object is read on its own.
    expect(readOnlyFields({ ...schema, properties: { title: { type: 'string', readOnly: true } } })).toEqual(['title'])
  })

  it('reads no fields of a schema without properties, or of no schema', () => {
    expect(readOnlyFields({ type: 'object' })).toEqual([])
    expect(readOnlyFields(undefined)).toEqual([])
  })
})
