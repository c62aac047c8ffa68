import { JSON_TYPES, KIND_NAMES, KINDS, kindOfSchema, userTableOf, type CollectionDeclaration, type FieldData, type JsonType, type Kind, type StoredField } from '../../domain/index.js'
import { closestWord } from '../../lib/suggest.js'
import { ConfigError } from '../../config.js'
import { linearPattern, PatternRefusal } from '../../lib/linear-pattern.js'
import { tooManyCollections, tooManyFields } from './limits.js'
import { autoStamp, indexKeys, integerEnum, ModelMistake, nullableType, stringEnum, uniqueKeys, type CollectionModelRules } from './model.js'
import { compositeField, isComposite, type CheckedField, type DeclarationTools } from './composite.js'
import { checkReferences, REFERENCE_KEYWORDS, referencesOf } from './references.js'
import { ACCESS_KEYWORDS, accessOf, fieldAccessOf, ruleTextsOf } from './access.js'
import { declaredLabel, LABEL } from './label.js'

/**
 * A user's collection declarations (`--collections books.json`), checked
 * like code: every keyword rqs does not apply is refused, with its JSON path
 * and a hint, so a schema never silently means less than it says.
 */

/** A field's JSON Schema as rqs applies it (the declared keywords, a string's default cap added). */
export type FieldSchema = Readonly<Record<string, unknown>> & { type: JsonType | 'array' | 'object' }

/** A declared collection: what the stores keep, and the JSON Schema the HTTP layer checks records with. */
export interface CollectionSchema {
  declaration: CollectionDeclaration
  /** Its `description`, if declared. */
  description?: string
  /** The record's fields as JSON Schema (no id), in declared order. */
  properties: Readonly<Record<string, FieldSchema>>
  required: readonly string[]
  /** Null, automatic timestamps and unique keys (./model.ts). */
  rules: CollectionModelRules
  /** The declaration as given (one collection of the file's form): what the admin API answers and `rqs collections export` writes. */
  source?: unknown
  /** Fields that declare an earlier name (`"x-renamed-from"`), new name → old. */
  renamedFrom?: Readonly<Record<string, string>>
  /** The string field its declaration names to label a record (`"x-label"`, ./label.ts), renames followed. */
  label?: string
}

export const COLLECTION_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/
export const MAX_COLLECTION_NAME = 40
export const FIELD_NAME = /^[a-z][A-Za-z0-9]{0,62}$/
/**
 * Names this service takes itself: the listing of all, and the directory's
 * own relations (a collection is listed under its name). The other services'
 * collections are refused by refuseTakenNames (./config.ts) once every
 * service's declarations are known; their paths at start (src/services/paths.ts).
 */
export const OWN_NAMES = ['collections', 'self', 'help', 'status', 'service-desc', 'service-doc']
/** A string field without maxLength holds at most this many characters, so every record is bounded. */
export const DEFAULT_MAX_LENGTH = 10_000
/** The most a string field may declare. */
export const MAX_MAX_LENGTH = 100_000
export const ID_KINDS = ['sequence', 'uuid'] as const
export const FORMATS = ['date', 'date-time', 'email', 'uri']

/** A field's earlier name (a change while the server runs moves its values over): `"x-renamed-from": "name"`. */
export const RENAMED_FROM = 'x-renamed-from'

const COLLECTION_KEYS = ['schema', 'ids', 'description', 'unique', 'indexes', 'rules', LABEL]
const OBJECT_KEYS = ['type', 'properties', 'required', 'description', 'title', 'additionalProperties']
const COMMON_KEYS = ['type', 'description', 'title', 'examples', 'default']
/**
 * Annotations of a field beyond JSON Schema: `x-hint`, how a valid value looks
 * in words (the web app says it when a value breaks the pattern); `x-auto`, a
 * timestamp the server sets (./model.ts); `x-references` and `x-on-delete`,
 * a reference to another collection's records (./references.ts); `x-owner`
 * and `x-read`, who owns a record and who sees the field (./access.ts).
 */
