import { MAX_ADDRESS_ID, type Condition, type FieldValue, type Operator, type Position, type RecordFilter, type SortKey } from '../domain/index.js'
import { AppError, type Failure } from '../http/errors/index.js'
import { decodeCursor, fieldParam, isSortable, MAX_SEARCH_LENGTH, operatorsOf, type CollectionModel, type FieldParam } from '../records/index.js'
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
    const param = fieldParam(model, field)
    if (param === undefined) continue // the schema names only the model's fields
    for (const [op, value] of Object.entries(ops as Record<string, unknown>)) {
      if (value === null || value === undefined) continue
      const name = `filter.${field}.${op}`
      if (!operatorsOf(param).includes(op as Operator)) {
        invalidQuery.push({ code: 'INVALID_QUERY', field: name, detail: param.kind === 'boolean' ? `"${name}": ${field} is true or false: use eq` : `"${name}": ${op} applies to text fields only` })
        continue
      }
      const parsed = valueOf(param, name, value, failures)
      if (parsed !== undefined) where.push({ field, op: op as Operator, value: parsed })
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
  return { filter: { where, search }, sort, after, first }
}

/** The sort keys a list may name: REST's (the id and the required fields). */
export function sortableFields (model: CollectionModel): string[] {
  return Object.entries(model.fields as Record<string, FieldParam>).filter(([, param]) => isSortable(param)).map(([field]) => field)
}

/** A filter value as a condition compares it, or undefined with the failure recorded (the words of REST's query checks). */
function valueOf (param: FieldParam, name: string, value: unknown, failures: Failure[]): FieldValue | undefined {
  const fail = (code: Failure['code'], rule: string): undefined => { failures.push({ code, field: name, detail: `${name} ${rule}` }); return undefined }
  switch (param.kind) {
    case 'text': {
      const text = String(value)
      if (text.length > param.maxLength) return fail('FIELD_TOO_LONG', `must NOT have more than ${param.maxLength} characters`)
      if (!isStorableText(text)) return fail('FIELD_INVALID_TEXT', STORABLE_TEXT_RULE)
      return text
    }
    case 'integer': {
      // Ids arrive as ID (text); the other integers as numbers.
      const n = typeof value === 'string' ? (/^-?(0|[1-9][0-9]{0,15})$/.test(value) ? Number(value) : NaN) : value as number
      if (!Number.isSafeInteger(n)) return fail('FIELD_TYPE', 'must be integer')
      if (n < param.min) return fail('FIELD_OUT_OF_RANGE', `must be >= ${param.min}`)
      if (n > param.max) return fail('FIELD_OUT_OF_RANGE', `must be <= ${param.max}`)
      return n
    }
    case 'int64': {
      const text = String(value)
      if (!/^(0|-?[1-9][0-9]*)$/.test(text)) return fail('FIELD_TYPE', 'must be integer')
      const id = BigInt(text)
      if (id < 1n) return fail('FIELD_OUT_OF_RANGE', 'must be >= 1')
      if (id > MAX_ADDRESS_ID) return fail('FIELD_OUT_OF_RANGE', `must be <= ${MAX_ADDRESS_ID}`)
      return id
    }
    case 'number': {
      const n = value as number
      if (param.min !== undefined && n < param.min) return fail('FIELD_OUT_OF_RANGE', `must be >= ${param.min}`)
      if (param.max !== undefined && n > param.max) return fail('FIELD_OUT_OF_RANGE', `must be <= ${param.max}`)
      return n
    }
    case 'boolean':
      return value as boolean
  }
}
