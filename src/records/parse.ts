import { allOf, KINDS, liftConditions, LIST_OPERATORS, MAX_INT64_ID, OPERATORS, type Condition, type FilterExpr, type FilterOperator, type ListCondition, type Position, type RecordFilter, type SortKey } from '../domain/index.js'
import { listValues } from './list-filters.js'
import { decodeCursor } from './cursor.js'
import { QueryRefused, type QueryFailure } from './errors.js'
import { readFilterParam, readListOperator } from './filter.js'
import type { FilterCache } from './filter-cache.js'
import { acceptedParameters, CONTROL_PARAMS, FILE_PARAMS, EXPRESSION_PARAM, expressionOperatorsOf, fieldParam, isSortable, operatorsOf, refusedOperator, type CollectionModel, type ExpressionOperator } from './model.js'

/** A list request, understood: what to read, where to start, how much, and what to repeat in a next link. */
export interface ListRequest<F extends string = string> {
  filter: RecordFilter<F>
  sort: Array<SortKey<F>>
  after?: Position
  /** The client's `limit`, if any: caps an NDJSON stream. */
  limit?: number
  /** Page size of a JSON answer: `limit`, else the collection's default; undefined: every matching record (students without `limit`, and streams). */
  pageSize?: number
  /** Whether the client asked for X-Total-Count. */
  count: boolean
  /** A stream asked for as a file to save (`download=true`: Content-Disposition), and (CSV) with a UTF-8 byte order mark (`bom=true`). */
  download?: boolean
  bom?: boolean
  /** The parameters a next link repeats, as received, in order (limit and cursor are written by the link). */
  carried: Array<[string, string]>
}

/** A field or a dotted path to a nested one (`address.city`), and an operator in brackets. */
const FILTER_PARAM = /^([A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z][A-Za-z0-9]*){0,3})(?:\[([A-Za-z]*)\])?$/
const CONTROL = new Set<string>([...CONTROL_PARAMS, ...FILE_PARAMS, EXPRESSION_PARAM])

/**
 * What the list is answered with: a JSON page, whose size has the
 * collection's default and maximum, or an NDJSON stream (an export), which
 * holds every matching record unless the client's `limit` says otherwise.
 */
export type ListAnswer = 'page' | 'stream'

/**
 * Reads a collection's query string, already typed by its schema (see
 * ./schema.ts). Parameters, fields and operators the collection does not
 * have are a 400 INVALID_QUERY naming each and listing what is accepted; a
 * cursor it did not issue is INVALID_CURSOR; a page larger than the
 * collection allows is VALIDATION_FAILED. The empty query is the plain list.
 * `filters`: the collection's cache of `filter` texts already read (./filter-cache.ts).
 */
