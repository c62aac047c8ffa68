/**
 * The values records hold and conditions compare, below both the kinds
 * (./kinds/) and the query model (./query.ts), which import them from here.
 */

/** A JSON value: what a list, a nested object or a free JSON field holds (issue 29, items 7 and 8). */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue }

/** A composite field's value: a list of scalars, a nested object, a free JSON object. */
export type JsonData = readonly JsonValue[] | { readonly [key: string]: JsonValue }

/** A field's value as stored. */
export type FieldData = string | number | boolean | bigint | JsonData

/** A value a condition compares with: text, a number, a 64-bit integer (int64 ids) or a boolean. */
export type FieldValue = string | number | bigint | boolean

export type Operator = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'contains'

export const OPERATORS: readonly Operator[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains']

/**
 * The operators of a list field (issue 29, item 7): the list holds the value
 * (`has`), or any of the values (`hasAny`). Kept apart from Operator: a
 * condition on a scalar compares one value, a list condition tests membership.
 */
export type ListOperator = 'has' | 'hasAny'

export const LIST_OPERATORS: readonly ListOperator[] = ['has', 'hasAny']

/** Any operator a field's kind may offer. */
export type FilterOperator = Operator | ListOperator

/** The largest int64 id: 2^63 − 1, the top of a signed 64-bit integer (SQL bigint). */
export const MAX_INT64_ID = 9223372036854775807n
