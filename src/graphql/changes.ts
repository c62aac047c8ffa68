import type { Change, ChangeLog, ChangeSubscription } from '../domain/index.js'
import { AppError } from '../http/errors/index.js'
import type { ChangeAccess, ChangeFilter } from '../records/index.js'

/** The changes a resumed subscription reads from the log at a time. */
const REPLAY_BATCH = 500

/**
 * The change log fanned out to GraphQL subscriptions: one subscription of the
 * server to the log (opened with the first stream and ended with the last,
 * so a server nobody subscribes to costs nothing), each change handed to the streams of its
 * collection. Changes written by any instance sharing the store arrive, as
 * they do in the change feed. At most `maxStreams` streams are open at once.
 */
export class ChangeStreams {
  readonly #listeners = new Set<(change: Change) => void>()
  #subscription: Promise<ChangeSubscription> | undefined
  /** The last change handed out: a stream that starts now has seen everything up to it. */
  #latest = 0

  constructor (private readonly changes: ChangeLog, private readonly maxStreams: number) {}

  get open (): number {
    return this.#listeners.size
  }

  /**
   * The changes of `collection` from now on, or (with `after`, a change's
   * `seq`) every one after that the log still holds, then the new ones: a
   * client that lost its stream resumes where it was, without gaps or repeats.
   * With `access`, only the changes its caller may view, as it may see them.
   */
  follow (collection: string, after: number | undefined, filter?: ChangeFilter, access?: ChangeAccess): AsyncIterableIterator<Change> {
    if (this.#listeners.size >= this.maxStreams) {
      throw new AppError('TOO_MANY_SUBSCRIPTIONS', `This server serves at most ${this.maxStreams} GraphQL subscriptions at once; retry later`)
    }
    // A generator waiting for the next change would finish a return() only when that change comes: abort wakes it.
    const stop = new AbortController()
    const changes = this.#follow(collection, after, stop.signal, filter, access)
    return {
      next: async () => await changes.next(),
      return: async () => {
        stop.abort()
        return await changes.return(undefined)
      },
      [Symbol.asyncIterator] () { return this }
    }
  }

  /** `filter`, when given, is asked about each change of the collection once, in order (it follows records that matched). */
  async * #follow (collection: string, after: number | undefined, signal: AbortSignal, filter?: ChangeFilter, access?: ChangeAccess): AsyncGenerator<Change, undefined> {
    // Each change of the collection is offered to the filter and the access once, in order: both follow records.
    const wanted = (change: Change): Change | undefined => {
      if (change.service !== collection) return undefined
      const seen = access === undefined ? change : access.seen(change)
      // The filter tests the record as the caller sees it: a hidden field never decides what the stream carries.
      const passes = filter === undefined || filter.passes(seen ?? { ...change, record: null })
      return passes ? seen : undefined
    }
    const queue: Change[] = []
    let wake: (() => void) | undefined
    const listener = (change: Change): void => {
      if (change.service !== collection) return
      queue.push(change)
      wake?.()
    }
    this.#listeners.add(listener)
    const seenBefore = this.#latest
    const onAbort = (): void => { wake?.() }
    signal.addEventListener('abort', onAbort)
    try {
      // Live delivery starts after this: what came before is the log's to replay.
      const position = Math.max((await this.#subscribe()).position, seenBefore)
      // From now on: a log that delivers a little late (polling) must not hand this stream what came before it.
      let last = after ?? Math.max(position, (await this.changes.window()).latest)
      if (after !== undefined) {
        const window = await this.changes.window()
        if (after < window.oldest - 1) throw new AppError('VALIDATION_FAILED', `after: change ${after} is no longer kept (the oldest kept is ${window.oldest})`, { errors: [{ code: 'FIELD_OUT_OF_RANGE', field: 'after', detail: `after must be >= ${window.oldest - 1}` }] })
        // Replay what the log holds up to where live delivery began; live changes wait in the queue meanwhile.
        while (last < position) {
          const batch = await this.changes.since(last, REPLAY_BATCH)
          if (batch.length === 0) break
          for (const change of batch) {
            if (change.seq > position) break
            last = change.seq
            const seen = wanted(change)
            if (seen !== undefined) yield seen
          }
        }
      }
      while (!signal.aborted) {
        const change = queue.shift()
        if (change === undefined) {
          await new Promise<void>((resolve) => { wake = resolve })
          wake = undefined
          continue
        }
        if (change.seq <= last) continue // replayed already
        last = change.seq
        const seen = wanted(change)
        if (seen !== undefined) yield seen
      }
    } finally {
      signal.removeEventListener('abort', onAbort)
      this.#listeners.delete(listener)
      // The last stream gone: the log is no longer read for this server (the next stream subscribes again).
      if (this.#listeners.size === 0) this.close()
    }
    return undefined
  }

  async #subscribe (): Promise<ChangeSubscription> {
    const subscription = this.#subscription ??= this.changes.subscribe((change) => {
      // A subscription being ended (the streams left, then one came back) delivers nothing more.
      if (this.#subscription !== subscription) return
      if (change.seq > this.#latest) this.#latest = change.seq
      for (const listener of this.#listeners) listener(change)
    })
    try {
      return await subscription
    } catch (err) {
      if (this.#subscription === subscription) this.#subscription = undefined
      throw err
    }
  }

  close (): void {
    void this.#subscription?.then((s) => { s.unsubscribe() }, () => {})
    this.#subscription = undefined
  }
}
