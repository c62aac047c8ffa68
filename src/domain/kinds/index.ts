import { boolean } from './boolean.js'
import { dateTime } from './date-time.js'
import type { JsonType, KindDefinition } from './definition.js'
import { int64 } from './int64.js'
import { integer } from './integer.js'
import { number } from './number.js'
import { string } from './string.js'
import { list } from './list.js'
import { json, object } from './object.js'

export type { GraphqlScalar, JsonType, KindDefinition, ReadValue, ValueBounds } from './definition.js'
export { BRACKET_OPERATORS, LIST_FILTERS, ORDER_OPERATORS } from './operators.js'
export { isJsonObject } from './composite.js'
export { canonicalInstant } from './date-time.js'
export { BOOLEAN_FORMS } from './boolean.js'

/**
 * Every field kind, by the name a declaration's registry keeps it under
 * (rqs_collections in SQLite and PostgreSQL). A new kind is one module and
 * one line here; the compiler then names every table that lacks it.
 */
export const KINDS = {
  string,
  integer,
  number,
  boolean,
  'date-time': dateTime,
  int64,
  list,
  object,
  json
} as const satisfies Record<string, KindDefinition>

/** The one name of a field's kind, in every layer. */
export type Kind = keyof typeof KINDS

export const KIND_NAMES = Object.keys(KINDS) as Kind[]

/** The kinds a declaration may spell, most specific first (a format before its plain type). */
const DECLARABLE = KIND_NAMES.filter((k) => KINDS[k].declaration !== undefined)
  .sort((a, b) => Number(KINDS[b].declaration?.format !== undefined) - Number(KINDS[a].declaration?.format !== undefined))

/** The JSON Schema types a declaration may name. */
export const JSON_TYPES: readonly JsonType[] = [...new Set(DECLARABLE.map((k) => KINDS[k].declaration?.type as JsonType))]

/** The kind a declared field's type and format select: a format with a kind of its own, else the type's plain kind. */
export function kindOfSchema (type: JsonType, format: unknown): Kind {
  const kind = DECLARABLE.find((k) => KINDS[k].declaration?.type === type && (KINDS[k].declaration?.format ?? format) === format)
  return kind ?? DECLARABLE.find((k) => KINDS[k].declaration?.type === type && KINDS[k].declaration?.format === undefined) as Kind
}

/** Whether a field stored as `was` may be declared as `now`, its values converted at start (KindDefinition.convertsFrom). */
export function convertsFrom (now: Kind, was: Kind): boolean {
  return KINDS[now].convertsFrom?.includes(was) === true
}

/**
 * The values of a converted field that its new kind cannot take: the ids of
 * first few records, with their values, for the start's refusal.
 */
export function unconvertible (was: Kind, kind: Kind, field: string, bad: ReadonlyArray<{ id: unknown, value: unknown }>): string {
  const shown = bad.slice(0, 5).map((b) => `${String(b.id)} (${JSON.stringify(b.value).slice(0, 60)})`).join(', ')
  return `${field}: type ${was} → ${kind}: ${bad.length === 1 ? 'record' : 'records'} ${shown}${bad.length > 5 ? ' …' : ''} ${bad.length === 1 ? 'holds a value' : 'hold values'} it cannot take; correct ${bad.length === 1 ? 'it' : 'them'} first`
}

/** Exhaustiveness for a switch over kinds: a kind added to KINDS and missed by the switch fails to compile here. */
export function unknownKind (kind: never): never {
  throw new RangeError(`unknown field kind ${String(kind)}`)
}