const FIELD_EXTENSIONS = ['x-hint', 'x-auto', RENAMED_FROM, ...REFERENCE_KEYWORDS, ...ACCESS_KEYWORDS]
/** The keywords of each type: those of its kinds (src/domain/kinds/), e.g. a string's and a date-time's. */
const KEYS_OF_TYPE = Object.fromEntries(JSON_TYPES.map((type) => [type, [...new Set([...COMMON_KEYS, ...KIND_NAMES.flatMap((k) => {
  const declared = KINDS[k].declaration
  return declared?.type === type ? declared.keywords : []
})])]])) as Record<JsonType, string[]>
const ALL_FIELD_KEYS = [...new Set(Object.values(KEYS_OF_TYPE).flat())]
/** Common names of the types rqs stores under another name. */
const TYPE_ALIASES: Record<string, JsonType> = { int: 'integer', long: 'integer', float: 'number', double: 'number', decimal: 'number', bool: 'boolean', str: 'string', text: 'string' }

/** Thrown with the path of what is wrong; the caller prefixes the file. */
class DeclarationError extends Error {}

function fail (path: string, message: string): never {
  throw new DeclarationError(`${path}: ${message}`)
}

/**
 * The user's collections from the value of `collections` (a file's or the
 * configuration file's), or a ConfigError naming `source` and the JSON path.
 */
export function checkCollections (value: unknown, source: string, others: readonly CollectionSchema[] = []): CollectionSchema[] {
  try {
    return collectionsOf(value, others)
  } catch (err) {
    if (err instanceof DeclarationError) throw new ConfigError(`${source}: ${err.message}`)
    if (err instanceof ModelMistake) throw new ConfigError(`${source}: ${err.path}: ${err.message}`)
    throw err
  }
}

/** `others`: collections served already, which the new ones may reference (a collection created or changed while the server runs). */
function collectionsOf (value: unknown, others: readonly CollectionSchema[]): CollectionSchema[] {
  const map = objectAt('collections', value, 'an object of collections by name, e.g. {"books": {"schema": {…}}}')
  const tooMany = tooManyCollections(Object.keys(map).length)
  if (tooMany !== undefined) fail('collections', tooMany)
  const collections = Object.entries(map).map(([name, declared]) => collectionOf(name, declared))
  checkReferences(collections, fail, others)
  return collections
}

