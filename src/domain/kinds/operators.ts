import type { ListOperator, Operator } from '../values.js'

/** Operators written in brackets (`age[gte]=18`); `field=value` is equality. */
export const BRACKET_OPERATORS: readonly Operator[] = ['ne', 'gt', 'gte', 'lt', 'lte', 'contains']

/** The operators of a kind that orders but has no text to search: equality and order. */
export const ORDER_OPERATORS: readonly Operator[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte']

/** The operators of a list: it holds the value, or any of several. */
export const LIST_FILTERS: readonly ListOperator[] = ['has', 'hasAny']
