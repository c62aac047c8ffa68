import type { Ajv } from 'ajv'
import { KINDS, MAX_DEPTH, type Kind, type StoredField } from '../../domain/index.js'

/**
 * The composite fields of a declaration (issue 29, items 7 and 8): lists of
 * scalars, nested objects up to MAX_DEPTH levels, and free JSON. Checked like
 * the scalar fields (every keyword rqs does not apply refused with its JSON
 * path and a hint); what they become is a JSON Schema the bodies are checked
 * with and a StoredField whose `items` or `fields` the stores read.
 */

/** A list holds at most this many items unless it declares maxItems. */
export const DEFAULT_MAX_ITEMS = 100
/** The most items a list may declare. */
export const MAX_MAX_ITEMS = 1000
/** A free JSON field's value, as JSON text, holds at most this many characters (64 KiB). */
export const MAX_JSON_LENGTH = 65_536

// `x-on-delete` of a list of references (./references.ts) sits on the list, not on its items.
const ARRAY_KEYS = ['type', 'items', 'maxItems', 'minItems', 'uniqueItems', 'description', 'title', 'examples', 'x-on-delete']
const NESTED_KEYS = ['type', 'properties', 'required', 'additionalProperties', 'description', 'title']
const JSON_KEYS = ['type', 'additionalProperties', 'description', 'title', 'examples']

/** A checked field: its JSON Schema as rqs applies it and what the stores keep of it. */
export interface CheckedField {
  schema: Record<string, unknown> & { type: string }
  stored: StoredField
}

/** How a declaration fails at a JSON path; how a scalar field is checked (declare.ts's, handed in to keep one module per concern). */
export interface DeclarationTools {
  fail: (path: string, message: string) => never
  scalar: (path: string, name: string, value: unknown, required: boolean) => CheckedField
  field: (path: string, name: string, value: unknown, required: boolean, depth: number) => CheckedField
  required: (path: string, value: unknown, properties: Record<string, unknown>) => string[]
  refuseUnknown: (path: string, object: Record<string, unknown>, known: readonly string[]) => void
}

/** Whether a field's schema declares a composite (an array or an object). */
export function isComposite (value: unknown): boolean {
  const type = (value as { type?: unknown } | null)?.type
  return type === 'array' || type === 'object'
}

export function compositeField (path: string, schema: Record<string, unknown>, required: boolean, depth: number, tools: DeclarationTools): CheckedField {
  return schema.type === 'array' ? listField(path, schema, required, tools) : objectField(path, schema, required, depth, tools)
}

function listField (path: string, schema: Record<string, unknown>, required: boolean, tools: DeclarationTools): CheckedField {
  tools.refuseUnknown(path, schema, ARRAY_KEYS)
  if (schema.items === undefined) tools.fail(`${path}.items`, 'is required: the schema of every item, e.g. {"type": "string"}')
  if (isComposite(schema.items)) {
    tools.fail(`${path}.items`, 'must be a scalar (string, integer, number, boolean, date-time): lists of objects or of lists are not supported; declare the object as a collection of its own, or use free JSON ({"type": "object", "additionalProperties": true})')
  }
  const items = tools.scalar(`${path}.items`, 'items', schema.items, true)
  const max = count(`${path}.maxItems`, schema.maxItems, tools) ?? DEFAULT_MAX_ITEMS
  if (max > MAX_MAX_ITEMS) tools.fail(`${path}.maxItems`, `may be at most ${MAX_MAX_ITEMS}`)
  const min = count(`${path}.minItems`, schema.minItems, tools)
  if (min !== undefined && min > max) tools.fail(`${path}.minItems`, `${min} is more than maxItems ${max}`)
  if (schema.uniqueItems !== undefined && typeof schema.uniqueItems !== 'boolean') tools.fail(`${path}.uniqueItems`, 'must be true or false')
  if (schema.examples !== undefined && !Array.isArray(schema.examples)) tools.fail(`${path}.examples`, 'must be an array of example values')
  return {
    schema: { ...schema, type: 'array', items: items.schema, maxItems: max },
    stored: { type: 'list', required, items: items.stored.type }
  }
}

