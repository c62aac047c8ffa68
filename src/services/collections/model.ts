import { closestWord } from '../../lib/suggest.js'
import type { JsonType } from '../../domain/index.js'

/**
 * The data-model keywords of a declaration (issue 29, items 2–6) beside the
 * plain field rules of ./declare.ts: automatic timestamps (`x-auto`), enums,
 * nullable types (`"type": ["string", "null"]`), defaults and the
 * collection's unique keys. Pure checks of the declaration's JSON: what a
 * default's value must satisfy is checked against the field's own rules by
 * ./defaults.ts, with the validators the routes use.
 */

/** What the server stamps into a field: the time of the create, or of every write. */
export type AutoStamp = 'created' | 'updated'
export const AUTO_STAMPS: readonly AutoStamp[] = ['created', 'updated']

/** The model of a collection beyond its field types: which fields take null, which the server stamps, its unique keys. */
export interface CollectionModelRules {
  /** Fields declared `"type": [T, "null"]`: a body may send null (stored as unset, answered as null). */
  nullable: readonly string[]
  /** Fields the server sets (`x-auto`), read-only to clients. */
  auto: Readonly<Record<string, AutoStamp>>
  /** The unique keys, each the fields whose values together no two records share. */
  unique: ReadonlyArray<readonly string[]>
}

export const NO_RULES: CollectionModelRules = { nullable: [], auto: {}, unique: [] }

/** Thrown with the JSON path of the mistake; ./declare.ts turns it into its own error. */
export class ModelMistake extends Error {
  constructor (readonly path: string, message: string) {
    super(message)
  }
}

function fail (path: string, message: string): never {
  throw new ModelMistake(path, message)
}

/**
 * A field's `type` that may name null beside one JSON type: the type and
 * whether null is allowed. A plain type (a string) is the caller's to check.
 */
export function nullableType (path: string, value: unknown, types: readonly JsonType[]): { type: unknown, nullable: boolean } {
  if (!Array.isArray(value)) return { type: value, nullable: false }
  const others = value.filter((t) => t !== 'null')
  if (value.length !== 2 || others.length !== 1 || !value.includes('null')) {
    fail(path, `must be one type, or one type and "null" such as ["string", "null"] (a field may hold null); got ${JSON.stringify(value)}`)
  }
  if (!types.some((t) => t === others[0])) fail(path, `${JSON.stringify(others[0])} is not a type to pair with "null": use one of ${types.join(', ')}`)
  return { type: others[0], nullable: true }
}

/** `x-auto` of a field: only on a date-time string, never required nor defaulted. */
export function autoStamp (path: string, schema: Record<string, unknown>, required: boolean): AutoStamp | undefined {
  const value = schema['x-auto']
  if (value === undefined) return undefined
  const stamp = AUTO_STAMPS.find((s) => s === value)
  if (stamp === undefined) {
    const guess = typeof value === 'string' ? closestWord(value, AUTO_STAMPS) : undefined
    fail(`${path}.x-auto`, `${JSON.stringify(value)} is no automatic timestamp: use "created" (set when the record is created) or "updated" (set on every write)${guess === undefined ? '' : `; did you mean "${guess}"?`}`)
  }
  if (schema.type !== 'string' || schema.format !== 'date-time') fail(`${path}.x-auto`, 'applies to a date-time field only: {"type": "string", "format": "date-time", "x-auto": "created"}')
  if (required) fail(`${path}.x-auto`, 'the server sets this field, so a client never sends it: leave it out of "required" (every record has it anyway)')
  if (schema.default !== undefined) fail(`${path}.default`, 'an automatic timestamp has no default: the server sets it')
  if (Array.isArray(schema.type)) fail(`${path}.type`, 'an automatic timestamp is never null: declare "type": "string"')
  return stamp
}

/** An integer field's `enum`: a non-empty list of distinct integers (a string's is checked in ./declare.ts). */
export function integerEnum (path: string, value: unknown): void {
  if (value === undefined) return
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'number' && Number.isSafeInteger(v))) {
    fail(`${path}.enum`, 'must be a non-empty array of integers, e.g. [1, 2, 3]')
  }
  distinct(`${path}.enum`, value)
}

/** A string field's `enum`: non-empty, distinct strings. */
export function stringEnum (path: string, value: unknown): void {
  if (value === undefined) return
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'string')) fail(`${path}.enum`, 'must be a non-empty array of strings, e.g. ["draft", "published"]')
  distinct(`${path}.enum`, value)
}

