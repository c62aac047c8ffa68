import type { FieldValue, JsonValue } from '../values.js'
import type { GraphqlScalar, ReadValue } from './definition.js'

/**
 * What the composite kinds (list, object, json) share: their values are JSON,
 * a CSV cell holds that JSON, GraphQL answers it as the `JSON` scalar, and no
 * query, cursor or GraphQL filter reads one value of the whole field.
 */

/** A CSV cell holding a JSON value of the given shape (an array, an object), or what is wrong with it. */
export function jsonCell (text: string, shape: 'array' | 'object'): { value: unknown } | { rule: string } {
  let value: unknown
  try { value = JSON.parse(text) } catch { return { rule: `must be JSON (${shape === 'array' ? 'an array such as ["a","b"]' : 'an object such as {"a":1}'}), not "${text.slice(0, 80)}"` } }
  const ok = shape === 'array' ? Array.isArray(value) : typeof value === 'object' && value !== null && !Array.isArray(value)
  return ok ? { value } : { rule: `must be a JSON ${shape}, not ${text.slice(0, 80)}` }
}

/** The GraphQL scalar of every composite field's values: any JSON. */
export const JSON_SCALAR: GraphqlScalar = {
  name: 'JSON',
  description: 'A JSON value: a list field\'s array, a nested object, a free JSON object.',
  parse: (value) => value as FieldValue
}

/** Query values a composite field never takes as a whole (a list's `has` reads its items' kind: src/records/list-filters.ts). */
export const NO_QUERY = {
  schema: () => ({ type: 'string', maxLength: 1000 }),
  describe: () => 'a value of the list\'s items',
  fromQuery: (value: unknown) => value as FieldValue,
  fromGraphql: (): ReadValue => ({ code: 'FIELD_INVALID', rule: 'is not filtered as a whole' }),
  fromCursor: () => undefined
}

/** Whether a JSON value is a plain object (not an array, not null). */
export function isJsonObject (value: unknown): value is { readonly [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
