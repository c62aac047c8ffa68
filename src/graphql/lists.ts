import {
  allOf, KINDS, MAX_FILTER_COMPARISONS, MAX_FILTER_DEPTH,
  type Condition, type FieldValue, type FilterExpr, type ListCondition, type Operator, type Position, type RecordFilter, type SortKey
} from '../domain/index.js'
import { AppError, type Failure } from '../http/errors/index.js'
import { decodeCursor, fieldParam, isSortable, MAX_IN_VALUES, MAX_SEARCH_LENGTH, operatorsOf, refusedOperator, type CollectionModel, type FieldParam } from '../records/index.js'
import { isStorableText, STORABLE_TEXT_RULE } from '../lib/storable-text.js'

/**
 * A list field's arguments read as REST reads its query string: the same
 * operators per field kind, the same limits on values (failures worded as
 * REST's, under `filter.<field>.<op>`), REST's cursors and page sizes.
 */

export interface ListArgs {
  filter?: FilterArg | null
  sort?: ReadonlyArray<SortKey> | null
  first?: number | null
  after?: string | null
}

export interface ListQuery {
  filter: RecordFilter
  sort: SortKey[]
  after?: Position
  first: number
}

/** The page size without `first`: REST's default for a page (students have none: they list everything without `limit`). */
export const DEFAULT_FIRST = 50

/**
 * The filter fields through a reference of a list's filter input
 * (`author__name`: REST's `author.name`), each as its reference field, the
 * referenced collection and its model, and the field there; undefined for
 * any other name. Given where the input may filter through references (a
 * list, a back-relation); elsewhere such a field is refused.
 */
export type ThroughPaths = (path: string) => { field: string, target: string, model: CollectionModel, inner: string } | undefined

export function readListArgs (model: CollectionModel, args: ListArgs, throughPaths?: ThroughPaths): ListQuery {
  const reader = new FilterReader(model)
  const where: Condition[] = []
  const lists: ListCondition[] = []
  const expressions: FilterExpr[] = []
  const through = new Map<string, { target: string, model: CollectionModel, filter: Record<string, unknown> }>()
  let search: string | undefined
  // The top level as before: conditions and the search; `and`, `or`, `not`, `in` and `isNull` become an expression.
  for (const [field, ops] of Object.entries(args.filter ?? {})) {
    if (ops === null || ops === undefined) continue
    if (field === 'q') {
      search = reader.search(ops, 'filter.q')
      continue
    }
    if (COMBINATORS.has(field)) {
      const expr = reader.combinator(field, ops, 'filter', 1)
      if (expr !== undefined) expressions.push(expr)
      continue
    }
    // A dotted path is named address__city in GraphQL (./schema.ts graphqlPathName).
    const path = field.replace(/__/g, '.')
    const param = fieldParam(model, path)
    if (param === undefined) {
      // Not a field of the model: a field through a reference (the schema names no other), a semi-join as REST's `author.name=…`.
      const to = throughPaths?.(path)
      if (to === undefined) { reader.refuseThrough(`filter.${field}`); continue }
      const group = through.get(to.field) ?? { target: to.target, model: to.model, filter: {} }
      group.filter[to.inner.replace(/\./g, '__')] = ops
      through.set(to.field, group)
      continue
    }
    for (const [op, value] of Object.entries(ops as Record<string, unknown>)) {
      if (value === null || value === undefined) continue
      const name = `filter.${field}.${op}`
      if (param.items !== undefined) {
        const values = (op === 'hasAny' ? value as unknown[] : [value]).map((v) => valueOf({ ...param, kind: param.items as FieldParam['kind'] }, name, v, reader.failures))
        if (values.every((v) => v !== undefined)) lists.push({ field: path, op: op as ListCondition['op'], values: values as FieldValue[] })
        continue
      }
      if (op === 'in' || op === 'isNull') {
        const expr = reader.leaf(path, param, op, value, name)
        if (expr !== undefined) expressions.push(expr)
        continue
      }
      const condition = reader.leaf(path, param, op, value, name, false)
      if (condition !== undefined) where.push(condition as Condition)
    }
  }
  const { failures, invalidQuery } = reader
  const sort = [...(args.sort ?? [])]
  const seen = new Set<string>()
  for (const key of sort) {
    if (seen.has(key.field)) invalidQuery.push({ code: 'INVALID_QUERY', field: 'sort', detail: `sort: "${key.field}" is named twice` })
    seen.add(key.field)
  }
  if (invalidQuery.length > 0) throw new AppError('INVALID_QUERY', invalidQuery.map((f) => f.detail).join('; '), { errors: invalidQuery })
  const first = args.first ?? DEFAULT_FIRST
  if (first < 1) failures.push({ code: 'FIELD_OUT_OF_RANGE', field: 'first', detail: 'first must be >= 1' })
  if (first > model.maxLimit) failures.push({ code: 'FIELD_OUT_OF_RANGE', field: 'first', detail: `first must be <= ${model.maxLimit}` })
  if (failures.length > 0) throw new AppError('VALIDATION_FAILED', failures.map((f) => f.detail).join('; '), { subject: 'query', errors: failures })
  let after: Position | undefined
  if (typeof args.after === 'string') {
    after = decodeCursor(model, sort, args.after)
    if (after === undefined) throw new AppError('INVALID_CURSOR', `cursor "${args.after.slice(0, 80)}" was not issued by this service for this sort`)
  }
  const filters = [...through].map(([field, group]) => ({ field, target: group.target, filter: readListArgs(group.model, { filter: group.filter }).filter }))
  return { filter: { where, ...(lists.length === 0 ? {} : { lists }), search, expression: allOf(expressions), ...(filters.length === 0 ? {} : { through: filters }) }, sort, after, first }
}

