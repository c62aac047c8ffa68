import { ORDER_OPERATORS } from './operators.js'
import type { KindDefinition } from './definition.js'

const INTEGER = /^-?(?:0|[1-9][0-9]*)$/
/** GraphQL's Int is 32 bits. */
const INT32 = 2 ** 31

/** A safe integer (±2^53 − 1, what every store keeps exactly), within the field's bounds. */
export const integer: KindDefinition = {
  declaration: { type: 'integer', keywords: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'enum'] },
  represented: { type: 'integer' },
  order: 'number',
  folded: false,
  operators: ORDER_OPERATORS,
  storage: { memory: 'number', sqlite: 'INTEGER', postgres: 'bigint' },
  query: {
    schema: (b) => ({ type: 'integer', minimum: b.min, maximum: b.max }),
    describe: (b) => `an integer from ${b.min ?? -Number.MAX_SAFE_INTEGER} to ${b.max ?? Number.MAX_SAFE_INTEGER}`,
    fromQuery: (value) => value as number,
    fromGraphql: (value, b) => {
      // Ids arrive as ID (text); the other integers as numbers.
      const n = typeof value === 'string' ? (/^-?(0|[1-9][0-9]{0,15})$/.test(value) ? Number(value) : NaN) : value as number
      if (!Number.isSafeInteger(n)) return { code: 'FIELD_TYPE', rule: 'must be integer' }
      if (b.min !== undefined && n < b.min) return { code: 'FIELD_OUT_OF_RANGE', rule: `must be >= ${b.min}` }
      if (b.max !== undefined && n > b.max) return { code: 'FIELD_OUT_OF_RANGE', rule: `must be <= ${b.max}` }
      return { value: n }
    },
    // The default order's cursor carries the id as decimal text.
    fromCursor: (value, b) => {
      const n = typeof value === 'string' && /^(0|[1-9][0-9]{0,15})$/.test(value) ? Number(value) : value
      return typeof n === 'number' && Number.isSafeInteger(n) && n >= (b.min ?? -Infinity) && n <= (b.max ?? Infinity) ? n : undefined
    }
  },
  csv: (text) => {
    if (!INTEGER.test(text)) return { rule: `must be an integer, not "${text}"` }
    const value = Number(text)
    return Number.isSafeInteger(value) ? { value } : { rule: `must be an integer from ${-Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}, not ${text}` }
  },
  graphql: (b) => ({ name: b.min !== undefined && b.max !== undefined && b.min >= -INT32 && b.max < INT32 ? 'Int' : 'SafeInt' }),
  sample: (b) => Math.ceil(Math.min(b.max ?? 42, Math.max(b.min ?? 42, 42))),
  app: { input: 'integer', numeric: true }
}