function collectionOf (name: string, value: unknown): CollectionSchema {
  const path = `collections.${name}`
  if (!COLLECTION_NAME.test(name) || name.length > MAX_COLLECTION_NAME) {
    fail(path, `"${name}" is not a collection name: use lower-case letters, digits and inner hyphens, starting with a letter, at most ${MAX_COLLECTION_NAME} characters (e.g. "books", "reading-list")`)
  }
  const collection = objectAt(path, value, 'an object such as {"schema": {…}, "ids": "sequence"}')
  refuseUnknown(path, collection, COLLECTION_KEYS)
  if (!('schema' in collection)) fail(`${path}.schema`, 'is required: the JSON Schema of a record')
  let ids: (typeof ID_KINDS)[number] = 'sequence'
  if (collection.ids !== undefined) {
    const kind = ID_KINDS.find((k) => k === collection.ids)
    if (kind === undefined) fail(`${path}.ids`, `${JSON.stringify(collection.ids)} is no id kind: use "sequence" (1, 2, 3 …, never reused) or "uuid"`)
    ids = kind
  }
  const description = optionalText(`${path}.description`, collection.description)
  const schemaPath = `${path}.schema`
  const schema = objectAt(schemaPath, collection.schema, 'a JSON Schema object: {"type": "object", "properties": {…}}')
  refuseUnknown(schemaPath, schema, OBJECT_KEYS)
  if (schema.type !== 'object') fail(`${schemaPath}.type`, `must be "object", got ${JSON.stringify(schema.type)}`)
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) {
    fail(`${schemaPath}.additionalProperties`, 'may only be false: a record holds its declared fields and nothing else (others are dropped)')
  }
  optionalText(`${schemaPath}.description`, schema.description)
  optionalText(`${schemaPath}.title`, schema.title)
  const declared = objectAt(`${schemaPath}.properties`, schema.properties, 'an object of fields by name, e.g. {"title": {"type": "string"}}')
  if (Object.keys(declared).length === 0) fail(`${schemaPath}.properties`, 'declares no field: a record needs at least one')
  const required = requiredOf(`${schemaPath}.required`, schema.required, declared)
  const properties: Record<string, FieldSchema> = {}
  const fields: Record<string, StoredField> = {}
  const nullable: string[] = []
  const auto: Record<string, 'created' | 'updated'> = {}
  // What a timestamp added to a collection that holds records gives them: the time the declaration is read (the start's).
  const now = new Date().toISOString()
  for (const [field, fieldSchema] of Object.entries(declared)) {
    const fieldPath = `${schemaPath}.properties.${field}`
    if (isComposite(fieldSchema)) {
      // A list, an object or free JSON (./composite.ts): no null, default or timestamp of its own.
      const composite = declaredField(fieldPath, field, fieldSchema, required.includes(field), 1)
      properties[field] = composite.schema as FieldSchema
      fields[field] = composite.stored
      continue
    }
    const checked = fieldOf(fieldPath, field, fieldSchema)
    properties[field] = checked
    const takesNull = (fieldSchema as Record<string, unknown>).type !== checked.type
    if (takesNull) nullable.push(field)
    const stamp = autoStamp(fieldPath, fieldSchema as Record<string, unknown>, required.includes(field))
    if (stamp !== undefined) auto[field] = stamp
    // A stamped field is in every record the server writes: stored as required, so it sorts.
    // A field that takes null is stored as optional (null is kept as unset, SQL NULL), even when a body must name it.
    const kind = kindOfSchema(checked.type as JsonType, checked.format)
    fields[field] = { type: kind, required: (required.includes(field) && !takesNull) || stamp !== undefined, ...storedDefault(kind, stamp === undefined ? checked.default : now) }
  }
  const tooWide = tooManyFields(Object.values(fields).map((f) => f.type))
  if (tooWide !== undefined) fail(`${schemaPath}.properties`, tooWide)
  const unique = uniqueKeys(`${path}.unique`, collection.unique, Object.keys(fields), auto)
  const composites = Object.keys(fields).filter((f) => KINDS[(fields[f] as StoredField).type].composite !== undefined)
  const indexes = indexKeys(`${path}.indexes`, collection.indexes, Object.keys(fields), composites)
  const rules = ruleTextsOf(`${path}.rules`, collection.rules, fail)
  const { owner, read } = fieldAccessOf(`${schemaPath}.properties`, declared, required, fail)
  // A replace keeps the stored creation time whatever the body holds, and the owner the creator gave it.
  const keptOnUpdate = [...Object.keys(auto).filter((f) => auto[f] === 'created'), ...(owner === undefined ? [] : [owner])]
  const references = referencesOf(schemaPath, properties, required, fail)
  const declaration: CollectionDeclaration = { name, table: userTableOf(name), fields, ids, firstId: 1, putCreates: false, keptOnUpdate, ...(unique.length === 0 ? {} : { unique }), ...(indexes === undefined ? {} : { indexes }), ...(references === undefined ? {} : { references }) }
  const access = accessOf(path, schemaPath, { ...(rules === undefined ? {} : { rules }), ...(owner === undefined ? {} : { owner }), ...(read === undefined ? {} : { read }) }, declaration, fail)
  if (access !== undefined) declaration.access = access
  const renamedFrom: Record<string, string> = {}
  for (const [field, fieldSchema] of Object.entries(declared)) {
    const from = (fieldSchema as Record<string, unknown>)[RENAMED_FROM]
    if (from === undefined) continue
    if (typeof from !== 'string' || !FIELD_NAME.test(from)) fail(`${schemaPath}.properties.${field}.${RENAMED_FROM}`, 'must be the field\'s earlier name, e.g. "title"')
    renamedFrom[field] = from
  }
  const label = declaredLabel(`${path}.${LABEL}`, collection[LABEL], { properties, required }, renamedFrom, fail)
  return {
    declaration,
    ...(description === undefined ? {} : { description }),
    properties,
    required,
    rules: { nullable, auto, unique },
    source: value,
    ...(Object.keys(renamedFrom).length === 0 ? {} : { renamedFrom }),
    ...(label === undefined ? {} : { label })
  }
}

/** A default in the form the stores keep (a date-time in UTC), for filling a field added to records held; none for null. */
function storedDefault (kind: Kind, value: unknown): { default?: FieldData } {
  if (value === undefined || value === null) return {}
  const canonical = KINDS[kind].canonical
  const stored = canonical === undefined ? value : canonical(value)
  // A default its kind cannot keep is refused at start by ./defaults.ts, with the field's other rules.
  return typeof stored === 'string' || typeof stored === 'number' || typeof stored === 'boolean' ? { default: stored } : {}
}

