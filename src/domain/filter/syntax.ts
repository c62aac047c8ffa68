/**
 * The filter language's text (issue 31, item 4), as PocketBase users know it:
 *
 *   expression := or
 *   or         := and ( '||' and )*
 *   and        := unary ( '&&' unary )*
 *   unary      := '!' unary | '(' expression ')' | comparison
 *   comparison := path operator literal
 *   path       := name ( '.' name )*          name: a letter or _, then letters, digits, _
 *   operator   := '=' | '!=' | '<' | '<=' | '>' | '>=' | '~' | '!~' | '?='
 *   literal    := string | number | true | false | null
 *   string     := '…' or "…" with the escapes \\ \' \" \n \r \t \uXXXX
 *   number     := -?digits(.digits)?([eE][+-]?digits)?
 *
 * `&&` binds tighter than `||`; whitespace between tokens is free. Positions
 * in errors count characters (UTF-16 code units) from 1.
 */

/** The bounds of one expression (docs/collections.md): its text, its nesting, and how many comparisons it makes. */
export const MAX_FILTER_LENGTH = 2000
export const MAX_FILTER_DEPTH = 16
export const MAX_FILTER_COMPARISONS = 64

export type SyntaxOperator = '=' | '!=' | '<' | '<=' | '>' | '>=' | '~' | '!~' | '?='

export type Literal =
  | { type: 'string', value: string }
  | { type: 'number', text: string }
  | { type: 'boolean', value: boolean }
  | { type: 'null' }

/** And, or and not over comparisons of one kind (`Leaf`). */
export type Tree<Leaf> =
  | { type: 'and' | 'or', items: Array<Tree<Leaf>> }
  | { type: 'not', item: Tree<Leaf> }
  | Leaf

/** A filter's comparison: a field (path) and a literal. */
export interface SyntaxComparison { type: 'compare', path: string[], at: number, op: SyntaxOperator, opAt: number, value: Literal, valueAt: number }

/** A parsed expression, not yet checked against any collection; `at` is where each part starts (from 1). */
export type SyntaxNode = Tree<SyntaxComparison>

/**
 * One side of a rule's comparison (src/domain/rules/): a record's field, a
 * value of the request (`@request.auth.sub`: `path` is `['auth', 'sub']`) or a literal.
 */
export type Operand =
  | { type: 'field', path: string[], at: number }
  | { type: 'request', path: string[], at: number }
  | { type: 'literal', value: Literal, at: number }

/** A rule's comparison: two operands, either of which may be a field, a request value or a literal. */
export interface RuleComparison { type: 'compare', left: Operand, op: SyntaxOperator, opAt: number, right: Operand }

/** A parsed rule (the filter language with `@request.…` operands on either side). */
export type RuleSyntax = Tree<RuleComparison>

/** A mistake in a filter's text or meaning: the message ends with the position it concerns. */
export class FilterError extends Error {
  override name = 'FilterError'
  constructor (readonly reason: string, readonly at: number) {
    super(`${reason} at ${at}`)
  }
}

type Token =
  | { type: 'name', text: string, at: number }
  | { type: 'op', text: string, at: number }
  | { type: 'literal', literal: Literal, text: string, at: number }
  | { type: 'end', text: string, at: number }

const OPERATORS = ['&&', '||', '!=', '!~', '<=', '>=', '?=', '(', ')', '!', '=', '<', '>', '~', '.']
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y
const ESCAPES: Record<string, string> = { '\\': '\\', "'": "'", '"': '"', n: '\n', r: '\r', t: '\t' }

