/**
 * The values records hold and conditions compare, below both the kinds
 * (./kinds/) and the query model (./query.ts), which import them from here.
 */

/** A field's value as stored. */
export type FieldData = string | number | boolean | bigint

/** A value a condition compares with: text, a number, a 64-bit integer (int64 ids) or a boolean. */
export type FieldValue = string | number | bigint | boolean

export type Operator = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'contains'

export const OPERATORS: readonly Operator[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains']

/** The largest int64 id: 2^63 − 1, the top of a signed 64-bit integer (SQL bigint). */
export const MAX_INT64_ID = 9223372036854775807n