function requiredOf (path: string, value: unknown, properties: Record<string, unknown>): string[] {
  if (value === undefined) return []
  if (!Array.isArray(value)) fail(path, 'must be an array of field names, e.g. ["title"]')
  const names: string[] = []
  for (const [i, name] of value.entries()) {
    if (typeof name !== 'string') fail(`${path}.${i}`, `must be a field name, got ${JSON.stringify(name)}`)
    if (!Object.hasOwn(properties, name)) {
      const guess = closestWord(name, Object.keys(properties))
      fail(`${path}.${i}`, `"${name}" is not a declared field${guess === undefined ? '' : `; did you mean "${guess}"?`}`)
    }
    if (names.includes(name)) fail(`${path}.${i}`, `"${name}" is listed twice`)
    names.push(name)
  }
  return names
}

/** A field of a record (depth 1) or of a nested object (deeper): a scalar, or a composite (./composite.ts). */
function declaredField (path: string, name: string, value: unknown, required: boolean, depth: number): CheckedField {
  if (depth === 1 && name === 'id') fail(path, 'a field may not be named "id": rqs gives every record its id')
  if (!isComposite(value)) return scalarField(path, name, value, required)
  if (!FIELD_NAME.test(name)) fieldOf(path, name, value) // the name's refusal
  return compositeField(path, value as Record<string, unknown>, required, depth, TOOLS)
}

function scalarField (path: string, name: string, value: unknown, required: boolean): CheckedField {
  const schema = fieldOf(path, name, value)
  return { schema, stored: { type: kindOfSchema(schema.type as JsonType, schema.format), required } }
}

const TOOLS: DeclarationTools = {
  fail,
  scalar: scalarField,
  field: declaredField,
  required: requiredOf,
  refuseUnknown: (path, object, known) => { refuseUnknown(path, object, known) }
}

function fieldOf (path: string, name: string, value: unknown): FieldSchema {
  if (name === 'id' && !path.endsWith('.items')) fail(path, 'a field may not be named "id": rqs gives every record its id')
  if (name !== 'items' && !FIELD_NAME.test(name)) fail(path, `"${name}" is not a field name: use camelCase letters and digits, starting with a lower-case letter, at most 63 characters (e.g. "title", "publishedYear")`)
  const schema = objectAt(path, value, 'a JSON Schema such as {"type": "string"}')
  const type = typeOf(`${path}.type`, nullableType(`${path}.type`, schema.type, JSON_TYPES).type)
  refuseUnknown(path, schema, KEYS_OF_TYPE[type], type)
  optionalText(`${path}.description`, schema.description)
  optionalText(`${path}.title`, schema.title)
  optionalText(`${path}.x-hint`, schema['x-hint'])
  if (schema.examples !== undefined && !Array.isArray(schema.examples)) fail(`${path}.examples`, 'must be an array of example values')
  const field: Record<string, unknown> = { ...schema, type }
  if (type === 'string') stringRules(path, schema, field)
  if (type === 'integer' || type === 'number') numberRules(path, schema, field, type)
  if (type === 'integer') integerEnum(path, schema.enum)
  return field as FieldSchema
}

function typeOf (path: string, value: unknown): JsonType {
  if (value === undefined) fail(path, `is required: one of ${JSON_TYPES.join(', ')}`)
  const type = JSON_TYPES.find((t) => t === value)
  if (type !== undefined) return type
  if (typeof value !== 'string') fail(path, `must be one of ${JSON_TYPES.join(', ')}, got ${JSON.stringify(value)}`)
  const alias = Object.hasOwn(TYPE_ALIASES, value.toLowerCase()) ? TYPE_ALIASES[value.toLowerCase()] : closestWord(value, JSON_TYPES)
  if (alias !== undefined) fail(path, `"${value}" is not a type; use "${alias}"`)
  if (value === 'null') fail(path, `"${value}" is not a type rqs stores: a field is a string, integer, number, boolean, array or object`)
  fail(path, `"${value}" is not a type: use one of ${JSON_TYPES.join(', ')}`)
}

