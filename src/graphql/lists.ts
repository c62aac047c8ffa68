import { KINDS, type Condition, type FieldValue, type ListCondition, type Operator, type Position, type RecordFilter, type SortKey } from '../domain/index.js'
import { AppError, type Failure } from '../http/errors/index.js'
import { decodeCursor, fieldParam, isSortable, MAX_SEARCH_LENGTH, operatorsOf, refusedOperator, type CollectionModel, type FieldParam } from '../records/index.js'
import { isStorableText, STORABLE_TEXT_RULE } from '../lib/storable-text.js'

/**
 * A list field's arguments read as REST reads its query string: the same
 * operators per field kind, the same limits on values (failures worded as
 * REST's, under `filter.<field>.<op>`), REST's cursors and page sizes.
 */

export interface ListArgs {
  filter?: Readonly<Record<string, unknown>> | null
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

export function readListArgs (model: CollectionModel, args: ListArgs): ListQuery {
  const failures: Failure[] = []
  const invalidQuery: Failure[] = []
  const where: Condition[] = []
  const lists: ListCondition[] = []
  let search: string | undefined
  for (const [field, ops] of Object.entries(args.filter ?? {})) {
    if (ops === null || ops === undefined) continue
    if (field === 'q') {
      const q = ops as string
      if (q.length > MAX_SEARCH_LENGTH) failures.push({ code: 'FIELD_TOO_LONG', field: 'filter.q', detail: `filter.q must NOT have more than ${MAX_SEARCH_LENGTH} characters` })
      else if (!isStorableText(q)) failures.push({ code: 'FIELD_INVALID_TEXT', field: 'filter.q', detail: `filter.q ${STORABLE_TEXT_RULE}` })
      else search = q
      continue
    }
    // A dotted path is named address__city in GraphQL (./schema.ts graphqlPathName).
    const path = field.replace(/__/g, '.')
    const param = fieldParam(model, path)
    if (param === undefined) continue // the schema names only the model's fields
    for (const [op, value] of Object.entries(ops as Record<string, unknown>)) {
      if (value === null || value === undefined) continue
      const name = `filter.${field}.${op}`
      if (param.items !== undefined) {
        const values = (op === 'hasAny' ? value as unknown[] : [value]).map((v) => valueOf({ ...param, kind: param.items as FieldParam['kind'] }, name, v, failures))
        if (values.every((v) => v !== undefined)) lists.push({ field: path, op: op as ListCondition['op'], values: values as FieldValue[] })
        continue
      }
      if (!operatorsOf(param).includes(op as Operator)) {
        invalidQuery.push({ code: 'INVALID_QUERY', field: name, detail: `"${name}": ${refusedOperator(param, field, op as Operator, 'use eq')}` })
        continue
      }
      const parsed = valueOf(param, name, value, failures)
      if (parsed !== undefined) where.push({ field: path, op: op as Operator, value: parsed })
    }
  }
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
  return { filter: { where, ...(lists.length === 0 ? {} : { lists }), search }, sort, after, first }
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
