import { GraphQLEnumType } from 'graphql'
import type { FieldParam } from '../records/index.js'

/**
 * A declared field's `enum` as a GraphQL enum type (issue 29 item 3), when
 * every value is text GraphQL takes as an enum value's name (letters, digits
 * and underscores, not starting with a digit; not true, false or null) and
 * the type's name is free. Otherwise the field keeps its scalar and its
 * description lists the values (an integer enum, `"in-print"`).
 */
const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/
const RESERVED = ['true', 'false', 'null']

export function enumOf (typeName: string, field: string, param: FieldParam | undefined, taken: Set<string>): GraphQLEnumType | undefined {
  const values = param?.values
  if (values === undefined || !values.every((v) => typeof v === 'string' && NAME.test(v) && !RESERVED.includes(v))) return undefined
  const name = `${typeName}${field.charAt(0).toUpperCase()}${field.slice(1)}`
  if (taken.has(name)) return undefined
  taken.add(name)
  return new GraphQLEnumType({
    name,
    description: `The values of ${field} (its declared enum).`,
    values: Object.fromEntries((values as string[]).map((v) => [v, { value: v }]))
  })
}

/** The words a field's description gains when its enum stays a scalar. */
export function allowedValues (param: FieldParam | undefined): string {
  return param?.values === undefined ? '' : ` One of ${param.values.map((v) => JSON.stringify(v)).join(', ')}.`
}
