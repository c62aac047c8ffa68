import type { Operator } from '../domain/index.js'
/**
 * What a collection lets clients ask for: its fields (each a filter and a
 * sort key) and its page sizes. One model per collection drives the query
 * string schema (validation and OpenAPI), the parser, cursors and links.
 */
export type FieldParam =
  /* `sortable: false`: a filter but no sort key (an optional field, whose absent values no cursor can hold). */
  | { kind: 'text', maxLength: number, description: string, sortable?: boolean }
  /** A safe integer within [min, max]. */
  | { kind: 'integer', min: number, max: number, description: string, sortable?: boolean }
  /** A 64-bit integer 1 … 2^63−1, written in decimal (address ids): a string in the query, a bigint inside. */
  | { kind: 'int64', description: string }
  /** A double, optionally within [min, max] (user collections' `number` fields). */
  | { kind: 'number', min?: number, max?: number, description: string, sortable?: boolean }
  /** true or false; only equality. */
  | { kind: 'boolean', description: string, sortable?: boolean }

export interface CollectionModel<F extends string = string> {
  fields: Readonly<Record<F, FieldParam>>
  /** Page size without `limit`; undefined: no paging unless asked for (students, for the spec's answer). */
  defaultLimit?: number
  maxLimit: number
}

/** Query parameters that are not filters. */
export const CONTROL_PARAMS = ['limit', 'cursor', 'sort', 'q', 'count'] as const

/** Query parameters of an export (a CSV or NDJSON stream) for spreadsheets: a file to save, a byte order mark. */
export const FILE_PARAMS = ['download', 'bom'] as const

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

/** The operators a field accepts: `contains` only on text, only equality on booleans. */
export function operatorsOf (param: FieldParam): Operator[] {
  if (param.kind === 'boolean') return ['eq']
  return param.kind === 'text' ? ['eq', ...BRACKET_OPERATORS] : ['eq', ...BRACKET_OPERATORS.filter((op) => op !== 'contains')]
}

/** Whether a field may be a sort key. */
export function isSortable (param: FieldParam): boolean {
  return !('sortable' in param) || param.sortable !== false
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
    case 'count':
    case 'download':
    case 'bom': return 'true or false'
  }
  const field = fieldParam(model, param.replace(/\[.*$/, ''))
  switch (field?.kind) {
    case 'text': return `text of at most ${field.maxLength} characters`
    case 'integer': return `an integer from ${field.min} to ${field.max}`
    case 'int64': return 'an integer from 1 to 9223372036854775807'
    case 'number': return field.min === undefined && field.max === undefined ? 'a number' : `a number from ${field.min ?? '-∞'} to ${field.max ?? '∞'}`
    case 'boolean': return 'true or false'
    case undefined: return 'valid'
  }
}

/** "limit, cursor, sort, q, count, and per field …": what an INVALID_QUERY answer lists as accepted. */
export function acceptedParameters (model: CollectionModel): string {
  const fields = Object.keys(model.fields)
  return `${CONTROL_PARAMS.join(', ')}, and a filter per field (${fields.join(', ')}) as field=value or field[op]=value ` +
    'with op ne, gt, gte, lt, lte, or contains (text fields only; booleans take field=value only); sort lists fields, "-" before a field for descending; ' +
    `${FILE_PARAMS.join(' and ')} (true or false) for a CSV or NDJSON export`
}
