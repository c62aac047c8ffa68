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
  if (!Array.isArray(value)) fail(path, 'must be an array of keys, each an array of field names: [["isbn"], ["title", "year"]]')
  const keys: string[][] = []
  for (const [i, key] of value.entries()) {
    const at = `${path}.${i}`
    if (typeof key === 'string') fail(at, `must be an array of field names: write ["${key}"]`)
    if (!Array.isArray(key) || key.length === 0) fail(at, 'must be a non-empty array of field names, e.g. ["isbn"]')
    if (key.length > MAX_KEY_FIELDS) fail(at, `combines ${key.length} fields; a key combines at most ${MAX_KEY_FIELDS}`)
    const names: string[] = []
    for (const [j, name] of key.entries()) {
      if (typeof name !== 'string') fail(`${at}.${j}`, `must be a field name, got ${JSON.stringify(name)}`)
      if (!fields.includes(name)) {
        const guess = closestWord(name, fields)
        fail(`${at}.${j}`, `"${name}" is not a declared field${guess === undefined ? '' : `; did you mean "${guess}"?`}`)
      }
      if (auto[name] !== undefined) fail(`${at}.${j}`, `"${name}" is set by the server (x-auto) and cannot be part of a unique key`)
      if (names.includes(name)) fail(`${at}.${j}`, `"${name}" is listed twice`)
      names.push(name)
    }
    if (keys.some((k) => k.length === names.length && k.every((n) => names.includes(n)))) fail(at, `the key ${JSON.stringify(names)} is declared twice`)
    keys.push(names)
  }
  return keys
}

/**
 * The collection's `indexes`: an array of indexes, each a non-empty array of
 * at most MAX_KEY_FIELDS distinct declared fields (`[["year"], ["author",
 * "year"]]`); `[]` declares none. A list, object or free-JSON field (in
 * `composites`) may only be indexed alone, as it is when nothing is declared.
 */
export function indexKeys (path: string, value: unknown, fields: readonly string[], composites: readonly string[]): string[][] | undefined {
  if (value === undefined) return undefined
  if (!Array.isArray(value)) fail(path, 'must be an array of indexes, each an array of field names: [["year"], ["author", "year"]] ([] for none)')
  const keys: string[][] = []
  for (const [i, key] of value.entries()) {
    const at = `${path}.${i}`
    if (typeof key === 'string') fail(at, `must be an array of field names: write ["${key}"]`)
    if (!Array.isArray(key) || key.length === 0) fail(at, 'must be a non-empty array of field names, e.g. ["year"]')
    if (key.length > MAX_KEY_FIELDS) fail(at, `combines ${key.length} fields; an index combines at most ${MAX_KEY_FIELDS}`)
    const names: string[] = []
    for (const [j, name] of key.entries()) {
      if (typeof name !== 'string') fail(`${at}.${j}`, `must be a field name, got ${JSON.stringify(name)}`)
      if (!fields.includes(name)) {
        const guess = closestWord(name, fields)
        fail(`${at}.${j}`, `"${name}" is not a declared field${guess === undefined ? '' : `; did you mean "${guess}"?`}`)
      }
      if (key.length > 1 && composites.includes(name)) fail(`${at}.${j}`, `"${name}" holds a list, an object or JSON: it can be indexed alone (["${name}"]), not with other fields`)
      if (names.includes(name)) fail(`${at}.${j}`, `"${name}" is listed twice`)
      names.push(name)
    }
    if (keys.some((k) => k.length === names.length && k.every((n, x) => n === names[x]))) fail(at, `the index ${JSON.stringify(names)} is declared twice`)
    keys.push(names)
  }
  return keys
}
