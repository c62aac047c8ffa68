import { fold } from '../case-fold.js'
import { compareValues } from '../compare.js'
import { KINDS, type Kind } from '../kinds/index.js'
import type { FieldValue } from '../values.js'
import { checkFilter, readLiteral, type FilterField, type FilterFields } from '../filter/check.js'
import { FilterError, parseRule, type Literal, type Operand, type RuleComparison, type RuleSyntax, type SyntaxOperator } from '../filter/syntax.js'
import type { FilterExpr } from '../filter/tree.js'
import type { Caller } from '../caller.js'

/**
 * A rule (docs/rules.md) compiled once at start: given who asks (and, for a
 * write, the values sent) it yields what the rule allows. The `@request.…`
 * values are put in here, so what reaches a store is a plain filter
 * expression that every store already answers the same way.
 */

/** What a rule allows one caller: every record (true), none (false), or the records a filter selects. */
export type Allowance = boolean | FilterExpr

/** What a rule is evaluated with: the caller and, for create and update, the body's values. */
export interface RuleInput {
  caller: Caller
  body?: Readonly<Record<string, unknown>>
}

/** A compiled rule. */
export type Rule = (input: RuleInput) => Allowance

/** Where `@request.body.<field>` may be used: in rules of writes only. */
export interface RuleScope {
  body: boolean
}

/** Parses and checks a rule's text against a collection's fields, or throws FilterError at the mistake. */
export function compileRule (text: string, fields: FilterFields, scope: RuleScope): Rule {
  if (text.trim() === '') return () => true
  return compiled(parseRule(text), fields, scope)
}

function compiled (node: RuleSyntax, fields: FilterFields, scope: RuleScope): Rule {
  switch (node.type) {
    case 'and': {
      const items = node.items.map((item) => compiled(item, fields, scope))
      return (input) => allOfAllowances(items.map((item) => item(input)))
    }
    case 'or': {
      const items = node.items.map((item) => compiled(item, fields, scope))
      return (input) => anyOfAllowances(items.map((item) => item(input)))
    }
    case 'not': {
      const item = compiled(node.item, fields, scope)
      return (input) => {
        const allowed = item(input)
        return typeof allowed === 'boolean' ? !allowed : { op: 'not', item: allowed }
      }
    }
    case 'compare': return comparison(node, fields, scope)
  }
}

/** Every allowance ANDed, the constant ones folded away. */
export function allOfAllowances (items: readonly Allowance[]): Allowance {
  const exprs: FilterExpr[] = []
  for (const item of items) {
    if (item === false) return false
    if (item !== true) exprs.push(item)
  }
  if (exprs.length === 0) return true
  return exprs.length === 1 ? exprs[0] as FilterExpr : { op: 'and', items: exprs }
}

/** Any allowance ORed, the constant ones folded away. */
function anyOfAllowances (items: readonly Allowance[]): Allowance {
  const exprs: FilterExpr[] = []
  for (const item of items) {
    if (item === true) return true
    if (item !== false) exprs.push(item)
  }
  if (exprs.length === 0) return false
  return exprs.length === 1 ? exprs[0] as FilterExpr : { op: 'or', items: exprs }
}

/** A value of the request, known when the rule is evaluated. */
interface RequestValue {
  /** Its kind, or `roles` for the caller's list of roles. */
  kind: Kind | 'roles'
  spec: FilterField
  read: (input: RuleInput) => FieldValue | readonly string[] | undefined
  name: string
}

const TEXT: FilterField = { kind: 'string' }

function requestValue (operand: Extract<Operand, { type: 'request' }>, fields: FilterFields, scope: RuleScope): RequestValue {
  const [root, name, ...rest] = operand.path
  const name$ = `@request.${operand.path.join('.')}`
  if (root === 'auth' && rest.length === 0) {
    if (name === 'sub') return { kind: 'string', spec: TEXT, read: ({ caller }) => caller.sub, name: name$ }
    if (name === 'roles') return { kind: 'roles', spec: TEXT, read: ({ caller }) => caller.roles, name: name$ }
  }
  if (root === 'body' && name !== undefined && rest.length === 0) {
    if (!scope.body) throw new FilterError(`${name$}: the values sent are known to create and update rules only`, operand.at)
    const spec = Object.hasOwn(fields, name) && name !== 'id' ? fields[name] : undefined
    if (spec === undefined) throw new FilterError(`${name$}: unknown field "${name}" (fields: ${Object.keys(fields).filter((f) => f !== 'id').join(', ')})`, operand.at)
    if (KINDS[spec.kind].composite !== undefined) throw new FilterError(`${name$}: ${name} is ${spec.kind === 'list' ? 'a list' : 'an object'}; a rule compares the values of scalar fields only`, operand.at)
    return { kind: spec.kind, spec, read: ({ body }) => body?.[name] as FieldValue | undefined, name: name$ }
  }
  throw new FilterError(`unknown request value ${name$}: use @request.auth.sub, @request.auth.roles or @request.body.<field>`, operand.at)
}

