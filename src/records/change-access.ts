import { viewAllowed, type Caller, type Change, type CollectionAccess } from '../domain/index.js'

/**
 * What one caller's stream of a collection's changes carries under its
 * rules (docs/rules.md): the change feed's and GraphQL subscriptions'. A
 * change reaches the stream when the caller may view the record it leaves
 * (the view rule), without the fields the caller may not see (`x-read`).
 * A delete carries no record, so the stream follows the ids of the records
 * it has sent: the delete of one of them reaches it, and so does a change
 * that takes one out of the caller's view, sent as a delete (to this
 * caller the record is gone; its new values are not theirs to see). The
 * delete of a record this stream never sent is not sent, whether or not the
 * caller could view it: the stream cannot tell without the record. Changes
 * are offered in order, each once (the streams' cursors guarantee it).
 */
export class ChangeAccess {
  readonly #followed = new Set<string>()

  constructor (readonly access: CollectionAccess, readonly caller: Caller) {}

  /** The change as this caller's stream carries it, or undefined when it carries none; updates what the stream follows. */
  seen (change: Change): Change | undefined {
    const { access, caller } = this
    // Without a view rule every record is in view: only hidden fields are left out.
    if (!access.has('view') || caller.admin) return this.#visible(change)
    const key = String(change.id)
    const followed = this.#followed.has(key)
    if (change.record !== null && viewAllowed(access, caller, change.record)) {
      this.#followed.add(key)
      return this.#visible(change)
    }
    this.#followed.delete(key)
    if (!followed) return undefined
    return change.record === null ? change : { ...change, kind: 'deleted', record: null }
  }

  /** The change without the fields the caller may not see (the same object when none is left out). */
  #visible (change: Change): Change {
    if (change.record === null) return change
    const record = this.access.visibleRecord(change.record, this.caller)
    return record === change.record ? change : { ...change, record }
  }

  /** How many records the stream follows (for tests). */
  get following (): number {
    return this.#followed.size
  }
}
