import type { Operator } from '../../../domain/index.js'
/**
 * What a collection lets clients ask for: its fields (each a filter and a
 * sort key) and its page sizes. One model per collection drives the query
 * string schema (validation and OpenAPI), the parser, cursors and links.
 */
export type FieldParam =
  | { kind: 'text', maxLength: number, description: string }
  /** A safe integer within [min, max]. */
  | { kind: 'integer', min: number, max: number, description: string }
  /** A 64-bit integer 1 … 2^63−1, written in decimal (address ids): a string in the query, a bigint inside. */
  | { kind: 'int64', description: string }

export interface CollectionModel<F extends string = string> {
  fields: Readonly<Record<F, FieldParam>>
  /** Page size without `limit`; undefined: no paging unless asked for (students, for the spec's answer). */
  defaultLimit?: number
  maxLimit: number
}

/** Query parameters that are not filters. */
export const CONTROL_PARAMS = ['limit', 'cursor', 'sort', 'q', 'count'] as const

/** Operators written in brackets (`age[gte]=18`); `field=value` is equality. */
export const BRACKET_OPERATORS: readonly Operator[] = ['ne', 'gt', 'gte', 'lt', 'lte', 'contains']

export const MAX_SEARCH_LENGTH = 200
export const MAX_SORT_LENGTH = 200
export const MAX_CURSOR_LENGTH = 4096

/**
 * The field a query names, if the collection declares it. Only the table's own
 * properties count: `constructor`, `toString`, `__proto__` and the like are
 * inherited by every object and name no field (issue 19).
 */
export function fieldParam (model: CollectionModel, name: string): FieldParam | undefined {
  return Object.hasOwn(model.fields, name) ? (model.fields as Record<string, FieldParam>)[name] : undefined
}

/** The operators a field accepts: `contains` only on text. */
export function operatorsOf (param: FieldParam): Operator[] {
  return param.kind === 'text' ? ['eq', ...BRACKET_OPERATORS] : ['eq', ...BRACKET_OPERATORS.filter((op) => op !== 'contains')]
}

/** The query parameter of a field and operator: `age`, `age[gte]`. */
export function filterParam (field: string, op: Operator): string {
  return op === 'eq' ? field : `${field}[${op}]`
}

/** What a parameter's value must be, for messages: "an integer from 1 to 500". */
export function describeParameter (model: CollectionModel, param: string): string {
  switch (param) {
    case 'limit': return `an integer from 1 to ${model.maxLimit}`
    case 'cursor': return 'a cursor from a next link'
    case 'sort': return `field names separated by commas, at most ${MAX_SORT_LENGTH} characters`
    case 'q': return `text of at most ${MAX_SEARCH_LENGTH} characters`
    case 'count': return 'true or false'
  }
  const field = fieldParam(model, param.replace(/\[.*$/, ''))
  switch (field?.kind) {
    case 'text': return `text of at most ${field.maxLength} characters`
    case 'integer': return `an integer from ${field.min} to ${field.max}`
    case 'int64': return 'an integer from 1 to 9223372036854775807'
    case undefined: return 'valid'
  }
}

/** "limit, cursor, sort, q, count, and per field …": what an INVALID_QUERY answer lists as accepted. */
export function acceptedParameters (model: CollectionModel): string {
  const fields = Object.keys(model.fields)
  return `${CONTROL_PARAMS.join(', ')}, and a filter per field (${fields.join(', ')}) as field=value or field[op]=value ` +
    'with op ne, gt, gte, lt, lte, or contains (text fields only); sort lists fields, "-" before a field for descending'
}
