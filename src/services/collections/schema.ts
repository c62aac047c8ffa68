import type { TSchema } from '@sinclair/typebox'
import type { CollectionModel } from '../../http/rest/index.js'
import type { FieldParam } from '../../records/index.js'
import { STORABLE_TEXT_PATTERN } from '../../lib/storable-text.js'
import { linearPattern } from '../../lib/linear-pattern.js'
import { KINDS, nestedScalars, type Kind, type StoredField, type StoredRecord } from '../../domain/index.js'
import { MAX_MAX_LENGTH, type FieldSchema, type CollectionSchema } from './declare.js'
import { keptStampProperty, stampedProperty, stampsOf } from './stamps.js'
import { kindKeyword } from './kind-keyword.js'
import { LABEL, labelFieldOf } from './label.js'

/**
 * The JSON Schemas of a declared collection: what a client sends (the
 * declaration's rules, plus the text every store keeps exactly), what it
 * gets back, its pages and the list query. Plain JSON Schema objects; the
 * TSchema type only says Fastify and the OpenAPI document take them as they are.
 */

export const PAGE_SIZE_DEFAULT = 50
export const PAGE_SIZE_MAX = 500
export const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'

/** `books` → `Books`, `reading-list` → `ReadingList`: titles and operation ids. */
export function pascalOf (name: string): string {
  return name.split('-').map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join('')
}

/** `books` → `Book` for `getBook`; a name not ending in s keeps its form (`getStaffRecord` would need a dictionary). */
export function singularOf (name: string): string {
  const pascal = pascalOf(name)
  return pascal.length > 1 && pascal.endsWith('s') && !pascal.endsWith('ss') ? pascal.slice(0, -1) : pascal
}

export function idSchema (collection: CollectionSchema): Record<string, unknown> {
  return collection.declaration.ids === 'uuid'
    ? { type: 'string', format: 'uuid', description: 'A random UUID the server gives.' }
    : { type: 'integer', minimum: 1, description: 'The server gives 1, 2, 3 … and never gives an id again, also after a delete.' }
}

const SAMPLE_UUID = '0b6c1b8e-3f4a-4c2e-9d7a-5e8f1a2b3c4d'
const FORMAT_SAMPLES: Record<string, string> = {
  date: '2024-05-01', 'date-time': '2024-05-01T12:00:00Z', email: 'ada@example.com', uri: 'https://example.com/', uuid: SAMPLE_UUID
}

/**
 * A plausible value of a declared field for the API description's examples
 * (Swagger UI's "Try it out"): its own `examples[0]` or `enum[0]`, else one
 * that keeps its simple rules (format, pattern from a few candidates, length,
 * bounds). Undefined when none fits: the example leaves an optional field out.
 */
function sampleOf (name: string, field: FieldSchema): unknown {
  if (Array.isArray(field.examples) && field.examples.length > 0) return field.examples[0]
  if (Array.isArray(field.enum) && field.enum.length > 0) return field.enum[0]
  const min = typeof field.minimum === 'number' ? field.minimum : undefined
  const max = typeof field.maximum === 'number' ? field.maximum : undefined
  const clamp = (n: number): number => Math.min(max ?? n, Math.max(min ?? n, n))
  switch (field.type) {
    case 'boolean': return true
    case 'integer': return Math.ceil(clamp(42))
    case 'number': return clamp(9.5)
    case 'string': {
      const minLength = typeof field.minLength === 'number' ? field.minLength : 0
      const maxLength = typeof field.maxLength === 'number' ? field.maxLength : Infinity
      const pattern = typeof field.pattern === 'string' ? linearPattern(field.pattern) : undefined
      const format = typeof field.format === 'string' ? FORMAT_SAMPLES[field.format] : undefined
      const candidates = format !== undefined ? [format] : [`Example ${name}`, name, '978-0-441-01359-3', '0123456789', 'A1', 'a']
      return candidates.find((c) => c.length >= minLength && c.length <= maxLength && (pattern?.test(c) ?? true))
    }
  }
}

/** An example record of the collection (without id), from its declared fields. */
function sampleRecord (collection: CollectionSchema, body = false): Record<string, unknown> {
  const record: Record<string, unknown> = {}
  for (const [name, field] of Object.entries(collection.properties)) {
    // A body never sends what the server stamps.
    if (body && collection.rules.auto[name] !== undefined) continue
    const value = sampleOf(name, field)
    if (value !== undefined) record[name] = value
  }
  return record
}

function sampleId (collection: CollectionSchema): number | string {
  return collection.declaration.ids === 'uuid' ? SAMPLE_UUID : 1
}

/**
 * A field as a body is checked: the declared rules, for text no character a
 * store cannot keep, and its kind's stored form (kindKeyword); a list's items
 * and an object's fields likewise, so a problem names the nested value
 * (`/address/city`, `/tags/2`). A field that takes null takes it also where
 * it has an enum.
 */
