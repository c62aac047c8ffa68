import type { Caller } from '../caller.js'
import { fieldsOf } from '../filter/tree.js'
import type { RecordFilter, ReferenceFilter, SortKey } from '../query.js'
import { bothAllowances, restrictedFilter, type CollectionAccess, type RuleOperation } from './access.js'
import type { Allowance } from './compile.js'

/**
 * A list's filter narrowed to what one caller may list, decided once for
 * every interface (REST lists, aggregates and filtered writes, GraphQL lists
 * and back-relations): the collection's rule ANDed in, the records whose
 * guarded fields the query names readable by the caller, and each filter
 * through a reference narrowed alike in the collection it leads to. So
 * neither a hidden field's value nor a record out of the caller's reach
 * ever decides what a list holds or in which order.
 */

/** The access of a collection by name (undefined: it has no rules), to narrow the filters through references into it. */
export type AccessOf = (collection: string) => CollectionAccess | undefined

export interface Narrowing {
  /** The rule ANDed in: `list` (the default), `view` for a back-relation, or the write a filtered update or delete adds itself. */
  operation?: RuleOperation
  /** The list's sort: a guarded field it names narrows the list as a filter on it does. */
  sort?: ReadonlyArray<Pick<SortKey, 'field'>>
  /** Where filters through references lead: without it they are left as they are. */
  accessOf?: AccessOf
}

export function narrowedFilter<F extends RecordFilter> (access: CollectionAccess | undefined, caller: Caller, filter: F, narrowing: Narrowing = {}): F {
  const { operation = 'list', sort = [], accessOf } = narrowing
  const through = filter.through === undefined || accessOf === undefined ? filter : { ...filter, through: filter.through.map((f) => narrowedThrough(f, caller, accessOf)) }
  if (access === undefined) return through
  const named = namedFields(filter, sort)
  const guarded = access.guarded.filter((field) => named.has(field) || filter.search !== undefined)
  return andAllowance(through, bothAllowances(access.allowance(operation, caller), guardedAllowance(access, caller, guarded)))
}

/** A filter through a reference narrowed to the target records the caller may list (and, through theirs, recursively). */
export function narrowedThrough (filter: ReferenceFilter, caller: Caller, accessOf: AccessOf): ReferenceFilter {
  return { ...filter, filter: narrowedFilter(accessOf(filter.target), caller, filter.filter, { accessOf }) }
}

/** The filter with one more allowance ANDed. */
export function andAllowance<F extends RecordFilter> (filter: F, allowance: Allowance): F {
  if (allowance === true) return filter
  const expression = restrictedFilter(filter.expression, allowance)
  return expression === undefined ? filter : { ...filter, expression }
}

/** Where the caller may read every one of these fields (true for unguarded ones): an aggregate's groups and measures. */
export function guardedAllowance (access: CollectionAccess, caller: Caller, fields: Iterable<string>): Allowance {
  const named = new Set(fields)
  return bothAllowances(...access.guarded.filter((field) => named.has(field)).map((field) => access.readAllowance(field, caller)))
}

/** The fields a filter (conditions, list conditions, expression) and a sort name, each once. */
function namedFields (filter: RecordFilter, sort: ReadonlyArray<Pick<SortKey, 'field'>>): Set<string> {
  const named = new Set<string>()
  for (const condition of filter.where) named.add(condition.field)
  for (const condition of filter.lists ?? []) named.add(condition.field)
  if (filter.expression !== undefined) fieldsOf(filter.expression, named)
  for (const key of sort) named.add(key.field)
  return named
}
