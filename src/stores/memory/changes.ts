import { DEFAULT_MEMORY_CHANGES_KEPT, type Change, type ChangeKind, type ChangeListener, type ChangeLog, type ChangeSubscription, type ChangeWindow, type RecordId, type StoredRecord, systemClock, type Clock } from '../../domain/index.js'
/**
 * The memory store's change log: a ring of the last `capacity` changes. The
 * memory stores' writes are synchronous, so recording a change inside a write
 * is as atomic as the write itself. Listeners are called on a microtask after
 * the write, in sequence order, never from inside it; a listener that finds a
 * gap in the sequence numbers lost changes to the ring and must read again.
 */
export class MemoryChangeLog implements ChangeLog {
  readonly #ring: Array<Change | undefined>
  readonly #listeners = new Set<ChangeListener>()
  /** The last sequence number assigned. */
  #latest = 0
  /** The last sequence number delivered to listeners. */
  #delivered = 0
  #scheduled = false
  #feedReads = 0
  readonly #clock: Clock

  constructor (capacity = DEFAULT_MEMORY_CHANGES_KEPT, clock: Clock = systemClock) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('the change ring needs room for at least one change')
    this.#ring = new Array<Change | undefined>(capacity)
    this.#clock = clock
  }

  /** Called by a write, inside it: assigns the next sequence number. */
  changed (collection: string, kind: ChangeKind, id: RecordId, record: StoredRecord | null): void {
    this.#append({ seq: this.#latest + 1, service: collection, kind, id, record, at: new Date(this.#clock.now()) })
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

  async subscribe (listener: ChangeListener): Promise<ChangeSubscription> {
    // Nobody listened: nothing was delivered, and the first listener starts from the latest change.
    if (this.#listeners.size === 0 && !this.#scheduled) this.#delivered = this.#latest
    this.#listeners.add(listener)
    return { position: this.#delivered, unsubscribe: () => { this.#listeners.delete(listener) } }
  }

  #append (change: Change): void {
    this.#latest = change.seq
    this.#ring[change.seq % this.#ring.length] = change
    if (this.#scheduled || this.#listeners.size === 0) return
    this.#scheduled = true
    queueMicrotask(() => { this.#deliver() })
  }

  #deliver (): void {
    this.#scheduled = false
    this.#feedReads++
    // More writes than the ring holds in one turn of the event loop: the overwritten ones are
    // skipped, and a listener sees the gap in the sequence numbers.
    this.#delivered = Math.max(this.#delivered, this.#oldest() - 1)
    while (this.#delivered < this.#latest) {
      const change = this.#at(++this.#delivered)
      for (const listener of this.#listeners) listener(change)
    }
  }

  #oldest (): number {
    return Math.max(1, this.#latest - this.#ring.length + 1)
  }

  #at (seq: number): Change {
    return this.#ring[seq % this.#ring.length] as Change
  }
}
