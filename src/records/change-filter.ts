import { expressionTest, fold, type Change, type FilterExpr, type FoldedField } from '../domain/index.js'

const foldField: FoldedField = (record, field) => fold((record as Record<string, string>)[field] as string)

/** Whether a record matches a filter expression, as the change filters test it (text folded as the lists' `~` folds it). */
export function recordTest (expression: FilterExpr): (record: Readonly<Record<string, unknown>>) => boolean {
  const test = expressionTest(expression, foldField)
  return (record) => test(record as Parameters<typeof test>[0])
}

/**
 * A filter on a stream of one collection's changes (issue 31, item 7): the
 * change feed's `?filter=` and GraphQL subscriptions' `filter` argument. A
 * change passes when the record matches after it, or when it matched before
 * it as far as this stream knows: the stream follows the ids of the records
 * whose matching state it has passed, so it also passes the change that
 * takes such a record out of the filter (a replace that no longer matches,
 * a delete), and then forgets the id. A change of a record this stream never
 * saw matching, leaving it unmatched, is not passed. Changes are offered in
 * order, each once (the feed's cursor guarantees it).
 */
export class ChangeFilter {
  readonly #test: (record: Readonly<Record<string, unknown>>) => boolean
  readonly #followed = new Set<string>()

  constructor (readonly service: string, expression: FilterExpr) {
    this.#test = recordTest(expression)
  }

  /** Whether the stream sends this change; updates what it follows. */
  passes (change: Change): boolean {
    if (change.service !== this.service) return false
    const key = String(change.id)
    const after = change.record !== null && this.#test(change.record)
    const before = this.#followed.has(key)
    if (after) this.#followed.add(key)
    else this.#followed.delete(key)
    return after || before
  }

  /** How many records the stream follows (for tests and metrics). */
  get following (): number {
    return this.#followed.size
  }
}