function objectField (path: string, schema: Record<string, unknown>, required: boolean, depth: number, tools: DeclarationTools): CheckedField {
  if (schema.properties === undefined) {
    if (schema.additionalProperties !== true) {
      tools.fail(path, 'an object field declares its fields ("properties": {…}) or is free JSON ("additionalProperties": true, no properties)')
    }
    tools.refuseUnknown(path, schema, JSON_KEYS)
    if (schema.examples !== undefined && !Array.isArray(schema.examples)) tools.fail(`${path}.examples`, 'must be an array of example values')
    return { schema: { ...schema, type: 'object', [JSON_KEYWORD]: true }, stored: { type: 'json', required } }
  }
  tools.refuseUnknown(path, schema, NESTED_KEYS)
  if (depth > MAX_DEPTH) tools.fail(path, `objects nest at most ${MAX_DEPTH} levels deep: flatten this one into its parent, or keep it as free JSON ({"type": "object", "additionalProperties": true})`)
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) {
    tools.fail(`${path}.additionalProperties`, 'may only be false with properties: an object holds its declared fields (others are dropped); free JSON declares no properties')
  }
  if (typeof schema.properties !== 'object' || schema.properties === null || Array.isArray(schema.properties)) tools.fail(`${path}.properties`, 'must be an object of fields by name, e.g. {"city": {"type": "string"}}')
  const declared = schema.properties as Record<string, unknown>
  if (Object.keys(declared).length === 0) tools.fail(`${path}.properties`, 'declares no field: an object needs at least one')
  const requiredNames = tools.required(`${path}.required`, schema.required, declared)
  const properties: Record<string, unknown> = {}
  const fields: Record<string, StoredField> = {}
  for (const [name, value] of Object.entries(declared)) {
    const checked = tools.field(`${path}.properties.${name}`, name, value, requiredNames.includes(name), depth + 1)
    properties[name] = checked.schema
    fields[name] = checked.stored
  }
  return {
    schema: { type: 'object', ...(typeof schema.description === 'string' ? { description: schema.description } : {}), ...(typeof schema.title === 'string' ? { title: schema.title } : {}), properties, ...(requiredNames.length === 0 ? {} : { required: requiredNames }), additionalProperties: false },
    stored: { type: 'object', required, fields }
  }
}

function count (path: string, value: unknown, tools: DeclarationTools): number | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) tools.fail(path, `must be a non-negative integer, got ${JSON.stringify(value)}`)
  return value
}

/**
 * `x-rqs-json`: the keyword of a free JSON field. Its text is at most
 * MAX_JSON_LENGTH characters, and it holds no integer beyond ±2^53 − 1: JSON
 * parsing would already have rounded one, and rqs keeps numbers exactly or
 * refuses them.
 */
export const JSON_KEYWORD = 'x-rqs-json'

export function addJsonKeyword (ajv: Ajv): void {
  ajv.addKeyword({
    keyword: JSON_KEYWORD,
    schemaType: 'boolean',
    errors: false,
    validate: (_: boolean, data: unknown) => JSON.stringify(data).length <= MAX_JSON_LENGTH && exactNumbers(data)
  })
}

function exactNumbers (value: unknown): boolean {
  if (typeof value === 'number') return Number.isInteger(value) ? Number.isSafeInteger(value) : Number.isFinite(value)
  if (Array.isArray(value)) return value.every(exactNumbers)
  if (typeof value === 'object' && value !== null) return Object.values(value).every(exactNumbers)
  return true
}

/** Whether a kind is a composite one. */
export function isCompositeKind (kind: Kind): boolean {
  return KINDS[kind].composite !== undefined
}