function stringRules (path: string, schema: Record<string, unknown>, field: Record<string, unknown>): void {
  const min = lengthAt(`${path}.minLength`, schema.minLength)
  const max = lengthAt(`${path}.maxLength`, schema.maxLength)
  if (max !== undefined && max > MAX_MAX_LENGTH) fail(`${path}.maxLength`, `may be at most ${MAX_MAX_LENGTH}`)
  if (min !== undefined && max !== undefined && min > max) fail(`${path}.minLength`, `${min} is more than maxLength ${max}`)
  field.maxLength = max ?? DEFAULT_MAX_LENGTH
  if (schema.pattern !== undefined) {
    if (typeof schema.pattern !== 'string') fail(`${path}.pattern`, 'must be a regular expression in a string')
    try { new RegExp(schema.pattern, 'u') } catch (err) { fail(`${path}.pattern`, `is not a regular expression: ${(err as Error).message}`) }
    // Checked on RE2 (linear time, issue 36): what it cannot run is refused here, not at the first request.
    try { linearPattern(schema.pattern) } catch (err) { if (err instanceof PatternRefusal) fail(`${path}.pattern`, err.message); throw err }
  }
  stringEnum(path, schema.enum)
  if (schema.format !== undefined && !FORMATS.includes(schema.format as string)) {
    const guess = typeof schema.format === 'string' ? closestWord(schema.format, FORMATS) : undefined
    fail(`${path}.format`, `${JSON.stringify(schema.format)} is not a format rqs checks: use ${FORMATS.join(', ')}${guess === undefined ? '' : ` (did you mean "${guess}"?)`}`)
  }
}

function numberRules (path: string, schema: Record<string, unknown>, field: Record<string, unknown>, type: 'integer' | 'number'): void {
  for (const key of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']) {
    const bound = schema[key]
    if (bound === undefined) continue
    if (typeof bound !== 'number') fail(`${path}.${key}`, `must be a number, got ${JSON.stringify(bound)}`)
    if (type === 'integer' && Math.abs(bound) > Number.MAX_SAFE_INTEGER) fail(`${path}.${key}`, `must be within ±${Number.MAX_SAFE_INTEGER}: integers are kept exactly only that far`)
  }
  const low = (schema.minimum ?? schema.exclusiveMinimum) as number | undefined
  const high = (schema.maximum ?? schema.exclusiveMaximum) as number | undefined
  if (low !== undefined && high !== undefined && low > high) fail(`${path}.minimum`, `${low} is more than the maximum ${high}`)
  // Every store keeps an integer exactly up to 2^53 − 1: the bounds say so unless the declaration is narrower.
  if (type === 'integer') {
    if (low === undefined) field.minimum = -Number.MAX_SAFE_INTEGER
    if (high === undefined) field.maximum = Number.MAX_SAFE_INTEGER
  }
}

function lengthAt (path: string, value: unknown): number | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) fail(path, `must be a non-negative integer, got ${JSON.stringify(value)}`)
  return value
}

function optionalText (path: string, value: unknown): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string') fail(path, `must be a string, got ${JSON.stringify(value)}`)
  return value
}

function objectAt (path: string, value: unknown, expected: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, `must be ${expected}`)
  return value as Record<string, unknown>
}

/** Refuses keys that are not among `known`: a keyword of another type says so, anything else gets a "did you mean". */
function refuseUnknown (path: string, object: Record<string, unknown>, known: readonly string[], type?: JsonType): void {
  for (const key of Object.keys(object)) {
    if (known.includes(key) || (type !== undefined && FIELD_EXTENSIONS.includes(key))) continue
    if (type !== undefined && ALL_FIELD_KEYS.includes(key)) {
      const types = JSON_TYPES.filter((t) => KEYS_OF_TYPE[t].includes(key))
      fail(`${path}.${key}`, `applies to ${types.join(' and ')} fields, not to ${type === 'integer' ? 'an' : 'a'} ${type} field`)
    }
    if (type !== undefined && (key === 'properties' || key === 'items')) fail(`${path}.${key}`, `applies to ${key === 'items' ? 'array' : 'object'} fields, not to ${type === 'integer' ? 'an' : 'a'} ${type} field: declare "type": "${key === 'items' ? 'array' : 'object'}"`)
    const guess = closestWord(key, known)
    fail(`${path}.${key}`, `unknown keyword "${key}"${guess === undefined ? '' : `; did you mean "${guess}"?`} (allowed here: ${known.join(', ')})`)
  }
}
