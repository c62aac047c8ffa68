import { KINDS } from '../../src/domain/kinds/index.js'
import type { ListQuery, Sort } from './listing.js'
import { isSortKey, type FieldSpec, type ResourceSpec } from './resources.js'

/**
 * The whole view state lives in the URL: `/app/students?sort=-age&q=ada&age[gte]=18&limit=50&columns=firstName,age&cursor=…&page=2`,
 * so a reload, Back and Forward, and a shared link show the same view. Filters use the API's own parameters;
 * `columns` (the page's own) names the columns shown when some are hidden.
 */
export const APP_BASE = '/app/'
export const DEFAULT_LIMIT = 20
export const PAGE_SIZES = [10, 20, 50, 100]

/** The filter parameters a field offers, by kind: text contains, number at least / at most, boolean yes/no, an enum one of its values. */
export function filterParams (field: FieldSpec): string[] {
  if (field.allowed !== undefined) return [field.key]
  const { operators, composite } = KINDS[field.kind]
  if (composite === 'list') return [`${field.key}[has]`]
  if (composite !== undefined) return []
  // A text inside an object has no folded copy on the server: it is filtered by equality.
  if (field.key.includes('.') && operators.includes('contains')) return [field.key]
  if (operators.includes('contains')) return [`${field.key}[contains]`]
  return operators.includes('gte') ? [`${field.key}[gte]`, `${field.key}[lte]`] : [field.key]
}

/** Whether a link's filter value is one the list takes (a number for a number, true or false): another is dropped, not sent into a 400. */
function filterValueFits (field: FieldSpec, value: string): boolean {
  if (field.allowed !== undefined) return field.allowed.includes(value)
  switch (KINDS[field.kind].app.input) {
    case 'integer': return /^-?\d+$/.test(value.trim())
    case 'decimal': return /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(value.trim())
    case 'checkbox': return value === 'true' || value === 'false'
    default: return true
  }
}

export function queryFromSearch (search: string, spec: ResourceSpec): ListQuery {
  const params = new URLSearchParams(search)
  const sortText = params.get('sort') ?? ''
  const sortField = sortText.replace(/^-/, '')
  // A sort the list refuses (an unknown or optional field, from an old or edited link) is dropped: the default order.
  const sort: Sort | undefined = isSortKey(spec, sortField) ? { field: sortField, desc: sortText.startsWith('-') } : undefined
  const limit = Number(params.get('limit'))
  const filters: Record<string, string> = {}
  for (const field of spec.fields) {
    for (const param of filterParams(field)) {
      const value = params.get(param)
      if (value !== null && value !== '' && filterValueFits(field, value)) filters[param] = value
    }
  }
  const page = Number(params.get('page'))
  const cursor = params.get('cursor') ?? undefined
  return {
    q: params.get('q') ?? '',
    sort,
    limit: PAGE_SIZES.includes(limit) ? limit : DEFAULT_LIMIT,
    filters,
    cursor: cursor === '' ? undefined : cursor,
    page: Number.isSafeInteger(page) && page > 0 && cursor !== undefined ? page : 0
  }
}

/**
 * The columns a link hides: those its `columns` leaves out. Undefined when it
 * names none of the collection's fields (or has no `columns`): the columns
 * this browser keeps for the collection (../columns.ts) are shown then.
 */
export function hiddenFromSearch (search: string, spec: ResourceSpec): ReadonlySet<string> | undefined {
  const named = new URLSearchParams(search).get('columns')
  if (named === null) return undefined
  const shown = new Set(named.split(',').map((key) => key.trim()))
  if (!spec.fields.some((f) => shown.has(f.key))) return undefined
  return new Set(spec.fields.filter((f) => !shown.has(f.key)).map((f) => f.key))
}

/** The columns of a view state: those hidden, and whether the URL names the columns even when none is (a choice made, or a link's). */
export interface Columns {
  spec: ResourceSpec
  hidden: ReadonlySet<string>
  named: boolean
}

/** The query string of a view state, with its columns where they are named or some are hidden; brackets and commas stay readable (`age[gte]=18`). */
export function searchOf (query: ListQuery, columns?: Columns): string {
  const parts: string[] = []
  const add = (name: string, value: string): void => { parts.push(`${name.replace(/[^\w[\]-]/g, encodeURIComponent)}=${encodeURIComponent(value)}`) }
  if (query.sort !== undefined) add('sort', `${query.sort.desc ? '-' : ''}${query.sort.field}`)
  if (query.q.trim() !== '') add('q', query.q.trim())
  for (const [param, value] of Object.entries(query.filters)) if (value !== '') add(param, value)
  if (query.limit !== DEFAULT_LIMIT) add('limit', String(query.limit))
  if (columns !== undefined && (columns.named || columns.hidden.size > 0)) parts.push(`columns=${columns.spec.fields.filter((f) => !columns.hidden.has(f.key)).map((f) => encodeURIComponent(f.key)).join(',')}`)
  if (query.cursor !== undefined && query.page > 0) { add('cursor', query.cursor); add('page', String(query.page)) }
  return parts.length === 0 ? '' : `?${parts.join('&')}`
}

/** The view a path names (`/app/addresses`), else the hash the app used before (`#/addresses`), else the first. */
export function viewFromLocation (available: readonly string[]): string | undefined {
  const fromPath = location.pathname.startsWith(APP_BASE) ? decodeURIComponent(location.pathname.slice(APP_BASE.length).replace(/\/$/, '')) : ''
  const fromHash = location.hash.replace(/^#\/?/, '')
  return available.find((key) => key === fromPath) ?? available.find((key) => key === fromHash) ?? available[0]
}
