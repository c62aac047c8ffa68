import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql'
import type { FieldValue } from '../domain/index.js'

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

/**
 * The scalar a field kind defines for itself (src/domain/kinds/, e.g.
 * DateTime): answered as stored, read by the kind (a value it cannot read is
 * a GraphQL error naming the scalar).
 */
export function ownScalar (spec: { name: string, description: string, parse: (value: unknown) => FieldValue | undefined }): GraphQLScalarType {
  const read = (value: unknown, nodes?: ValueNode): FieldValue => {
    const parsed = spec.parse(value)
    if (parsed === undefined) throw new GraphQLError(`${spec.name} cannot represent ${JSON.stringify(value)}: ${spec.description}`, { nodes })
    return parsed
  }
  return new GraphQLScalarType({
    name: spec.name,
    description: spec.description,
    serialize: (value) => value,
    parseValue: (value) => read(value),
    parseLiteral: (node) => read(node.kind === Kind.STRING ? node.value : undefined, node)
  })
}
