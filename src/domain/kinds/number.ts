import { ORDER_OPERATORS } from './operators.js'
import type { KindDefinition } from './definition.js'

const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/

/** A double, optionally within the field's bounds. */
export const number: KindDefinition = {
  declaration: { type: 'number', keywords: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] },
  represented: { type: 'number' },
  order: 'number',
  folded: false,
  operators: ORDER_OPERATORS,
  storage: { memory: 'number', sqlite: 'REAL', postgres: 'double precision' },
  query: {
    schema: (b) => ({ type: 'number', ...(b.min === undefined ? {} : { minimum: b.min }), ...(b.max === undefined ? {} : { maximum: b.max }) }),
    describe: (b) => b.min === undefined && b.max === undefined ? 'a number' : `a number from ${b.min ?? '-∞'} to ${b.max ?? '∞'}`,
    fromQuery: (value) => value as number,
    fromGraphql: (value, b) => {
      const n = value as number
      if (b.min !== undefined && n < b.min) return { code: 'FIELD_OUT_OF_RANGE', rule: `must be >= ${b.min}` }
      if (b.max !== undefined && n > b.max) return { code: 'FIELD_OUT_OF_RANGE', rule: `must be <= ${b.max}` }
      return { value: n }
    },
    fromCursor: (value, b) => typeof value === 'number' && Number.isFinite(value) && (b.min === undefined || value >= b.min) && (b.max === undefined || value <= b.max) ? value : undefined
  },
  csv: (text) => {
    const value = Number(text)
    return NUMBER.test(text) && Number.isFinite(value) ? { value } : { rule: `must be a number such as 9.5, -2 or 1e3 (a decimal point, not a comma), not "${text}"` }
  },
  graphql: () => ({ name: 'Float' }),
  sample: (b) => Math.min(b.max ?? 9.5, Math.max(b.min ?? 9.5, 9.5)),
  app: { input: 'decimal', numeric: true }
}
