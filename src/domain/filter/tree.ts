import type { FieldValue } from '../values.js'

/**
 * A filter expression (issue 31, item 4) as every store answers it: parsed
 * once from the text a client wrote (./parse.ts), checked against the
 * collection's fields and kinds (./check.ts), then compiled to SQL
 * (src/stores/sql-query.ts) or to a memory predicate (./predicate.ts).
 *
 * Meanings, the same on every store (two-valued: every node is true or false):
 * - a comparison (`eq` … `lte`, `in`, `contains`, `startsWith`) with a field a
 *   record does not hold (an unset optional field) is false, as SQL's NULL is;
 * - `unset` is true exactly for an unset field (`field = null`);
 * - `not` is true when its operand is false, unset fields included:
 *   `!(year > 2000)` holds for a record without a year.
 */
export type FilterExpr =
  | { op: 'and' | 'or', items: readonly FilterExpr[] }
  | { op: 'not', item: FilterExpr }
  | { op: 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte', field: string, value: FieldValue }
  /** The folded text occurs in (`contains`) or starts (`startsWith`) the field's folded text. */
  | { op: 'contains' | 'startsWith', field: string, value: string }
  | { op: 'in', field: string, values: readonly FieldValue[] }
  /** A list field holds one of the values (`tags ?= 'x'`). */
  | { op: 'has', field: string, values: readonly FieldValue[] }
  | { op: 'unset', field: string }

export type Comparison = Extract<FilterExpr, { field: string }>

/** Every expression, ANDed (none: undefined). */
export function allOf (items: readonly FilterExpr[]): FilterExpr | undefined {
  if (items.length === 0) return undefined
  return items.length === 1 ? items[0] : { op: 'and', items }
}

/** The fields an expression names, each once. */
export function fieldsOf (expr: FilterExpr, into: Set<string> = new Set()): Set<string> {
  switch (expr.op) {
    case 'and':
    case 'or': for (const item of expr.items) fieldsOf(item, into); break
    case 'not': fieldsOf(expr.item, into); break
    default: into.add(expr.field)
  }
  return into
}

const CONDITION_OPS = new Set(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains'])

/**
 * Splits an expression into the plain conditions it ANDs at its top
 * (`year >= 2000 && title ~ 'x'`) and the rest, which means the same: the
 * stores plan with conditions (an equality's index range, a range's bounds),
 * so `filter=year = 1965` costs what `year=1965` costs.
 */
export function liftConditions (expr: FilterExpr): { conditions: Array<{ field: string, op: 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'contains', value: FieldValue }>, rest?: FilterExpr } {
  const items = conjuncts(expr)
  const conditions: Array<{ field: string, op: 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'contains', value: FieldValue }> = []
  const rest: FilterExpr[] = []
  for (const item of items) {
    if (CONDITION_OPS.has(item.op) && 'value' in item) conditions.push({ field: item.field, op: item.op as 'eq', value: item.value })
    else rest.push(item)
  }
  return { conditions, rest: allOf(rest) }
}

/** The expressions an expression ANDs, nested `and`s flattened. */
function conjuncts (expr: FilterExpr): FilterExpr[] {
  return expr.op === 'and' ? expr.items.flatMap(conjuncts) : [expr]
}
