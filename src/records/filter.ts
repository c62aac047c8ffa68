import { checkFilter, FilterError, KINDS, parseFilter, readLiteral, type FilterExpr, type FilterFields, type Literal } from '../domain/index.js'
import { EXPRESSION_PARAM, MAX_IN_VALUES, type CollectionModel, type FieldParam, type ExpressionOperator } from './model.js'

/**
 * The filter expressions of a list request: the `filter` parameter
 * (src/domain/filter/) and the bracket operators a condition cannot say
 * (`[in]`, `[nin]`, `[startsWith]`, `[null]`). Each answers its expression,
 * or the reason it is refused (a detail for INVALID_QUERY naming the parameter).
 */
export type Read = { expr: FilterExpr } | { refused: string }

/** The `filter` parameter, parsed once and checked against the collection's fields: `filter: expected a value after '>=' at 12`. */
export function readFilterParam (model: CollectionModel, text: string): Read {
  try {
    return { expr: checkFilter(parseFilter(text), model.fields as FilterFields) }
  } catch (err) {
    if (err instanceof FilterError) return { refused: `${EXPRESSION_PARAM}: ${err.message}` }
    throw err
  }
}

/** A list operator's parameter (`year[in]=1965,1984`) as an expression. */
export function readListOperator (field: string, spec: FieldParam, op: ExpressionOperator, value: unknown): Read {
  const param = `${field}[${op}]`
  try {
    switch (op) {
      case 'null': return { expr: value === true ? { op: 'unset', field } : { op: 'not', item: { op: 'unset', field } } }
      case 'startsWith': return { expr: { op: 'startsWith', field, value: readLiteral(field, spec, { type: 'string', value: String(value) }, 1) as string } }
      case 'in':
      case 'nin': {
        const items = splitList(String(value))
        if (items.length > MAX_IN_VALUES) return { refused: `"${param}": more than ${MAX_IN_VALUES} values` }
        const values = items.map((item) => readLiteral(field, spec, literalOf(spec, item), 1))
        const holds: FilterExpr = { op: 'in', field, values }
        // `[nin]` holds for a set field outside the list: an unset one compares false, as `[ne]` does.
        return { expr: op === 'in' ? holds : { op: 'and', items: [{ op: 'not', item: { op: 'unset', field } }, { op: 'not', item: holds }] } }
      }
    }
  } catch (err) {
    if (err instanceof FilterError) return { refused: `"${param}": ${err.reason}` }
    throw err
  }
}

/**
 * Splits `a,b\,c` into `a` and `b,c`: a comma separates values, `\,` is a
 * comma within one and `\\` a backslash. An empty text is one empty value.
 */
export function splitList (text: string): string[] {
  const items: string[] = []
  let item = ''
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string
    if (c === '\\' && (text[i + 1] === ',' || text[i + 1] === '\\')) {
      item += text[i + 1] as string
      i++
    } else if (c === ',') {
      items.push(item)
      item = ''
    } else {
      item += c
    }
  }
  items.push(item)
  return items
}

/** A list item as the literal the field's kind reads: text, a number, true or false. */
function literalOf (spec: FieldParam, text: string): Literal {
  switch (KINDS[spec.kind].represented.type) {
    case 'string': return { type: 'string', value: text }
    case 'boolean': return text === 'true' || text === 'false' ? { type: 'boolean', value: text === 'true' } : { type: 'string', value: text }
    default: return /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/.test(text) ? { type: 'number', text } : { type: 'string', value: text }
  }
}
