import { DEFAULT_MEMORY_CHANGES_KEPT, type Change, type ChangeKind, type ChangeListener, type ChangeLog, type ChangeSubscription, type ChangeWindow, type RecordId, type SubscribeOptions, type StoredRecord, systemClock, type Clock } from '../../domain/index.js'
/**
 * The memory store's change log: a ring of the last `capacity` changes. The
 * memory stores' writes are synchronous, so recording a change inside a write
 * is as atomic as the write itself. Listeners are called on a microtask after
 * the write, in sequence order, never from inside it; a listener that finds a
 * gap in the sequence numbers lost changes to the ring and must read again.
 *
 * The ring keeps each change's parts in columns (collection, kind, id,
 * record, time as a number), not a Change object with its Date: a write
 * allocates nothing for its change, and the ring holds no object per change
 * for the collector to carry into the old generation. A Change is made when
 * it is read (a replay) or delivered, and is garbage young.
 */
export class MemoryChangeLog implements ChangeLog {
  readonly #capacity: number
  readonly #services: string[]
  readonly #kinds: ChangeKind[]
  readonly #ids: RecordId[]
  readonly #records: Array<StoredRecord | null>
  readonly #times: Float64Array
  /** Each listener with what it passes over (undefined: nothing). */
  readonly #listeners = new Map<ChangeListener, SubscribeOptions['passes']>()
  /** The last sequence number assigned. */
  #latest = 0
  /** The last sequence number delivered to listeners (or passed with none to deliver to). */
  #delivered = 0
  #scheduled = false
  #feedReads = 0
  readonly #clock: Clock

  constructor (capacity = DEFAULT_MEMORY_CHANGES_KEPT, clock: Clock = systemClock) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('the change ring needs room for at least one change')
    this.#capacity = capacity
    this.#services = new Array<string>(capacity).fill('')
    this.#kinds = new Array<ChangeKind>(capacity).fill('created')
    this.#ids = new Array<RecordId>(capacity).fill(0)
    this.#records = new Array<StoredRecord | null>(capacity).fill(null)
    this.#times = new Float64Array(capacity)
    this.#clock = clock
  }

  /** Called by a write, inside it: assigns the next sequence number. */
  changed (collection: string, kind: ChangeKind, id: RecordId, record: StoredRecord | null): void {
    const seq = ++this.#latest
    const slot = seq % this.#capacity
    this.#services[slot] = collection
    this.#kinds[slot] = kind
    this.#ids[slot] = id
    this.#records[slot] = record
    this.#times[slot] = this.#clock.now()
    if (this.#scheduled) return
    // Nobody listens: nothing to deliver, and a listener subscribing later starts after this change.
    if (this.#listeners.size === 0) { this.#delivered = seq; return }
    this.#scheduled = true
    queueMicrotask(() => { this.#deliver() })
  }

  async since (after: number, limit: number): Promise<Change[]> {
    const from = Math.max(after + 1, this.#oldest())
    const out: Change[] = []
    for (let seq = from; seq <= this.#latest && out.length < limit; seq++) out.push(this.#at(seq))
    return out
  }

  /** A walk back through the ring (at most its capacity): an index would cost every write, and the ring is small. */
  async ofRecord (collection: string, id: RecordId, limit: number): Promise<Change[]> {
    const key = String(id)
    const out: Change[] = []
    for (let seq = this.#latest, oldest = this.#oldest(); seq >= oldest && out.length < limit; seq--) {
      const change = this.#at(seq)
      if (change.service === collection && String(change.id) === key) out.push(change)
    }
    return out
  }

  async window (): Promise<ChangeWindow> {
    return { oldest: this.#oldest(), latest: this.#latest }
  }

  /** How many times changes were handed to listeners (never while nobody listens). */
  get feedReads (): number {
    return this.#feedReads
  }

  async subscribe (listener: ChangeListener, options?: SubscribeOptions): Promise<ChangeSubscription> {
    // Nobody listened: nothing was delivered, and the first listener starts from the latest change.
    if (this.#listeners.size === 0 && !this.#scheduled) this.#delivered = this.#latest
    this.#listeners.set(listener, options?.passes)
    return { position: this.#delivered, unsubscribe: () => { this.#listeners.delete(listener) } }
  }

  #deliver (): void {
    this.#scheduled = false
    this.#feedReads++
    // More writes than the ring holds in one turn of the event loop: the overwritten ones are
    // skipped, and a listener sees the gap in the sequence numbers.
    this.#delivered = Math.max(this.#delivered, this.#oldest() - 1)
    while (this.#delivered < this.#latest) {
      const seq = ++this.#delivered
      const slot = seq % this.#capacity
      // Made only when some listener takes it: one all pass over costs no Change, no Date.
      let change: Change | undefined
      for (const [listener, passes] of this.#listeners) {
        if (passes?.(seq, this.#services[slot]!, this.#kinds[slot]!) === true) continue
        listener(change ??= this.#at(seq))
      }
    }
  }

  #oldest (): number {
    return Math.max(1, this.#latest - this.#capacity + 1)
  }

  /** The change numbered `seq`, which the ring still holds. */
  #at (seq: number): Change {
    const slot = seq % this.#capacity
    return { seq, service: this.#services[slot]!, kind: this.#kinds[slot]!, id: this.#ids[slot]!, record: this.#records[slot] ?? null, at: new Date(this.#times[slot]!) }
  }
}