function inputField (field: FieldSchema, kind: Kind, nullable: boolean, shape?: StoredField): Record<string, unknown> {
  if (kind === 'list' && shape?.items !== undefined) return { ...field, items: inputField(field.items as FieldSchema, shape.items, false) }
  if (kind === 'object' && shape?.fields !== undefined) {
    const nested = field.properties as Record<string, FieldSchema>
    return { ...field, properties: Object.fromEntries(Object.entries(shape.fields).map(([name, f]) => [name, inputField(nested[name] as FieldSchema, f.type, false, f)])) }
  }
  const { 'x-auto': _auto, ...declared } = field
  const stored: Record<string, unknown> = { ...declared, ...kindKeyword(kind) }
  if (nullable) {
    stored.type = [field.type, 'null']
    if (Array.isArray(field.enum)) stored.enum = [...field.enum, null]
  }
  if (field.type !== 'string') return stored
  return field.pattern === undefined ? { ...stored, pattern: STORABLE_TEXT_PATTERN } : { ...stored, allOf: [{ pattern: STORABLE_TEXT_PATTERN }] }
}

function kindOf (collection: CollectionSchema, name: string): Kind {
  return collection.declaration.fields[name]?.type ?? 'string'
}

/** How a field's values are answered: its kind's representation, a list's items and an object's fields likewise. */
function representedOf (field: FieldSchema, shape: StoredField | undefined): Record<string, unknown> {
  const kind = shape?.type ?? 'string'
  if (kind === 'list' && shape?.items !== undefined) return { type: 'array', items: { ...KINDS[shape.items].represented } }
  if (kind === 'object' && shape?.fields !== undefined) {
    const nested = field.properties as Record<string, FieldSchema>
    const required = Array.isArray(field.required) ? { required: field.required } : {}
    return { type: 'object', properties: Object.fromEntries(Object.entries(shape.fields).map(([name, f]) => [name, representedOf(nested[name] as FieldSchema, f)])), ...required, additionalProperties: false }
  }
  if (kind === 'json') return { type: 'object', additionalProperties: true }
  return { ...KINDS[kind].represented }
}

/** The declared record schema with its id: what GET /collections shows (a field that takes null with its type as declared). */
export function declaredSchema (collection: CollectionSchema): TSchema {
  const properties: Record<string, unknown> = { id: idSchema(collection) }
  for (const [name, field] of Object.entries(collection.properties)) {
    properties[name] = collection.rules.nullable.includes(name) ? { ...field, type: [field.type, 'null'] } : field
  }
  return {
    type: 'object',
    title: singularOf(collection.declaration.name),
    ...(collection.description === undefined ? {} : { description: collection.description }),
    ...(collection.rules.unique.length === 0 ? {} : { 'x-unique': collection.rules.unique }),
    properties,
    required: ['id', ...collection.required],
    additionalProperties: false
  } as unknown as TSchema
}

/**
 * The representation: the id and the fields with their types (what answers
 * and the change feed are written with). A field that takes null is answered
 * as null when unset (the serialiser writes the default); an enum and a
 * stamped field say so.
 */
export function recordSchema (collection: CollectionSchema): TSchema {
  const properties: Record<string, unknown> = { id: idSchema(collection) }
  const { nullable, auto } = collection.rules
  for (const [name, field] of Object.entries(collection.properties)) {
    const represented: Record<string, unknown> = representedOf(field, collection.declaration.fields[name])
    if (typeof field.description === 'string') represented.description = field.description
    if (Array.isArray(field.enum)) represented.enum = nullable.includes(name) ? [...field.enum, null] : field.enum
    if (auto[name] !== undefined) represented.readOnly = true
    if (nullable.includes(name)) {
      represented.type = [represented.type, 'null']
      represented.default = null
    }
    properties[name] = represented
  }
  return {
    type: 'object',
    title: singularOf(collection.declaration.name),
    ...(collection.description === undefined ? {} : { description: collection.description }),
    // The field that names a record where a reference shows it (./label.ts): an extension clients of the API description read.
    [LABEL]: labelFieldOf(collection),
    properties,
    required: ['id', ...collection.required.filter((f) => !nullable.includes(f)), ...Object.keys(auto)],
    additionalProperties: false,
    examples: [{ id: sampleId(collection), ...sampleRecord(collection) }]
  } as unknown as TSchema
}

/** POST body: the fields, checked as declared (defaults filled in, stamped fields set); other members are dropped. */
export function createBody (collection: CollectionSchema): TSchema {
  const { nullable, auto } = collection.rules
  const properties = Object.fromEntries(Object.entries(collection.properties).map(([name, field]) => {
    const stamp = auto[name]
    return [name, stamp === undefined ? inputField(field, kindOf(collection, name), nullable.includes(name), collection.declaration.fields[name]) : stampedProperty(stamp, field.description)]
  }))
  return {
    type: 'object',
    title: `${singularOf(collection.declaration.name)}Input`,
    properties,
    ...(collection.required.length === 0 ? {} : { required: collection.required }),
    additionalProperties: false,
    ...stampsOf(Object.keys(auto)),
    examples: [sampleRecord(collection, true)]
  } as unknown as TSchema
}

