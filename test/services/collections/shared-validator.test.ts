import type { FastifySchema } from 'fastify'
import { describe, expect, it } from 'vitest'
import { sharedCollectionValidator } from '../../../src/services/collections/validation.js'

/** A query-string schema whose members count how often they are read (serialising or compiling reads them). */
function countedSchema (): { schema: Record<string, unknown>, reads: () => number } {
  let reads = 0
  const year = { type: 'integer', minimum: 0 }
  const schema = { type: 'object', properties: {} as Record<string, unknown> }
  Object.defineProperty(schema.properties, 'year', { enumerable: true, get: () => { reads++; return year } })
  return { schema, reads: () => reads }
}

describe('a collection\'s shared validator', () => {
  it('reads no schema when its routes are added; the first check compiles, and a bad value is refused alike every time', () => {
    const compile = sharedCollectionValidator()
    const first = countedSchema()
    const second = countedSchema() // another object of the same text (another mount's copy)
    const route = (schema: object): Parameters<typeof compile>[0] => ({ schema: schema as FastifySchema, method: 'GET', url: '/things', httpPart: 'querystring' })
    const a = compile(route(first.schema))
    const again = compile(route(first.schema))
    const b = compile(route(second.schema))
    expect(again).toBe(a)
    expect(first.reads() + second.reads()).toBe(0) // adding routes neither serialises nor compiles a schema

    expect(a({ year: '1965' })).toBe(true)
    expect(first.reads()).toBeGreaterThan(0)
    expect(a({ year: 'long ago' })).toBe(false)
    const firstErrors = a.errors
    expect(firstErrors?.[0]).toMatchObject({ instancePath: '/year', keyword: 'type' })
    expect(a({ year: 'long ago' })).toBe(false)
    expect(a.errors).toEqual(firstErrors)

    // The same text shares the compiled validator: the second object is serialised to be known, not compiled again.
    expect(b({ year: -1 })).toBe(false)
    expect(b.errors?.[0]).toMatchObject({ instancePath: '/year', keyword: 'minimum' })
    expect(b({ year: '7' })).toBe(true)
  })
})
