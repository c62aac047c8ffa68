import { MAX_INT64_ID } from '../values.js'
import { ORDER_OPERATORS } from './operators.js'
import type { KindDefinition } from './definition.js'

/** 1 … 9223372036854775807 in decimal digits without a leading zero (the bound itself is checked on reading). */
const INT64_PATTERN = '^[1-9][0-9]{0,18}$'
const INTEGER = /^-?(?:0|[1-9][0-9]*)$/

function id (text: string): bigint | undefined {
  const value = BigInt(text)
  return value <= MAX_INT64_ID ? value : undefined
}

/**
 * A 64-bit id, 1 … 2^63 − 1 (the `int64` id kind's): decimal text in queries
 * and cursors, a bigint inside. Not declarable: a declared field is a safe integer.
 */
export const int64: KindDefinition = {
  represented: { type: 'integer' },
  order: 'number',
  folded: false,
  operators: ORDER_OPERATORS,
  storage: { memory: 'value', sqlite: 'INTEGER', postgres: 'bigint' },
  query: {
    schema: () => ({ type: 'string', pattern: INT64_PATTERN, description: `Up to ${MAX_INT64_ID}.` }),
    describe: () => `an integer from 1 to ${MAX_INT64_ID}`,
    fromQuery: (value) => id(value as string),
    fromGraphql: (value) => {
      const text = String(value)
      if (!/^(0|-?[1-9][0-9]*)$/.test(text)) return { code: 'FIELD_TYPE', rule: 'must be integer' }
      const n = BigInt(text)
      if (n < 1n) return { code: 'FIELD_OUT_OF_RANGE', rule: 'must be >= 1' }
      if (n > MAX_INT64_ID) return { code: 'FIELD_OUT_OF_RANGE', rule: `must be <= ${MAX_INT64_ID}` }
      return { value: n }
    },
    fromCursor: (value) => typeof value === 'string' && /^[1-9][0-9]{0,18}$/.test(value) ? id(value) : undefined
  },
  csv: (text) => INTEGER.test(text) ? { value: BigInt(text) } : { rule: `must be an integer, not "${text}"` },
  graphql: () => ({ name: 'ID' }),
  sample: () => 1,
  app: { input: 'integer', numeric: true }
}