const MIRRORED: Partial<Record<SyntaxOperator, SyntaxOperator>> = { '=': '=', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' }

function comparison (node: RuleComparison, fields: FilterFields, scope: RuleScope): Rule {
  let { left, right, op } = node
  // A field or a request value goes left: `'x' = owner` reads as `owner = 'x'`.
  if (left.type === 'literal' || (left.type === 'request' && right.type === 'field')) {
    const mirrored = MIRRORED[op]
    if (mirrored === undefined) throw new FilterError(`'${op}' takes the field or @request value on its left`, node.opAt)
    ;[left, right, op] = [right, left, mirrored]
  }
  if (left.type === 'literal') throw new FilterError('this compares two values: one side must be a field or @request…', left.at)
  if (left.type === 'field') {
    if (right.type === 'field') throw new FilterError(`a field is compared with a value or @request…, not with another field (${right.path.join('.')})`, right.at)
    if (right.type === 'literal') {
      // A plain filter comparison: checked (and its literal read) as `filter=` is.
      const expr = checkFilter({ type: 'compare', path: left.path, at: left.at, op, opAt: node.opAt, value: right.value, valueAt: right.at }, fields)
      return () => expr
    }
    return fieldWithRequest(left, op, node.opAt, requestValue(right, fields, scope), fields)
  }
  const value = requestValue(left, fields, scope)
  if (right.type === 'literal') return requestWithLiteral(value, op, node.opAt, right.value, right.at)
  if (right.type === 'request') return requestWithRequest(value, op, node.opAt, requestValue(right, fields, scope), right.at)
  throw new FilterError('a field goes on the left of a comparison', right.at)
}

/** `owner = @request.auth.sub`, `members ?= @request.auth.sub`: the request's value put into a filter. */
function fieldWithRequest (left: Extract<Operand, { type: 'field' }>, op: SyntaxOperator, opAt: number, value: RequestValue, fields: FilterFields): Rule {
  const field = left.path.join('.')
  const spec = Object.hasOwn(fields, field) ? fields[field] : undefined
  if (spec === undefined) throw new FilterError(`unknown field "${field}" (fields: ${Object.keys(fields).join(', ')})`, left.at)
  if (value.kind === 'roles') throw new FilterError(`${value.name} is a list: test it with '${value.name} ?= 'role''`, opAt)
  const compared = op === '?=' ? spec.items : spec.kind
  if (op === '?=' && spec.items === undefined) throw new FilterError(`'?=' tests a list field, and ${field} holds one value: write '='`, opAt)
  if (op !== '?=' && KINDS[spec.kind].composite !== undefined) throw new FilterError(`${field} is ${spec.kind === 'list' ? "a list: test it with '?='" : 'an object: compare a field inside it (a dotted path)'}`, opAt)
  if (compared !== value.kind) throw new FilterError(`${field} is ${String(compared)} and ${value.name} is ${value.kind}: compare values of one kind`, opAt)
  const operators = spec.operators ?? KINDS[spec.kind].operators
  if ((op === '~' || op === '!~') && !operators.includes('contains')) throw new FilterError(`'${op}' applies to text fields only, and ${field} is ${spec.kind}`, opAt)
  if (ORDER[op] !== undefined && !operators.includes('gt')) throw new FilterError(`'${op}' does not apply to ${field}: it is ${spec.kind}, compared with = and != only`, opAt)
  return (input) => {
    const held = value.read(input) as FieldValue | undefined
    // An unknown value (an anonymous caller's subject, a member not sent) compares false, as an unset field does.
    if (held === undefined || held === null) return false
    switch (op) {
      case '=': return { op: 'eq', field, value: held }
      case '!=': return { op: 'ne', field, value: held }
      case '?=': return { op: 'has', field, values: [held] }
      case '~': return { op: 'contains', field, value: String(held) }
      case '!~': return { op: 'and', items: [{ op: 'not', item: { op: 'unset', field } }, { op: 'not', item: { op: 'contains', field, value: String(held) } }] }
      default: return { op: ORDER[op] as 'gt', field, value: held }
    }
  }
}

const ORDER: Partial<Record<SyntaxOperator, 'lt' | 'lte' | 'gt' | 'gte'>> = { '<': 'lt', '<=': 'lte', '>': 'gt', '>=': 'gte' }

/** `@request.auth.roles ?= 'editor'`, `@request.auth.sub != null`, `@request.body.status = 'draft'`: known once the request is. */
function requestWithLiteral (value: RequestValue, op: SyntaxOperator, opAt: number, literal: Literal, at: number): Rule {
  if (value.kind === 'roles') {
    if (op !== '?=') throw new FilterError(`${value.name} is a list: test it with '?='`, opAt)
    if (literal.type !== 'string') throw new FilterError(`a role is text: write '${literal.type === 'number' ? literal.text : 'editor'}' in quotes`, at)
    const role = literal.value
    return ({ caller }) => caller.roles.includes(role)
  }
  if (op === '?=') throw new FilterError(`'?=' tests a list, and ${value.name} holds one value: write '='`, opAt)
  if (literal.type === 'null') {
    if (op !== '=' && op !== '!=') throw new FilterError(`null compares with = and != only, not '${op}'`, at)
    const unset = op === '='
    return (input) => (value.read(input) === undefined || value.read(input) === null) === unset
  }
  const wanted = readLiteral(value.name, value.spec, literal, at)
  const holds = constantTest(value, op, opAt)
  return (input) => {
    const held = value.read(input) as FieldValue | undefined | null
    return held !== undefined && held !== null && holds(held, wanted)
  }
}

/** `@request.body.owner = @request.auth.sub`. */
function requestWithRequest (left: RequestValue, op: SyntaxOperator, opAt: number, right: RequestValue, at: number): Rule {
  if (right.kind === 'roles') throw new FilterError(`${right.name} is a list: test it with '${right.name} ?= 'role''`, at)
  if (left.kind === 'roles') {
    if (op !== '?=') throw new FilterError(`${left.name} is a list: test it with '?='`, opAt)
    if (right.kind !== 'string') throw new FilterError(`a role is text, and ${right.name} is ${right.kind}`, at)
    return (input) => {
      const role = right.read(input)
      return typeof role === 'string' && input.caller.roles.includes(role)
    }
  }
  if (left.kind !== right.kind) throw new FilterError(`${left.name} is ${left.kind} and ${right.name} is ${right.kind}: compare values of one kind`, opAt)
  const holds = constantTest(left, op, opAt)
  return (input) => {
    const a = left.read(input) as FieldValue | undefined | null
    const b = right.read(input) as FieldValue | undefined | null
    return a !== undefined && a !== null && b !== undefined && b !== null && holds(a, b)
  }
}

/** The test of two known values by an operator the request value's kind has. */
function constantTest (value: RequestValue, op: SyntaxOperator, opAt: number): (a: FieldValue, b: FieldValue) => boolean {
  const operators = value.spec.operators ?? KINDS[value.kind as Kind].operators
  if ((op === '~' || op === '!~') && !operators.includes('contains')) throw new FilterError(`'${op}' applies to text only, and ${value.name} is ${value.kind}`, opAt)
  if (ORDER[op] !== undefined && !operators.includes('gt')) throw new FilterError(`'${op}' does not apply to ${value.name}: it is ${value.kind}, compared with = and != only`, opAt)
  if (op === '?=') throw new FilterError(`'?=' tests a list, and ${value.name} holds one value: write '='`, opAt)
  switch (op) {
    case '~': return (a, b) => fold(String(a)).includes(fold(String(b)))
    case '!~': return (a, b) => !fold(String(a)).includes(fold(String(b)))
    case '=': return (a, b) => compareValues(a, b) === 0
    case '!=': return (a, b) => compareValues(a, b) !== 0
    case '<': return (a, b) => compareValues(a, b) < 0
    case '<=': return (a, b) => compareValues(a, b) <= 0
    case '>': return (a, b) => compareValues(a, b) > 0
    default: return (a, b) => compareValues(a, b) >= 0
  }
}