/**
 * A whole filter input as one expression (GraphQL subscriptions' `filter`),
 * or undefined for none; throws as readListArgs does.
 */
export function filterExpression (model: CollectionModel, filter: FilterArg | null | undefined): FilterExpr | undefined {
  if (filter === null || filter === undefined) return undefined
  const reader = new FilterReader(model)
  const expr = reader.input(filter, 'filter', 0)
  reader.throwFailures()
  return expr
}

/** A filter input: fields with their operators, `q`, and `and`, `or`, `not` of further inputs. */
export type FilterArg = Readonly<Record<string, unknown>>

const COMBINATORS = new Set(['and', 'or', 'not'])

/**
 * Reads filter inputs (issue 31, item 4: `and`, `or`, `not`, `in`, `isNull`)
 * into conditions and expressions, recording failures in REST's words under
 * their path (`filter.or.1.year.gt`). Bounded as the filter language is: at
 * most MAX_FILTER_DEPTH levels of nesting and MAX_FILTER_COMPARISONS conditions.
 */
class FilterReader {
  readonly failures: Failure[] = []
  readonly invalidQuery: Failure[] = []
  #conditions = 0

  constructor (private readonly model: CollectionModel) {}

  throwFailures (): void {
    if (this.invalidQuery.length > 0) throw new AppError('INVALID_QUERY', this.invalidQuery.map((f) => f.detail).join('; '), { errors: this.invalidQuery })
    if (this.failures.length > 0) throw new AppError('VALIDATION_FAILED', this.failures.map((f) => f.detail).join('; '), { subject: 'query', errors: this.failures })
  }

  /** A field through a reference where none is followed: inside `and`, `or` or `not`, an aggregate's or a subscription's filter. */
  refuseThrough (name: string): void {
    this.invalidQuery.push({ code: 'INVALID_QUERY', field: name, detail: `"${name}": a filter through a reference applies at the top of a list's filter only (not inside and, or, not, nor in an aggregate's or a subscription's filter)` })
  }

  search (value: unknown, name: string): string | undefined {
    const q = value as string
    if (q.length > MAX_SEARCH_LENGTH) this.failures.push({ code: 'FIELD_TOO_LONG', field: name, detail: `${name} must NOT have more than ${MAX_SEARCH_LENGTH} characters` })
    else if (!isStorableText(q)) this.failures.push({ code: 'FIELD_INVALID_TEXT', field: name, detail: `${name} ${STORABLE_TEXT_RULE}` })
    else return q
    return undefined
  }

