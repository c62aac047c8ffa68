import { GraphQLError, GraphQLScalarType, Kind } from 'graphql'

/** Integers of user collections reach ±(2^53 − 1), beyond GraphQL's 32-bit Int: this scalar carries them exactly. */
export const SafeInt = new GraphQLScalarType<number, number>({
  name: 'SafeInt',
  description: 'An integer from -(2^53 - 1) to 2^53 - 1 (a JSON number every client reads exactly).',
  serialize: (value) => {
    if (typeof value === 'number' && Number.isSafeInteger(value)) return value
    throw new GraphQLError(`SafeInt cannot represent ${String(value)}`)
  },
  parseValue: (value) => {
    if (typeof value === 'number' && Number.isSafeInteger(value)) return value
    throw new GraphQLError(`SafeInt must be an integer from -(2^53 - 1) to 2^53 - 1: ${JSON.stringify(value)}`)
  },
  parseLiteral: (node) => {
    const value = node.kind === Kind.INT ? Number(node.value) : NaN
    if (Number.isSafeInteger(value)) return value
    throw new GraphQLError('SafeInt must be an integer from -(2^53 - 1) to 2^53 - 1', { nodes: node })
  }
})

const INT32_MIN = -(2 ** 31)
const INT32_MAX = 2 ** 31 - 1

/** Whether integers within [min, max] fit GraphQL's Int. */
export function fitsInt (min: number, max: number): boolean {
  return min >= INT32_MIN && max <= INT32_MAX
}
