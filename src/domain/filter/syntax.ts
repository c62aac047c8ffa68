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

/** A parsed expression, not yet checked against any collection; `at` is where each part starts (from 1). */
export type SyntaxNode =
  | { type: 'and' | 'or', items: SyntaxNode[] }
  | { type: 'not', item: SyntaxNode }
  | { type: 'compare', path: string[], at: number, op: SyntaxOperator, opAt: number, value: Literal, valueAt: number }

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

function tokenize (text: string): Token[] {
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
    const op = OPERATORS.find((o) => text.startsWith(o, i))
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
  if (text.length > MAX_FILTER_LENGTH) throw new FilterError(`longer than ${MAX_FILTER_LENGTH} characters`, MAX_FILTER_LENGTH + 1)
  const tokens = tokenize(text)
  let next = 0
  let comparisons = 0
  const peek = (): Token => tokens[next] as Token
  const take = (): Token => tokens[next++] as Token
  const shown = (t: Token): string => t.type === 'end' ? 'the end' : `'${t.text}'`

  const or = (depth: number): SyntaxNode => {
    const items = [and(depth)]
    while (peek().text === '||' && peek().type === 'op') { take(); items.push(and(depth)) }
    return items.length === 1 ? items[0] as SyntaxNode : { type: 'or', items }
  }
  const and = (depth: number): SyntaxNode => {
    const items = [unary(depth)]
    while (peek().text === '&&' && peek().type === 'op') { take(); items.push(unary(depth)) }
    return items.length === 1 ? items[0] as SyntaxNode : { type: 'and', items }
  }
  const unary = (depth: number): SyntaxNode => {
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
    return comparison()
  }
  const comparison = (): SyntaxNode => {
    const first = take()
    if (first.type !== 'name') {
      throw new FilterError(first.type === 'end' ? 'expected a field name, found the end' : `expected a field name, not ${shown(first)}`, first.at)
    }
    const path = [first.text]
    while (peek().type === 'op' && peek().text === '.') {
      take()
      const part = take()
      if (part.type !== 'name') throw new FilterError(`expected a name after '.', not ${shown(part)}`, part.at)
      path.push(part.text)
    }
    const op = take()
    if (op.type !== 'op' || !COMPARISON_OPERATORS.has(op.text)) {
      throw new FilterError(`expected an operator (=, !=, <, <=, >, >=, ~, !~, ?=) after '${path.join('.')}', not ${shown(op)}`, op.at)
    }
    const value = take()
    if (value.type !== 'literal') {
      throw new FilterError(`expected a value after '${op.text}'${value.type === 'name' ? ` (text is quoted: '${value.text}')` : ''}`, value.at)
    }
    if (++comparisons > MAX_FILTER_COMPARISONS) throw new FilterError(`more than ${MAX_FILTER_COMPARISONS} comparisons`, first.at)
    return { type: 'compare', path, at: first.at, op: op.text as SyntaxOperator, opAt: op.at, value: value.literal, valueAt: value.at }
  }

  if (peek().type === 'end') throw new FilterError('empty expression', 1)
  const tree = or(0)
  const rest = peek()
  if (rest.type !== 'end') throw new FilterError(`expected && or || before ${shown(rest)}`, rest.at)
  return tree
}