function tokenize (text: string, references = false): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < text.length) {
    const c = text[i] as string
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') { i++; continue }
    const at = i + 1
    if (c === '"' || c === "'") {
      const { value, end } = readString(text, i)
      tokens.push({ type: 'literal', literal: { type: 'string', value }, text: text.slice(i, end), at })
      i = end
      continue
    }
    NUMBER.lastIndex = i
    const number = /[-0-9]/.test(c) ? NUMBER.exec(text) : null
    if (number !== null) {
      const end = i + number[0].length
      if (end < text.length && /[A-Za-z0-9_.]/.test(text[end] as string)) throw new FilterError(`malformed number "${text.slice(i, end + 1)}"`, at)
      tokens.push({ type: 'literal', literal: { type: 'number', text: number[0] }, text: number[0], at })
      i = end
      continue
    }
    NAME.lastIndex = i
    const name = NAME.exec(text)
    if (name !== null) {
      const word = name[0]
      const literal: Literal | undefined = word === 'true' || word === 'false' ? { type: 'boolean', value: word === 'true' } : word === 'null' ? { type: 'null' } : undefined
      tokens.push(literal === undefined ? { type: 'name', text: word, at } : { type: 'literal', literal, text: word, at })
      i += word.length
      continue
    }
    const op = references && c === '@' ? '@' : OPERATORS.find((o) => text.startsWith(o, i))
    if (op === undefined) throw new FilterError(`unexpected character ${JSON.stringify(c)}`, at)
    tokens.push({ type: 'op', text: op, at })
    i += op.length
  }
  tokens.push({ type: 'end', text: 'the end', at: text.length + 1 })
  return tokens
}

function readString (text: string, start: number): { value: string, end: number } {
  const quote = text[start] as string
  let value = ''
  let i = start + 1
  while (i < text.length) {
    const c = text[i] as string
    if (c === quote) return { value, end: i + 1 }
    if (c !== '\\') { value += c; i++; continue }
    const e = text[i + 1]
    if (e === 'u' && /^[0-9A-Fa-f]{4}$/.test(text.slice(i + 2, i + 6))) {
      value += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16))
      i += 6
    } else if (e !== undefined && Object.hasOwn(ESCAPES, e)) {
      value += ESCAPES[e] as string
      i += 2
    } else {
      throw new FilterError(`unknown escape "\\${e ?? ''}" in a string (write \\\\ for a backslash)`, i + 1)
    }
  }
  throw new FilterError(`unclosed string: no ${quote} after it`, start + 1)
}

const COMPARISON_OPERATORS = new Set<string>(['=', '!=', '<', '<=', '>', '>=', '~', '!~', '?='])

/** Parses a filter's text into its tree, or throws FilterError naming the position of the first mistake. */
export function parseFilter (text: string): SyntaxNode {
  return parseTree(text, false, (cursor) => {
    const first = cursor.take()
    if (first.type !== 'name') {
      throw new FilterError(first.type === 'end' ? 'expected a field name, found the end' : `expected a field name, not ${shown(first)}`, first.at)
    }
    const path = pathFrom(cursor, first)
    const op = operatorAfter(cursor, path.join('.'))
    const value = cursor.take()
    if (value.type !== 'literal') {
      throw new FilterError(`expected a value after '${op.text}'${value.type === 'name' ? ` (text is quoted: '${value.text}')` : ''}`, value.at)
    }
    cursor.counted(first.at)
    return { type: 'compare', path, at: first.at, op: op.text as SyntaxOperator, opAt: op.at, value: value.literal, valueAt: value.at }
  })
}

/**
 * Parses a rule (docs/rules.md): the filter language, each comparison
 * between a field, a literal and `@request.auth.sub`, `@request.auth.roles`
 * or `@request.body.<field>` on either side. Only the form is checked here;
 * src/domain/rules/ checks the names and kinds.
 */
export function parseRule (text: string): RuleSyntax {
  return parseTree(text, true, (cursor) => {
    const left = operandOf(cursor)
    const op = operatorAfter(cursor, describe(left))
    const right = operandOf(cursor)
    cursor.counted(left.at)
    return { type: 'compare', left, op: op.text as SyntaxOperator, opAt: op.at, right }
  })
}

/** What the parser of a comparison reads tokens through. */
interface Cursor {
  peek: () => Token
  take: () => Token
  /** One more comparison, at `at`: refused past MAX_FILTER_COMPARISONS. */
  counted: (at: number) => void
}

function shown (t: Token): string {
  return t.type === 'end' ? 'the end' : `'${t.text}'`
}

/** A dotted path whose first name is `first`. */
function pathFrom (cursor: Cursor, first: Token): string[] {
  const path = [first.text]
  while (cursor.peek().type === 'op' && cursor.peek().text === '.') {
    cursor.take()
    const part = cursor.take()
    if (part.type !== 'name') throw new FilterError(`expected a name after '.', not ${shown(part)}`, part.at)
    path.push(part.text)
  }
  return path
}

