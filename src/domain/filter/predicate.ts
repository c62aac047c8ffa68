import { fold, type FoldedField } from '../case-fold.js'
import { compareValues } from '../compare.js'
import type { FieldValue } from '../values.js'
import { valueAtPath } from '../paths.js'
import type { FilterExpr } from './tree.js'

type Row = Readonly<Record<string, FieldValue | undefined>>

/**
 * A filter expression as a predicate over records in memory, with the
 * meanings SQL gives it (./tree.ts): a comparison with an unset field is
 * false, `not` is plain negation. `folded` gives a text field's folded copy
 * (the memory store keeps them cached).
 */
export function expressionTest (expr: FilterExpr, folded: FoldedField): (record: Row) => boolean {
  // A field or a dotted path into a nested object (src/domain/paths.ts).
  const at = (r: Row, field: string): FieldValue | undefined => valueAtPath(r, field) as FieldValue | undefined
  switch (expr.op) {
    case 'and': {
      const tests = expr.items.map((item) => expressionTest(item, folded))
      return (r) => tests.every((t) => t(r))
    }
    case 'or': {
      // An OR of equalities on one field (`year = 1965 || year = 1984`) means that field's `in`: tested as one.
      const equalities = expr.items.filter((item): item is { op: 'eq', field: string, value: FieldValue } => item.op === 'eq')
      const field = equalities[0]?.field
      if (equalities.length === expr.items.length && equalities.every((item) => item.field === field)) {
        return expressionTest({ op: 'in', field: field as string, values: equalities.map((item) => item.value) }, folded)
      }
      const tests = expr.items.map((item) => expressionTest(item, folded))
      return (r) => tests.some((t) => t(r))
    }
    case 'not': {
      const test = expressionTest(expr.item, folded)
      return (r) => !test(r)
    }
    case 'unset': return (r) => at(r, expr.field) === undefined
    case 'contains':
    case 'startsWith': {
      const needle = fold(expr.value)
      const { field } = expr
      return expr.op === 'contains'
        ? (r) => r[field] !== undefined && folded(r, field).includes(needle)
        : (r) => r[field] !== undefined && folded(r, field).startsWith(needle)
    }
    case 'in': {
      const { field, values } = expr
      return (r) => {
        const held = at(r, field)
        return held !== undefined && values.some((v) => compareValues(held, v) === 0)
      }
    }
    case 'has': {
      const { field, values } = expr
      return (r) => {
        const list = at(r, field) as unknown
        return Array.isArray(list) && values.some((v) => list.some((item) => compareValues(item as FieldValue, v) === 0))
      }
    }
    default: {
      const { field, value } = expr
      const holds = ORDERED[expr.op]
      return (r) => {
        const held = at(r, field)
        return held !== undefined && holds(compareValues(held, value))
      }
    }
  }
}

const ORDERED: Record<'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte', (c: number) => boolean> = {
  eq: (c) => c === 0,
  ne: (c) => c !== 0,
  gt: (c) => c > 0,
  gte: (c) => c >= 0,
  lt: (c) => c < 0,
  lte: (c) => c <= 0
}