function distinct (path: string, values: readonly unknown[]): void {
  const seen = new Set<unknown>()
  for (const [i, v] of values.entries()) {
    if (seen.has(v)) fail(`${path}.${i}`, `${JSON.stringify(v)} is listed twice`)
    seen.add(v)
  }
}

/** The most fields a unique key may combine. */
export const MAX_KEY_FIELDS = 4

/**
 * The collection's `unique`: an array of keys, each a non-empty array of
 * distinct declared fields (`[["isbn"], ["title", "year"]]`). A field the
 * server stamps is no key: two writes in one millisecond would collide.
 */
export function uniqueKeys (path: string, value: unknown, fields: readonly string[], auto: Readonly<Record<string, AutoStamp>>): string[][] {
  if (value === undefined) return []
  return fieldLists(path, value, fields, {
    shape: 'an array of keys, each an array of field names: [["isbn"], ["title", "year"]]',
    example: '["isbn"]',
    what: 'a key',
    field: (name) => auto[name] === undefined ? undefined : `"${name}" is set by the server (x-auto) and cannot be part of a unique key`,
    // A key is a set of fields: ["title", "year"] and ["year", "title"] are one key.
    same: (a, b) => a.length === b.length && a.every((n) => b.includes(n)),
    twice: 'the key'
  })
}

/**
 * The collection's `indexes`: an array of indexes, each a non-empty array of
 * at most MAX_KEY_FIELDS distinct declared fields (`[["year"], ["author",
 * "year"]]`); `[]` declares none. A list, object or free-JSON field (in
 * `composites`) may only be indexed alone, as it is when nothing is declared.
 */
export function indexKeys (path: string, value: unknown, fields: readonly string[], composites: readonly string[]): string[][] | undefined {
  if (value === undefined) return undefined
  return fieldLists(path, value, fields, {
    shape: 'an array of indexes, each an array of field names: [["year"], ["author", "year"]] ([] for none)',
    example: '["year"]',
    what: 'an index',
    field: (name, key) => key.length > 1 && composites.includes(name) ? `"${name}" holds a list, an object or JSON: it can be indexed alone (["${name}"]), not with other fields` : undefined,
    // An index is ordered: ["author", "year"] and ["year", "author"] sort differently.
    same: (a, b) => a.length === b.length && a.every((n, x) => n === b[x]),
    twice: 'the index'
  })
}

/** How fieldLists words and checks one kind of list of field lists (unique keys, indexes). */
interface FieldListRules {
  shape: string
  example: string
  /** "a key", "an index": what combines at most MAX_KEY_FIELDS fields. */
  what: string
  /** A mistake of this kind's own about one field of a list, or undefined. */
  field: (name: string, key: readonly unknown[]) => string | undefined
  same: (a: readonly string[], b: readonly string[]) => boolean
  twice: string
}

/** An array of non-empty arrays of at most MAX_KEY_FIELDS distinct declared fields, each list once. */
function fieldLists (path: string, value: unknown, fields: readonly string[], rules: FieldListRules): string[][] {
  if (!Array.isArray(value)) fail(path, `must be ${rules.shape}`)
  const keys: string[][] = []
  for (const [i, key] of value.entries()) {
    const at = `${path}.${i}`
    if (typeof key === 'string') fail(at, `must be an array of field names: write ["${key}"]`)
    if (!Array.isArray(key) || key.length === 0) fail(at, `must be a non-empty array of field names, e.g. ${rules.example}`)
    if (key.length > MAX_KEY_FIELDS) fail(at, `combines ${key.length} fields; ${rules.what} combines at most ${MAX_KEY_FIELDS}`)
    const names: string[] = []
    for (const [j, name] of key.entries()) {
      if (typeof name !== 'string') fail(`${at}.${j}`, `must be a field name, got ${JSON.stringify(name)}`)
      if (!fields.includes(name)) {
        const guess = closestWord(name, fields)
        fail(`${at}.${j}`, `"${name}" is not a declared field${guess === undefined ? '' : `; did you mean "${guess}"?`}`)
      }
      const mistake = rules.field(name, key)
      if (mistake !== undefined) fail(`${at}.${j}`, mistake)
      if (names.includes(name)) fail(`${at}.${j}`, `"${name}" is listed twice`)
      names.push(name)
    }
    if (keys.some((k) => rules.same(k, names))) fail(at, `${rules.twice} ${JSON.stringify(names)} is declared twice`)
    keys.push(names)
  }
  return keys
}
