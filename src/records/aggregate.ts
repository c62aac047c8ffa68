import { KINDS, MAX_GROUP_FIELDS, MAX_GROUPS, type AggregateAsk, type AggregateQuery } from '../domain/index.js'
import { closestWord } from '../lib/suggest.js'
import { QueryRefused, type QueryFailure } from './errors.js'
import { splitList } from './filter.js'
import { fieldParam, type CollectionModel, type FieldParam } from './model.js'
import { parseListQuery } from './parse.js'

/**
 * An aggregate request (`GET /{collection}/aggregate`): `groupBy`, `count`,
 * `sum`, `avg`, `min` and `max` name what to compute; every other parameter
 * is the list's filter (brackets, `filter=`, `q`), read by parseListQuery so
 * the groups cover exactly the records the list would give. Paging and
 * format parameters are refused. Fields are top-level ones: group keys of a
 * scalar kind, sums and averages of `integer` or `number` fields, least and
 * greatest of ordered kinds (text, numbers, date-times).
 */
export const AGGREGATE_PARAMS = ['groupBy', 'count', 'sum', 'avg', 'min', 'max'] as const

/** List parameters that page or format a list: an aggregate refuses them. */
const NOT_AGGREGATED = ['limit', 'cursor', 'sort', 'download', 'bom']

export interface AggregateRequest<F extends string = string> {
  query: AggregateQuery<F>
  ask: AggregateAsk<F>
}

type Use = 'groupBy' | 'sum' | 'avg' | 'min' | 'max'

/** Whether a field's kind takes a use: what INVALID_QUERY says otherwise. */
function refusal (param: FieldParam, field: string, use: Use): string | undefined {
  const kind = KINDS[param.kind]
  if (kind.composite !== undefined || param.kind === 'int64') return `${field} is a ${param.kind} field: ${use} takes fields of plain values`
  if ((use === 'sum' || use === 'avg') && param.kind !== 'integer' && param.kind !== 'number') return `${use} takes integer or number fields; ${field} is ${param.kind}`
  if ((use === 'min' || use === 'max') && kind.order !== 'text' && kind.order !== 'number') return `${use} takes fields with an order (text, numbers, date-times); ${field} is ${param.kind}`
  return undefined
}

export function parseAggregateQuery<F extends string> (model: CollectionModel<F>, query: Readonly<Record<string, unknown>>): AggregateRequest<F> {
  const failures: QueryFailure[] = []
  const refuse = (param: string, detail: string): void => { failures.push({ code: 'INVALID_QUERY', field: param, detail }) }
  const rest: Record<string, unknown> = {}
  for (const [param, value] of Object.entries(query)) {
    if (NOT_AGGREGATED.includes(param)) refuse(param, `${param}: an aggregate takes the list's filters, not paging or format parameters`)
    else if (!(AGGREGATE_PARAMS as readonly string[]).includes(param)) rest[param] = value
  }
  const fields = Object.keys(model.fields)
  const named = (use: Use): F[] => {
    const value = query[use]
    if (value === undefined) return []
    const names = [...new Set(splitList(String(value)).map((name) => name.trim()))]
    const out: F[] = []
    for (const name of names) {
      const param = fieldParam(model, name)
      if (param === undefined) {
        const meant = closestWord(name, fields)
        refuse(use, `${use}: "${name}" is not a field of this collection${meant === undefined ? '' : ` (did you mean ${meant}?)`}`)
        continue
      }
      const refused = refusal(param, name, use)
      if (refused === undefined) out.push(name as F)
      else refuse(use, `${use}: ${refused}`)
    }
    return out
  }
  const groupBy = named('groupBy')
  if (groupBy.length > MAX_GROUP_FIELDS) refuse('groupBy', `groupBy: at most ${MAX_GROUP_FIELDS} fields`)
  const sum = named('sum')
  const avg = named('avg')
  const min = named('min')
  const max = named('max')
  let filter
  try {
    filter = parseListQuery(model, rest, 'stream').filter
  } catch (err) {
    if (!(err instanceof QueryRefused) || failures.length === 0) throw err
    failures.push(...(err.options.errors ?? [{ code: err.code, detail: err.message }]))
  }
  if (failures.length > 0 || filter === undefined) {
    throw new QueryRefused('INVALID_QUERY', failures.map((f) => f.detail).join('; '), { errors: failures })
  }
  const decimals = new Set([...sum, ...avg].filter((f) => fieldParam(model, f)?.kind === 'number'))
  return {
    query: { filter, groupBy, sums: [...new Set([...sum, ...avg])], min, max, limit: MAX_GROUPS + 1 },
    ask: { count: query.count === true || query.count === 'true', sum, avg, decimals }
  }
}
