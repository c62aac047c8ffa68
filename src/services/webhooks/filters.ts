import type { Change, Webhook } from '../../domain/index.js'
import { AppError } from '../../http/errors/index.js'
import { readFilterParam, recordTest, type CollectionModel } from '../../records/index.js'
import type { ByName } from '../collections/served-now.js'

/**
 * A webhook's `filter` (issue 34 item 1): an expression of the lists'
 * filter language (docs/collections.md) on the one collection its `events`
 * name, checked at registration against that collection's query model, as
 * /events checks `filter=`. The dispatcher asks each change once, on any
 * instance and after any restart, so the test is stateless: a create or a
 * replace is delivered when the record after it matches; a delete carries
 * no record, so it is delivered only when `events` lists `<collection>.deleted`
 * itself (`<collection>.*` does not bring deletes of a filtered webhook).
 */

/** The one collection `events` name (`books.*`, `books.created`, …), or undefined when they name none or several (`*`, `*.created`). */
export function filteredCollection (events: readonly string[]): string | undefined {
  const named = new Set(events.map((e) => e.split('.')[0]))
  const [collection] = named
  return named.size === 1 && collection !== undefined && collection !== '*' ? collection : undefined
}

/** The filter as stored (null: none), or 400 WEBHOOK_FILTER_INVALID saying why. */
export function checkHookFilter (events: readonly string[], filter: string | null, models: ByName<CollectionModel>): string | null {
  if (filter === null || filter.trim() === '') return null
  const collection = filteredCollection(events)
  const model = collection === undefined ? undefined : models.get(collection)
  if (collection === undefined || model === undefined) {
    throw invalid(`filter applies to the changes of one collection: events must name exactly one (such as ["books.*"] or ["books.created", "books.deleted"]), not ${JSON.stringify(events).slice(0, 120)}`)
  }
  const read = readFilterParam(model, filter)
  if ('refused' in read) throw invalid(`${read.refused} (the fields of ${collection})`)
  return filter
}

function invalid (detail: string): AppError {
  return new AppError('WEBHOOK_FILTER_INVALID', detail, { errors: [{ code: 'WEBHOOK_FILTER_INVALID', detail, field: 'filter' }] })
}

type Test = (change: Change) => boolean

/**
 * The dispatcher's tests of the webhooks' filters, each parsed once (kept by
 * webhook, with the filter and events it was built from). A filter that no
 * longer reads against its collection's fields (the declaration changed
 * since it was registered) passes nothing, and `onBroken` says so once.
 */
export class HookFilters {
  /** By webhook: the test and what it was built from (its filter and events, which a PATCH may change, and its collection's model then). */
  readonly #tests = new Map<string, { from: string, model: CollectionModel | undefined, test: Test }>()

  constructor (private readonly models: ByName<CollectionModel>, private readonly onBroken: (hook: Webhook, reason: string) => void) {}

  /** Whether the webhook's filter lets this change through (no filter: every change its events match). */
  passes (hook: Webhook, change: Change): boolean {
    if (hook.filter === null) return true
    const from = `${hook.filter}\n${hook.events.join('\n')}`
    // Read again when its collection's declaration changed while the server runs (a new model).
    const model = this.models.get(change.service)
    let kept = this.#tests.get(hook.id)
    if (kept?.from !== from || kept.model !== model) {
      kept = { from, model, test: this.#compile(hook, hook.filter) }
      this.#tests.set(hook.id, kept)
    }
    return kept.test(change)
  }

  /** Forgets the webhooks not in `ids` (deleted ones). */
  keepOnly (ids: ReadonlySet<string>): void {
    for (const id of this.#tests.keys()) if (!ids.has(id)) this.#tests.delete(id)
  }

  #compile (hook: Webhook, filter: string): Test {
    const collection = filteredCollection(hook.events)
    const model = collection === undefined ? undefined : this.models.get(collection)
    const read = model === undefined ? { refused: `events name no one collection of this server: ${hook.events.join(', ')}` } : readFilterParam(model, filter)
    if ('refused' in read) {
      this.onBroken(hook, read.refused)
      return () => false
    }
    const matches = recordTest(read.expr)
    const deletes = hook.events.includes(`${collection ?? ''}.deleted`)
    return (change) => change.kind === 'deleted' ? deletes : change.record !== null && matches(change.record)
  }
}
