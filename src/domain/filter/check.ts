import { KINDS, type Kind, type ValueBounds } from '../kinds/index.js'
import type { FieldValue } from '../values.js'
import { FilterError, type Literal, type SyntaxNode } from './syntax.js'
import type { FilterExpr } from './tree.js'

/** A field as a filter sees it: its kind (src/domain/kinds/) and the bounds its values keep. */
export interface FilterField extends ValueBounds {
  kind: Kind
  /** A list's item kind: what `?=` compares with. */
  items?: Kind
  /** The operators, when fewer than the kind's (a nested text has no folded copy: no `~`). */
  operators?: readonly string[]
}

export type FilterFields = Readonly<Record<string, FilterField>>

const ORDER = { '<': 'lt', '<=': 'lte', '>': 'gt', '>=': 'gte' } as const

/**
 * Checks a parsed expression against a collection's fields and reads each
 * literal as its field's kind reads a value (the kinds' query codecs, as
 * GraphQL arguments are read), or throws FilterError at the mistake: an
 * unknown field, an operator the kind has not, a value the field cannot hold.
 */
export function checkFilter (node: SyntaxNode, fields: FilterFields): FilterExpr {
  switch (node.type) {
    case 'and':
    case 'or': return { op: node.type, items: node.items.map((item) => checkFilter(item, fields)) }
    case 'not': return { op: 'not', item: checkFilter(node.item, fields) }
    case 'compare': return comparison(node, fields)
  }
}

function comparison (node: Extract<SyntaxNode, { type: 'compare' }>, fields: FilterFields): FilterExpr {
  const name = node.path.join('.')
  // Own properties only: `constructor` or `toString` name no field (issue 19). Dotted paths await nested fields.
  const spec = Object.hasOwn(fields, name) ? fields[name] : undefined
  if (spec === undefined) {
    const known = Object.keys(fields).join(', ')
    throw new FilterError(node.path.length > 1 ? `"${name}" is no field of this collection (a dotted path names a field inside an object; fields: ${known})` : `unknown field "${name}" (fields: ${known})`, node.at)
  }
  const kind = KINDS[spec.kind]
  const field = name
  const value = node.value
  const operators: readonly string[] = spec.operators ?? kind.operators
  if (node.op === '?=') {
    if (spec.items === undefined) throw new FilterError(`'?=' tests a list field, and ${field} holds one value: write '='`, node.opAt)
    if (value.type === 'null') throw new FilterError(`'?=' compares with a value, not null`, node.valueAt)
    return { op: 'has', field, values: [readLiteral(field, { kind: spec.items }, value, node.valueAt)] }
  }
  if (kind.composite !== undefined && value.type !== 'null') throw new FilterError(`${field} is ${kind.composite === 'list' ? "a list: test it with '?='" : 'an object: compare a field inside it (a dotted path)'}, or with = null / != null`, node.opAt)
  if (value.type === 'null') {
    if (node.op === '=') return { op: 'unset', field }
    if (node.op === '!=') return { op: 'not', item: { op: 'unset', field } }
    throw new FilterError(`null compares with = and != only, not '${node.op}'`, node.valueAt)
  }
  if (node.op === '~' || node.op === '!~') {
    if (!operators.includes('contains') && kind.operators.includes('contains')) throw new FilterError(`'${node.op}' does not apply to ${field}: a text inside an object is compared with = and !=`, node.opAt)
    if (!operators.includes('contains')) throw new FilterError(`'${node.op}' applies to text fields only, and ${field} is ${spec.kind}`, node.opAt)
    const needle = readLiteral(field, spec, value, node.valueAt) as string
    const contains: FilterExpr = { op: 'contains', field, value: needle }
    // `!~` holds for a set field without the text: an unset one compares false, as with every operator.
    return node.op === '~' ? contains : { op: 'and', items: [{ op: 'not', item: { op: 'unset', field } }, { op: 'not', item: contains }] }
  }
  if (node.op === '=' || node.op === '!=') return { op: node.op === '=' ? 'eq' : 'ne', field, value: readLiteral(field, spec, value, node.valueAt) }
  if (!operators.includes('gt')) throw new FilterError(`'${node.op}' does not apply to ${field}: it is ${spec.kind}, compared with = and != only`, node.opAt)
  return { op: ORDER[node.op], field, value: readLiteral(field, spec, value, node.valueAt) }
}

/** A literal as the field's value, or FilterError: `year must be an integer from 0 to 3000, not 'x'`. */
export function readLiteral (field: string, spec: FilterField, literal: Literal, at: number): FieldValue {
  const kind = KINDS[spec.kind]
  const wrong = (): FilterError => new FilterError(`${field} must be ${kind.query.describe(spec)}, not ${shown(literal)}`, at)
  let raw: unknown
  switch (kind.represented.type) {
    case 'string':
      if (literal.type !== 'string') throw wrong()
      raw = literal.value
      break
    case 'integer':
      if (literal.type !== 'number') throw wrong()
      // Decimal text: an int64 keeps every digit, an integer refuses 1.5 and 1e3.
      raw = literal.text
      break
    case 'number':
      if (literal.type !== 'number' || !Number.isFinite(Number(literal.text))) throw wrong()
      raw = Number(literal.text)
      break
    case 'boolean':
      if (literal.type !== 'boolean') throw wrong()
      raw = literal.value
      break
  }
  const read = kind.query.fromGraphql(raw, spec)
  if ('value' in read) return read.value
  throw new FilterError(`${field} ${read.rule}, not ${shown(literal)}`, at)
}

function shown (literal: Literal): string {
  switch (literal.type) {
    case 'string': return `'${literal.value.length > 40 ? `${literal.value.slice(0, 40)}…` : literal.value}'`
    case 'number': return literal.text
    case 'boolean': return String(literal.value)
    case 'null': return 'null'
  }
}
