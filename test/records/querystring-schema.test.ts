import { Kind, OptionalKind, Type, type TSchema } from '@sinclair/typebox'
import { describe, expect, it } from 'vitest'
import { querystringSchema } from '../../src/records/index.js'
import { STUDENT_QUERY } from '../../src/services/students/query.js'

/**
 * A list's query string marks its own, freshly made parameters optional in place instead of copying each
 * through `Type.Partial`: the schema must be the one `Type.Partial(Type.Object(…))` made, key for key.
 */
describe('a list\'s query-string schema', () => {
  it('is Type.Partial of its parameters: every one optional, none required, the same JSON', () => {
    const schema = querystringSchema(STUDENT_QUERY) as TSchema & { properties: Record<string, TSchema & { [OptionalKind]?: string }> }
    const properties = Object.values(schema.properties)
    expect(properties.length).toBeGreaterThan(20)
    expect(schema[Kind]).toBe('Object')
    expect(schema.required).toBeUndefined()
    for (const property of properties) expect(property[OptionalKind]).toBe('Optional')
    // What Type.Partial would make of the same parameters, without the optional mark.
    const plain = Object.fromEntries(Object.entries(schema.properties).map(([name, p]) => {
      const { [OptionalKind]: _optional, ...rest } = p
      return [name, rest as TSchema]
    }))
    const partial = Type.Partial(Type.Object(plain))
    expect(JSON.stringify(schema)).toBe(JSON.stringify(partial))
    expect(schema).toStrictEqual(partial)
  })

  it('is made anew on each call: no parameter object is shared between two lists', () => {
    const a = querystringSchema(STUDENT_QUERY) as TSchema & { properties: Record<string, object> }
    const b = querystringSchema(STUDENT_QUERY) as TSchema & { properties: Record<string, object> }
    for (const name of Object.keys(a.properties)) expect(a.properties[name]).not.toBe(b.properties[name])
  })
})