  /** Every condition of one input, ANDed (an empty input holds for every record). */
  input (filter: FilterArg, path: string, depth: number): FilterExpr {
    if (depth > MAX_FILTER_DEPTH) {
      this.invalidQuery.push({ code: 'INVALID_QUERY', field: path, detail: `"${path}": filters nested deeper than ${MAX_FILTER_DEPTH} levels` })
      return { op: 'and', items: [] }
    }
    const items: FilterExpr[] = []
    for (const [field, ops] of Object.entries(filter)) {
      if (ops === null || ops === undefined) continue
      const name = `${path}.${field}`
      if (field === 'q') {
        const q = this.search(ops, name)
        // The search as an expression: the text in any text field (the id never), as `q` searches.
        const text = Object.entries(this.model.fields as Record<string, FieldParam>).filter(([f, p]) => f !== 'id' && KINDS[p.kind].folded).map(([f]) => f)
        if (q !== undefined) items.push({ op: 'or', items: text.map((f): FilterExpr => ({ op: 'contains', field: f, value: q })) })
        continue
      }
      if (COMBINATORS.has(field)) {
        const expr = this.combinator(field, ops, path, depth + 1)
        if (expr !== undefined) items.push(expr)
        continue
      }
      // A dotted path is named address__city in GraphQL (./schema.ts graphqlPathName).
      const fieldPath = field.replace(/__/g, '.')
      const param = fieldParam(this.model, fieldPath)
      if (param === undefined) { this.refuseThrough(name); continue }
      for (const [op, value] of Object.entries(ops as Record<string, unknown>)) {
        if (value === null || value === undefined) continue
        const expr = this.leaf(fieldPath, param, op, value, `${name}.${op}`)
        if (expr !== undefined) items.push(expr)
      }
    }
    return items.length === 1 ? items[0] as FilterExpr : { op: 'and', items }
  }

  /** `and: [..]`, `or: [..]` or `not: {..}` at `path`. */
  combinator (op: string, value: unknown, path: string, depth: number): FilterExpr | undefined {
    const name = `${path}.${op}`
    if (op === 'not') return { op: 'not', item: this.input(value as FilterArg, name, depth) }
    const items = (value as readonly FilterArg[]).map((input, i) => this.input(input, `${name}.${i}`, depth))
    return { op: op as 'and' | 'or', items }
  }

  /** One operator on one field, as a condition-shaped expression, or undefined with the failure recorded. */
  leaf (field: string, param: FieldParam, op: string, value: unknown, name: string, counted = true): FilterExpr | undefined {
    // The top level's plain conditions are bounded by the fields (as REST's); what builds an expression counts.
    if (counted && ++this.#conditions > MAX_FILTER_COMPARISONS) {
      if (this.#conditions === MAX_FILTER_COMPARISONS + 1) this.invalidQuery.push({ code: 'INVALID_QUERY', field: name, detail: `"${name}": a filter makes at most ${MAX_FILTER_COMPARISONS} comparisons` })
      return undefined
    }
    if (op === 'isNull') return value === true ? { op: 'unset', field } : { op: 'not', item: { op: 'unset', field } }
    if (op === 'in') {
      const list = value as readonly unknown[]
      if (list.length > MAX_IN_VALUES) {
        this.failures.push({ code: 'FIELD_OUT_OF_RANGE', field: name, detail: `${name} must NOT have more than ${MAX_IN_VALUES} items` })
        return undefined
      }
      const values = list.map((item, i) => valueOf(param, `${name}.${i}`, item, this.failures))
      return values.every((v) => v !== undefined) ? { op: 'in', field, values: values as FieldValue[] } : undefined
    }
    if (!operatorsOf(param).includes(op as Operator)) {
      this.invalidQuery.push({ code: 'INVALID_QUERY', field: name, detail: `"${name}": ${refusedOperator(param, field, op as Operator, 'use eq')}` })
      return undefined
    }
    const parsed = valueOf(param, name, value, this.failures)
    if (parsed === undefined) return undefined
    return op === 'contains' ? { op: 'contains', field, value: parsed as string } : { op: op as 'eq', field, value: parsed }
  }
}

/** The sort keys a list may name: REST's (the id and the required fields). */
export function sortableFields (model: CollectionModel): string[] {
  return Object.entries(model.fields as Record<string, FieldParam>).filter(([, param]) => isSortable(param)).map(([field]) => field)
}

/** A filter value as a condition compares it, read by its kind, or undefined with the failure recorded (the words of REST's query checks). */
function valueOf (param: FieldParam, name: string, value: unknown, failures: Failure[]): FieldValue | undefined {
  const read = KINDS[param.kind].query.fromGraphql(value, param)
  if ('value' in read) return read.value
  failures.push({ code: read.code, field: name, detail: `${name} ${read.rule}` })
  return undefined
}