export function parseListQuery<F extends string> (model: CollectionModel<F>, query: Readonly<Record<string, unknown>>, answer: ListAnswer, filters?: FilterCache): ListRequest<F> {
  const failures: QueryFailure[] = []
  const refuse = (param: string, detail: string): void => { failures.push({ code: 'INVALID_QUERY', field: param, detail }) }
  const where: Array<Condition<F>> = []
  const lists: Array<ListCondition<F>> = []
  const expressions: FilterExpr[] = []
  const carried: Array<[string, string]> = []
  const expression = (read: { expr: FilterExpr } | { refused: string }, param: string): void => {
    if ('expr' in read) expressions.push(read.expr)
    else refuse(param, read.refused)
  }

  for (const [param, value] of Object.entries(query)) {
    if (param !== 'limit' && param !== 'cursor') carried.push([param, String(value)])
    if (CONTROL.has(param)) continue
    const match = FILTER_PARAM.exec(param)
    const field = match?.[1] as F | undefined
    const spec = field === undefined ? undefined : fieldParam(model, field)
    if (match === null || field === undefined || spec === undefined) {
      refuse(param, `unknown query parameter "${param}"`)
      continue
    }
    const op = (match[2] ?? 'eq') as FilterOperator
    const exprOp = match[2] as ExpressionOperator | undefined
    if (exprOp !== undefined && expressionOperatorsOf(spec).includes(exprOp)) {
      expression(readListOperator(field, spec, exprOp, value), param)
    } else if (match[2] !== undefined && op === 'eq') {
      refuse(param, `"${param}": write ${field}=value for equality`)
    } else if (!OPERATORS.includes(op as never) && !LIST_OPERATORS.includes(op as never)) {
      refuse(param, `"${param}": unknown operator "${match[2] ?? ''}"`)
    } else if (!operatorsOf(spec).includes(op)) {
      refuse(param, `"${param}": ${refusedOperator(spec, field, op, `write ${field}=true or ${field}=false`)}`)
    } else if ((op === 'has' || op === 'hasAny') && spec.items !== undefined) {
      const read = listValues(spec.items, String(value), op === 'hasAny')
      if ('rule' in read) {
        const detail = `querystring.${param} ${read.rule}`
        throw new QueryRefused('VALIDATION_FAILED', detail, { subject: 'query', errors: [{ code: 'FIELD_INVALID', field: param, detail }] })
      }
      lists.push({ field, op, values: read.values })
    } else if (op === 'has' || op === 'hasAny') {
      refuse(param, `"${param}": ${op} applies to list fields only`)
    } else {
      // The schema has checked the value's form; the kind reads it (an int64 beyond 2^63−1, a date-time outside 0000–9999 are none).
      const parsed = KINDS[spec.kind].query.fromQuery(value)
      if (parsed === undefined) {
        const rule = spec.kind === 'int64' ? `must be <= ${MAX_INT64_ID}` : `must be ${KINDS[spec.kind].query.describe(spec)}`
        throw new QueryRefused('VALIDATION_FAILED', `querystring.${param} ${rule}`, { subject: 'query', errors: [{ code: spec.kind === 'int64' ? 'FIELD_OUT_OF_RANGE' : 'FIELD_INVALID', field: param, detail: `querystring.${param} ${rule}` }] })
      }
      where.push({ field, op, value: parsed })
    }
  }

  const text = query[EXPRESSION_PARAM]
  if (typeof text === 'string') expression(filters === undefined ? readFilterParam(model, text) : filters.read(text), EXPRESSION_PARAM)
  const sort = typeof query.sort === 'string' ? parseSort(model, query.sort, refuse) : []
  if (failures.length > 0) {
    throw new QueryRefused('INVALID_QUERY', `${failures.map((f) => f.detail).join('; ')}. Accepted: ${acceptedParameters(model)}`, { errors: failures })
  }

  let after: Position | undefined
  if (typeof query.cursor === 'string') {
    after = decodeCursor(model, sort, query.cursor)
    if (after === undefined) throw new QueryRefused('INVALID_CURSOR', `cursor "${query.cursor.slice(0, 80)}" was not issued by this service for this sort`)
  }
  const limit = typeof query.limit === 'number' ? query.limit : undefined
  if (answer === 'page' && limit !== undefined && limit > model.maxLimit) throw pageTooLarge(model.maxLimit)
  const search = typeof query.q === 'string' ? query.q : undefined
  // The expression's top-level conditions join the bracket ones: the stores plan with those.
  const combined = allOf(expressions)
  const lifted = combined === undefined ? { conditions: [] } : liftConditions(combined)
  where.push(...lifted.conditions.map((c) => ({ ...c, field: c.field as F })))
  return { filter: { where, ...(lists.length === 0 ? {} : { lists }), search, expression: lifted.rest }, sort, after, limit, pageSize: answer === 'page' ? limit ?? model.defaultLimit : undefined, count: query.count === true, download: query.download === true, bom: query.bom === true, carried }
}

/** The failure the query string's schema would report for `limit` above `max` (the schema leaves it to the answer, see ./schema.ts). */
function pageTooLarge (max: number): QueryRefused {
  const detail = `querystring.limit must be <= ${max}`
  return new QueryRefused('VALIDATION_FAILED', detail, { subject: 'query', errors: [{ code: 'FIELD_OUT_OF_RANGE', field: 'limit', detail }] })
}

function parseSort<F extends string> (model: CollectionModel<F>, text: string, refuse: (param: string, detail: string) => void): Array<SortKey<F>> {
  const keys: Array<SortKey<F>> = []
  for (const token of text.split(',')) {
    const descending = token.startsWith('-')
    const field = (descending ? token.slice(1) : token) as F
    const param = fieldParam(model, field)
    if (param === undefined) {
      refuse('sort', token === '' ? 'sort: empty sort key' : `sort: unknown field "${field}"`)
    } else if (KINDS[param.kind].composite !== undefined) {
      refuse('sort', `sort: "${field}" is ${KINDS[param.kind].composite === 'list' ? 'a list' : 'an object'}, which has no order${KINDS[param.kind].composite === 'object' ? `; sort by a field inside it (${field}.<name>)` : ''}`)
    } else if (!isSortable(param)) {
      refuse('sort', `sort: "${field}" is no sort key of this collection`)
    } else if (keys.some((k) => k.field === field)) {
      refuse('sort', `sort: "${field}" is named twice`)
    } else {
      keys.push({ field, descending })
    }
  }
  return keys
}