function operatorAfter (cursor: Cursor, what: string): Token {
  const op = cursor.take()
  if (op.type !== 'op' || !COMPARISON_OPERATORS.has(op.text)) {
    throw new FilterError(`expected an operator (=, !=, <, <=, >, >=, ~, !~, ?=) after '${what}', not ${shown(op)}`, op.at)
  }
  return op
}

/** A rule's operand: `@request.…`, a field's path or a literal. */
function operandOf (cursor: Cursor): Operand {
  const t = cursor.take()
  if (t.type === 'literal') return { type: 'literal', value: t.literal, at: t.at }
  if (t.type === 'name') return { type: 'field', path: pathFrom(cursor, t), at: t.at }
  if (t.type === 'op' && t.text === '@') {
    const root = cursor.take()
    if (root.type !== 'name' || root.text !== 'request') throw new FilterError(`expected 'request' after '@' (@request.auth.sub, @request.auth.roles, @request.body.<field>), not ${shown(root)}`, root.at)
    const dot = cursor.peek()
    if (dot.type !== 'op' || dot.text !== '.') throw new FilterError(`expected '.' after '@request' (@request.auth.sub, @request.auth.roles, @request.body.<field>), not ${shown(dot)}`, dot.at)
    return { type: 'request', path: pathFrom(cursor, root).slice(1), at: t.at }
  }
  throw new FilterError(t.type === 'end' ? 'expected a field, a value or @request…, found the end' : `expected a field, a value or @request…, not ${shown(t)}`, t.at)
}

function describe (operand: Operand): string {
  switch (operand.type) {
    case 'field': return operand.path.join('.')
    case 'request': return `@request.${operand.path.join('.')}`
    case 'literal': return 'the value'
  }
}

/** The and/or/not structure over comparisons, each read by `leaf`. */
function parseTree<Leaf> (text: string, references: boolean, leaf: (cursor: Cursor) => Leaf): Tree<Leaf> {
  if (text.length > MAX_FILTER_LENGTH) throw new FilterError(`longer than ${MAX_FILTER_LENGTH} characters`, MAX_FILTER_LENGTH + 1)
  const tokens = tokenize(text, references)
  let next = 0
  let comparisons = 0
  const peek = (): Token => tokens[next] as Token
  const take = (): Token => tokens[next++] as Token
  const cursor: Cursor = {
    peek,
    take,
    counted: (at) => { if (++comparisons > MAX_FILTER_COMPARISONS) throw new FilterError(`more than ${MAX_FILTER_COMPARISONS} comparisons`, at) }
  }

  const or = (depth: number): Tree<Leaf> => {
    const items = [and(depth)]
    while (peek().text === '||' && peek().type === 'op') { take(); items.push(and(depth)) }
    return items.length === 1 ? items[0] as Tree<Leaf> : { type: 'or', items }
  }
  const and = (depth: number): Tree<Leaf> => {
    const items = [unary(depth)]
    while (peek().text === '&&' && peek().type === 'op') { take(); items.push(unary(depth)) }
    return items.length === 1 ? items[0] as Tree<Leaf> : { type: 'and', items }
  }
  const unary = (depth: number): Tree<Leaf> => {
    const t = peek()
    const nests = t.type === 'op' && (t.text === '!' || t.text === '(')
    if (nests && depth >= MAX_FILTER_DEPTH) throw new FilterError(`nested deeper than ${MAX_FILTER_DEPTH} levels`, t.at)
    if (t.type === 'op' && t.text === '!') { take(); return { type: 'not', item: unary(depth + 1) } }
    if (t.type === 'op' && t.text === '(') {
      take()
      const inner = or(depth + 1)
      const close = take()
      if (close.type !== 'op' || close.text !== ')') throw new FilterError(`expected ')' or an operator such as && before ${shown(close)}`, close.at)
      return inner
    }
    return leaf(cursor)
  }

  if (peek().type === 'end') throw new FilterError('empty expression', 1)
  const tree = or(0)
  const rest = peek()
  if (rest.type !== 'end') throw new FilterError(`expected && or || before ${shown(rest)}`, rest.at)
  return tree
}
