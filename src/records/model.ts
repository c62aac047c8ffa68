import { BRACKET_OPERATORS, KINDS, MAX_FILTER_LENGTH, type FilterOperator, type Kind, type ValueBounds } from '../domain/index.js'
/**
 * What a collection lets clients ask for: its fields (each a filter and a
 * sort key) and its page sizes. One model per collection drives the query
 * string schema (validation and OpenAPI), the parser, cursors and links.
 */
export interface FieldParam extends ValueBounds {
  /** The field's kind (src/domain/kinds/): its operators and how its values are read; the bounds are its own. */
  kind: Kind
  description: string
  /** false: a filter but no sort key. */
  sortable?: boolean
  /** The values a field may hold, when its declaration lists them (`enum`): GraphQL makes an enum type of them where it can. */
  values?: ReadonlyArray<string | number>
  /** Set by the server (an automatic timestamp): filtered and sorted, never written by a client (no GraphQL input field). */
  readOnly?: boolean
  /** A list's item kind: what `has` and `hasAny` values are read as (src/records/list-filters.ts). */
  items?: Kind
  /** A list's most items (its maxItems): what a GraphQL document selecting the records a list of references names is weighed as. */
  mostItems?: number
  /** The operators, when fewer than the kind's (a nested text has no folded copy, so no `contains`). */
  operators?: readonly FilterOperator[]
  /** A record may leave it unset: a cursor then carries null for it (sorted first ascending, last descending). */
  optional?: boolean
}

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

export { BRACKET_OPERATORS }

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

/** The operators a field accepts, its kind's: `contains` only on text, only equality on booleans. */
export function operatorsOf (param: FieldParam): readonly FilterOperator[] {
  return param.operators ?? KINDS[param.kind].operators
}

/** Why a field refuses an operator, for INVALID_QUERY: `write` is how a filter is written (REST's `field=true`, GraphQL's `eq`). */
export function refusedOperator (param: FieldParam, field: string, op: FilterOperator, eq: string): string {
  if (KINDS[param.kind].composite === 'list') return `${field} is a list: filter it with ${field}[has]=value or ${field}[hasAny]=a,b`
  if (KINDS[param.kind].composite !== undefined) return `${field} is not filtered as a whole${KINDS[param.kind].composite === 'object' ? `: filter a field inside it by its dotted path (${field}.<name>)` : ''}`
  if (op === 'has' || op === 'hasAny') return `${op} applies to list fields only`
  if (op === 'contains' && field.includes('.')) return `contains applies to top-level text fields only`
  return KINDS[param.kind].order === 'boolean' ? `${field} is true or false: ${eq}` : `${op} applies to text fields only`
}

/** Whether a field may be a sort key. */
export function isSortable (param: FieldParam): boolean {
  return !('sortable' in param) || param.sortable !== false
}

/** The fields a list may be sorted by, in the model's order (GET /collections, the web app's sort offer). */
export function sortKeys (model: CollectionModel): string[] {
  return Object.entries(model.fields as Record<string, FieldParam>).filter(([, param]) => isSortable(param)).map(([field]) => field)
}

/** The filter operators of every field, by its kind (GET /collections). */
export function filterOperators (model: CollectionModel): Record<string, readonly FilterOperator[]> {
  return Object.fromEntries(Object.entries(model.fields as Record<string, FieldParam>).map(([field, param]) => [field, operatorsOf(param)]))
}

/** The query parameter of a field and operator: `age`, `age[gte]`. */
export function filterParam (field: string, op: FilterOperator): string {
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
    case EXPRESSION_PARAM: return `a filter expression of at most ${MAX_FILTER_LENGTH} characters`
  }
  if (/\[(in|nin)\]$/.test(param)) return `values separated by commas, at most ${MAX_IN_LENGTH} characters`
  if (param.endsWith('[null]')) return 'true or false'
  const field = fieldParam(model, param.replace(/\[.*$/, ''))
  if (field?.items !== undefined) return `${KINDS[field.items].query.describe(field)} (hasAny: several, separated by commas)`
  return field === undefined ? 'valid' : KINDS[field.kind].query.describe(field)
}

/** "limit, cursor, sort, q, count, and per field …": what an INVALID_QUERY answer lists as accepted. */
export function acceptedParameters (model: CollectionModel): string {
  const fields = Object.keys(model.fields)
  return `${CONTROL_PARAMS.join(', ')}, and a filter per field (${fields.join(', ')}) as field=value or field[op]=value ` +
    'with op ne, gt, gte, lt, lte, or contains (text fields only; booleans take field=value only); sort lists fields, "-" before a field for descending; ' +
    `${FILE_PARAMS.join(' and ')} (true or false) for a CSV or NDJSON export; ` +
    `field[in] and field[nin] (values separated by commas), field[startsWith] (text fields), field[null] (true or false); ${EXPRESSION_PARAM} (an expression such as year >= 2000 && title ~ 'dune')`
}

/** The expression parameter (src/domain/filter/): `filter=year > 2000 || available = true`. */
export const EXPRESSION_PARAM = 'filter'

/**
 * Bracket operators beyond a kind's conditions, which the parser turns into a
 * filter expression: `[in]`/`[nin]` (a list of values), `[startsWith]` (folded,
 * as `[contains]`: text kinds), `[null]` (true: unset, false: set).
 */
export type ExpressionOperator = 'in' | 'nin' | 'startsWith' | 'null'

export const EXPRESSION_OPERATORS: readonly ExpressionOperator[] = ['in', 'nin', 'startsWith', 'null']

/** How many values `[in]`/`[nin]` take, and how long their text may be. */
export const MAX_IN_VALUES = 100
export const MAX_IN_LENGTH = 4000

/** The list operators a field takes: `[startsWith]` where its kind has `contains`, the others on every field. */
export function expressionOperatorsOf (param: FieldParam): readonly ExpressionOperator[] {
  // A list, an object or free JSON is only ever tested for being unset.
  if (KINDS[param.kind].composite !== undefined) return ['null']
  return (param.operators ?? KINDS[param.kind].operators).includes('contains') ? EXPRESSION_OPERATORS : EXPRESSION_OPERATORS.filter((op) => op !== 'startsWith')
}