/**
 * An import line's fields: a create body's, except that a stamped field keeps
 * the time the line holds (an export read back keeps its times).
 */
export function lineBody (collection: CollectionSchema): TSchema {
  const body = createBody(collection) as unknown as { properties: Record<string, unknown> }
  const properties = { ...body.properties }
  for (const name of Object.keys(collection.rules.auto)) {
    properties[name] = keptStampProperty(inputField(collection.properties[name] as FieldSchema, kindOf(collection, name), false))
  }
  return { ...body, properties } as unknown as TSchema
}

/** PUT body: the same, and optionally the id of the path again. */
export function putBody (collection: CollectionSchema): TSchema {
  const create = createBody(collection) as unknown as { properties: Record<string, unknown> }
  return {
    ...create,
    title: `${singularOf(collection.declaration.name)}Put`,
    properties: { id: { ...idSchema(collection), description: 'Optional: the id of the path again (a different one is 400 ID_MISMATCH).' }, ...create.properties }
    // The example (the create body's) has no id: it would have to equal whatever id the path is given.
  } as unknown as TSchema
}

export function pageSchema (collection: CollectionSchema): TSchema {
  return {
    type: 'object',
    title: `${singularOf(collection.declaration.name)}Page`,
    properties: {
      items: { type: 'array', items: recordSchema(collection) },
      next: { type: 'string', format: 'uri-reference', description: 'The next page (also the `Link: <…>; rel="next"` header); absent on the last page. Follow it as it is.' }
    },
    required: ['items'],
    additionalProperties: false,
    examples: [{ items: [{ id: sampleId(collection), ...sampleRecord(collection) }] }]
  } as unknown as TSchema
}

/** What clients may ask of the list: a filter per field by its type; every field is a sort key (an optional one's unset values first ascending, last descending). */
export function queryModel (collection: CollectionSchema): CollectionModel {
  const { declaration } = collection
  const fields: Record<string, FieldParam> = {
    id: declaration.ids === 'uuid'
      ? { kind: 'string', maxLength: 36, description: 'Ids are UUIDs.' }
      : { kind: 'integer', min: 1, max: Number.MAX_SAFE_INTEGER, description: 'Ids are positive integers.' }
  }
  for (const [name, field] of Object.entries(collection.properties)) {
    // An optional field sorts too (issue 31, item 4): a cursor carries null for a record without it.
    const optional = declaration.fields[name]?.required !== true
    const description = typeof field.description === 'string' ? field.description : ''
    const kind = declaration.fields[name]?.type ?? 'string'
    // Query values keep the field's length cap; integers the range every store keeps exactly, as before any bound was declared.
    const bounds = kind === 'string' ? { maxLength: field.maxLength as number } : kind === 'integer' ? { min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER } : {}
    const values = Array.isArray(field.enum) ? { values: field.enum as Array<string | number> } : {}
    const readOnly = collection.rules.auto[name] !== undefined ? { readOnly: true } : {}
    const items = declaration.fields[name]?.items
    const most = typeof field.maxItems === 'number' ? { mostItems: field.maxItems } : {}
    fields[name] = { kind, ...bounds, description, ...(KINDS[kind].composite === undefined ? {} : { sortable: false }), ...(optional ? { optional } : {}), ...values, ...readOnly, ...(items === undefined ? {} : { items, ...most }) }
  }
  // The scalars inside objects, by dotted path: filters (no `contains`: they have no folded copy) and, when every step is required, sort keys.
  for (const nested of nestedScalars(declaration.fields)) {
    const bounds = nested.kind === 'integer' ? { min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER } : nested.kind === 'string' ? { maxLength: MAX_MAX_LENGTH } : {}
    fields[nested.path] = { kind: nested.kind, ...bounds, description: '', sortable: nested.required, operators: KINDS[nested.kind].operators.filter((op) => op !== 'contains') }
  }
  return { fields, defaultLimit: PAGE_SIZE_DEFAULT, maxLimit: PAGE_SIZE_MAX }
}

/** One record of an NDJSON export: the id and fields with their own JSON types. */
export function recordLine (record: StoredRecord): string {
  return `${JSON.stringify(record)}\n`
}

/** A collection's NDJSON line: recordLine, with null for each unset field that takes null (as JSON answers have it). */
export function lineOf (collection: CollectionSchema): (record: StoredRecord) => string {
  const { nullable } = collection.rules
  if (nullable.length === 0) return recordLine
  return (record) => {
    const shown: Record<string, unknown> = { ...record }
    for (const name of nullable) if (shown[name] === undefined) shown[name] = null
    return recordLine(orderedAs(collection, shown))
  }
}

/** The record's members in declaration order (a null added last would move the field). */
function orderedAs (collection: CollectionSchema, record: Record<string, unknown>): StoredRecord {
  const ordered: Record<string, unknown> = { id: record.id }
  for (const name of Object.keys(collection.properties)) if (Object.hasOwn(record, name)) ordered[name] = record[name]
  return ordered as StoredRecord
}
