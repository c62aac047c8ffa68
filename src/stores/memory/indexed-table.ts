import btree from 'sorted-btree'
import { compareText, compareValues, KINDS, valueAtPath, type FieldData, type FieldKinds, type FieldValue, type RecordId } from '../../domain/index.js'
import { columnFor, Occupancy, type Column } from './columns.js'
import { Revision } from './revision.js'
import { PAUSE, SCAN_CHUNK } from './scan.js'

// sorted-btree is CommonJS with `exports.default = BTree`: Node's loader hands over module.exports
// (the class is its `default`), bundlers and vitest the class itself.
type BTree<K, V> = btree.default<K, V>
const BTree: typeof btree.default = (btree as { default?: typeof btree.default }).default ?? (btree as unknown as typeof btree.default)

/** An index: slots ordered by one field, then by id. */
type SlotIndex = BTree<number, undefined>

/** The slot a comparator reads as the probe (the value and id a walk seeks): never a real slot. */
const PROBE = -1

/**
 * How many records a table hands out again as the same object: a
 * direct-mapped cache by slot (no hashing; slots that collide evict each other).
 */
export const RECENT_RECORDS = 1 << 14

/** Ids stay slots while a new one is below twice the records held plus this many. */
const DENSE_SLACK = 1 << 16

/** What a table keeps: its fields (besides `id`, in record order) and how ids map to slots. */
export interface TableShape {
  /** The query kind of every field, `id` included. */
  kinds: FieldKinds<string>
  /** The fields of a record besides `id`, in the order a record lists them. */
  fields: readonly string[]
  /** Fields a record may lack: absent when unset, and first in their index (as SQLite orders NULL). */
  optional?: readonly string[]
  /** Given when ids are small integers from this one on (`count`, `sequence`): the id is the slot. */
  firstId?: number
}

/**
 * The records of one collection in columns (issue 20). A record lives in a
 * slot: each field in its column (typed arrays for numbers and booleans), so
 * a million students cost ≈ 25 MB instead of a million objects, a Map and a
 * tree (≈ 95 MB). Where ids are small integers a slot is its id minus the
 * first (no Map, no id index: id order is slot order, deletes leave holes);
 * should an id fall far beyond the records held (an import, a long run of
 * deletes under `sequence`), the table moves to ids in a Map with an id
 * index, as int64 and uuid tables keep from the start.
 *
 * A read builds the record from its slot; the last RECENT_RECORDS read or
 * written are handed out again as the same object (ETags are cached by
 * record object: src/http/rest/record-etags.ts). A record handed out is never
 * changed: a write fills the columns, and the next read builds a new object.
 *
 * Every other field's index (a B+ tree of slots ordered by that field, then
 * id) is built when a query first needs it, then kept up to date by every
 * write (issue 12). Every write advances `revision`.
 *
 * A walk that pauses (every SCAN_CHUNK records) reads one snapshot: while it
 * is open, a write first keeps the record it changes (or its absence) for
 * that walk, which reads those instead of the columns, and walks an index's
 * copy-on-write clone.
 */
export class IndexedTable<K extends RecordId, R extends { id: K }> {
  readonly revision = new Revision()
  readonly #kinds: FieldKinds<string>
  readonly #optional: ReadonlySet<string>
  readonly #fields: readonly string[]
  readonly #columns: Column[]
  readonly #held = new Occupancy()
  #size = 0
  /** Dense ids: slot = id − firstId. Undefined once ids are kept in #slots. */
  #firstId: number | undefined
  /** Sparse ids: the slot of each id, the id of each slot, the slots in id order, the slots freed by deletes. */
  #slots: Map<K, number> | undefined
  #ids: Column | undefined
  #idIndex: SlotIndex | undefined
  #free: number[] = []
  /** The field indexes built so far. */
  readonly #indexes = new Map<string, SlotIndex>()
  readonly #recent = new RecentRecords<R>()
  /** For each open walk, the records written since it opened, as they were then (null: none). */
  readonly #snapshots = new Set<Map<number, R | null>>()
  #probeValue: FieldValue | undefined
  #probeId: RecordId = 0
  readonly #make: (id: K, slot: number) => R
  /** One object whose fields read the columns at the slot it was moved to: what a walk's verdict reads. */
  readonly #view: RowView<R>

  constructor (shape: TableShape) {
    this.#kinds = shape.kinds
    this.#fields = shape.fields
    this.#optional = new Set(shape.optional ?? [])
    this.#columns = shape.fields.map((field) => columnFor(shape.kinds[field] ?? 'string'))
    this.#firstId = shape.firstId
    this.#make = recordMaker<K, R>(shape.fields, this.#columns, this.#optional)
    this.#view = rowView<R>(shape.fields, this.#columns, (slot) => this.#idAt(slot))
    if (shape.firstId === undefined) this.#sparseIds()
  }

  get size (): number {
    return this.#size
  }

  get (id: K): R | undefined {
    const slot = this.#slotOf(id)
    if (slot < 0) return undefined
    let record = this.#recent.get(slot)
    if (record === undefined) {
      record = this.#make(id, slot)
      this.#recent.set(slot, record)
    }
    return record
  }

  has (id: K): boolean {
    return this.#slotOf(id) >= 0
  }

  /** Stores `record` under `id` (its id), replacing the record held there; `record` is what reads of it give next. */
  set (id: K, record: R): this {
    let slot = this.#slotOf(id)
    if (slot >= 0) {
      this.#keepForWalks(slot)
      for (const index of this.#indexes.values()) index.delete(slot)
    } else {
      slot = this.#allocate(id)
      this.#keepForWalks(slot)
      this.#held.set(slot, true)
      this.#size++
      if (this.#slots !== undefined) {
        this.#slots.set(id, slot)
        this.#ids?.set(slot, id)
        this.#idIndex?.set(slot, undefined)
      }
    }
    const row = record as unknown as Readonly<Record<string, FieldData | undefined>>
    for (let i = 0; i < this.#fields.length; i++) this.#columns[i]?.set(slot, row[this.#fields[i] as string])
    // No index built yet (no query has asked for one): no iterator made for none.
    if (this.#indexes.size !== 0) for (const index of this.#indexes.values()) index.set(slot, undefined)
    this.#recent.set(slot, record)
    this.revision.advance()
    return this
  }

  delete (id: K): boolean {
    const slot = this.#slotOf(id)
    if (slot < 0) return false
    this.#keepForWalks(slot)
    for (const index of this.#indexes.values()) index.delete(slot)
    if (this.#slots !== undefined) {
      this.#idIndex?.delete(slot)
      this.#slots.delete(id)
      this.#ids?.set(slot, undefined)
      this.#free.push(slot)
    }
    for (const column of this.#columns) column.set(slot, undefined) // lets the texts go
    this.#held.set(slot, false)
    this.#size--
    this.#recent.delete(slot)
    this.revision.advance()
    return true
  }

  /** The fields with an order kept: the id always, others once a query asked for them. */
  get indexedFields (): string[] {
    return ['id', ...this.#indexes.keys()]
  }

  /** Whether ids are slots (no Map of ids). */
  get denseIds (): boolean {
    return this.#firstId !== undefined
  }

  /**
   * The records in `field`'s order, then id's, from `start` (a value of the
   * field; undefined: the first) on, ascending or descending, with PAUSE after
   * every SCAN_CHUNK records read. Among records holding `start`, the walk
   * begins with the id `edgeId` would sort at (±Infinity: before or after them
   * all). `verdict` says of each record read whether the walk gives it (> 0),
   * passes over it (0) or ends (< 0); it is shown a view of the slot, so a
   * record is built only for what the walk gives.
   */
  * walk (field: string, start: FieldValue | undefined, edgeId: number, descending: boolean, verdict: Verdict<R> = give): Generator<R | typeof PAUSE> {
    if (field !== 'id') {
      const index = this.#index(field)
      yield * this.#walkIndex(index, start === undefined ? undefined : this.#probe(start, edgeId), descending, verdict)
    } else if (this.#firstId === undefined) {
      yield * this.#walkIndex(this.#idIndex as SlotIndex, start === undefined ? undefined : this.#probe(undefined, start as RecordId), descending, verdict)
    } else {
      yield * this.#walkSlots(this.#firstSlot(start, descending), descending, verdict)
    }
  }

  /** The records whose `field` holds `value`, or undefined when there are more than `budget`. */
  equalRange (field: string, value: FieldValue, budget: number): R[] | undefined {
    if (field === 'id') {
      const slot = this.#slotOf(value as K)
      return slot < 0 ? [] : [this.#read(slot)]
    }
    const index = this.#index(field)
    const read = this.#reader(field)
    const out: R[] = []
    const slots = index.keys(this.#probe(value, -Infinity))
    for (let next = slots.next(); next.done !== true; next = slots.next()) {
      if (read(next.value) !== value) break
      if (out.length === budget) return undefined
      out.push(this.#read(next.value))
    }
    return out
  }

  #slotOf (id: K): number {
    if (this.#slots !== undefined) return this.#slots.get(id) ?? -1
    if (typeof id !== 'number') return -1
    const slot = id - (this.#firstId as number)
    return Number.isInteger(slot) && slot >= 0 && slot < this.#held.end && this.#held.has(slot) ? slot : -1
  }

  #idAt (slot: number): K {
    if (slot === PROBE) return this.#probeId as K
    return (this.#firstId !== undefined ? slot + this.#firstId : this.#ids?.get(slot)) as K
  }

  /** A slot for a new id: the id's own while ids are dense and it fits, else a free one. */
  #allocate (id: K): number {
    if (this.#firstId !== undefined) {
      const slot = typeof id === 'number' ? id - this.#firstId : -1
      // A hole is free to fill; a slot past the end only while at least half the slots would hold a record
      // (beyond that a Map of ids costs less than the holes).
      if (Number.isInteger(slot) && slot >= 0 && (slot < this.#held.end || slot < 2 * this.#size + DENSE_SLACK)) return slot
      this.#sparseIds()
    }
    return this.#free.pop() ?? this.#held.end
  }

  /** From ids as slots to ids in a Map: every record keeps its slot (so open walks read on), the holes become free slots. */
  #sparseIds (): void {
    const firstId = this.#firstId
    const slots = new Map<K, number>()
    const ids = columnFor('any')
    for (let slot = 0; slot < this.#held.end; slot++) {
      if (!this.#held.has(slot)) this.#free.push(slot)
      else {
        slots.set((slot + (firstId as number)) as K, slot)
        ids.set(slot, (slot + (firstId as number)) as K)
      }
    }
    this.#free.reverse() // the lowest first
    this.#firstId = undefined
    this.#slots = slots
    this.#ids = ids
    const index: SlotIndex = new BTree<number, undefined>(undefined, (a, b) => compareIds(this.#idAt(a), this.#idAt(b)))
    for (const slot of slots.values()) index.set(slot, undefined)
    this.#idIndex = index
  }

  /** The index ordered by `field`, then id; built from the records held on first use. */
  #index (field: string): SlotIndex {
    const built = this.#indexes.get(field)
    if (built !== undefined) return built
    const kind = Object.hasOwn(this.#kinds, field) ? this.#kinds[field] : undefined
    if (kind === undefined) throw new RangeError(`no index on ${field}`)
    const read = this.#reader(field)
    const valueAt = (slot: number): FieldValue | undefined => slot === PROBE ? this.#probeValue : read(slot)
    // A nested scalar (`address.city`) may be absent from a record whatever its declaration: ordered as an optional field.
    const optional = this.#optional.has(field) || field.includes('.')
    const index: SlotIndex = new BTree<number, undefined>(undefined, optional ? optionalComparator(valueAt, this.#byId) : comparator(valueAt, kind, this.#byId))
    for (let slot = this.#held.next(0, false); slot >= 0; slot = this.#held.next(slot + 1, false)) index.set(slot, undefined)
    this.#indexes.set(field, index)
    return index
  }

  /** What a slot holds in a field, or at a dotted path inside an object field (issue 29, item 8). */
  #reader (field: string): (slot: number) => FieldValue | undefined {
    const dot = field.indexOf('.')
    const at = this.#fields.indexOf(dot < 0 ? field : field.slice(0, dot))
    if (at < 0) throw new RangeError(`no index on ${field}`)
    const column = this.#columns[at] as Column
    if (dot < 0) return (slot) => column.get(slot) as FieldValue | undefined
    const rest = field.slice(dot + 1)
    return (slot) => valueAtPath(column.get(slot), rest) as FieldValue | undefined
  }

  readonly #byId = (a: number, b: number): number => {
    if (this.#firstId !== undefined && a !== PROBE && b !== PROBE) return a - b
    return compareIds(this.#idAt(a), this.#idAt(b))
  }

  /** Sets the probe the comparators read, and returns the slot that stands for it. */
  #probe (value: FieldValue | undefined, id: RecordId): number {
    this.#probeValue = value
    this.#probeId = id
    return PROBE
  }

  /** The first slot of a walk by id over dense ids: at `start` or after it (before it, descending). */
  #firstSlot (start: FieldValue | undefined, descending: boolean): number {
    const end = this.#held.end
    const value = typeof start === 'number' ? start : typeof start === 'bigint' ? Number(start) : NaN
    // No start, or one no id compares to: every record (the query's filter rejects what it must).
    if (Number.isNaN(value)) return descending ? end - 1 : 0
    const slot = value - (this.#firstId as number)
    return descending ? Math.min(end - 1, Math.floor(slot)) : Math.max(0, Math.ceil(slot))
  }

  * #walkSlots (from: number, descending: boolean, verdict: Verdict<R>): Generator<R | typeof PAUSE> {
    const end = this.#held.end // a slot past it was empty when the walk began
    let snapshot: Map<number, R | null> | undefined
    let read = 0
    try {
      for (let slot = from; descending ? slot >= 0 : slot < end; slot += descending ? -1 : 1) {
        let kept: R | undefined
        if (snapshot === undefined || snapshot.size === 0) {
          slot = this.#held.next(slot, descending)
          if (slot < 0 || slot >= end) return
        } else {
          const image = snapshot.get(slot)
          if (image === null || (image === undefined && !this.#held.has(slot))) continue // none when the walk opened
          kept = image
        }
        const record = this.#judge(slot, kept, verdict)
        if (record === END) return
        if (record !== undefined) yield record
        if (++read % SCAN_CHUNK !== 0) continue
        snapshot ??= this.#openSnapshot()
        yield PAUSE
      }
    } finally {
      if (snapshot !== undefined) this.#snapshots.delete(snapshot)
    }
  }

  * #walkIndex (index: SlotIndex, from: number | undefined, descending: boolean, verdict: Verdict<R>): Generator<R | typeof PAUSE> {
    let slots = slotsOf(index, from, descending, false)
    let snapshot: Map<number, R | null> | undefined
    let read = 0
    try {
      for (let next = slots.next(); next.done !== true; next = slots.next()) {
        const slot = next.value
        const record = this.#judge(slot, snapshot?.get(slot) ?? undefined, verdict)
        if (record === END) return
        if (record !== undefined) yield record
        if (++read % SCAN_CHUNK !== 0) continue
        if (snapshot === undefined) {
          snapshot = this.#openSnapshot()
          // Walk on in a clone (copy-on-write: writes to the live index copy the nodes they change),
          // from just past this slot; seeking it now, before any write, finds it where it is.
          const clone = index.clone()
          slots = slotsOf(clone, slot, descending, true)
        }
        yield PAUSE
      }
    } finally {
      if (snapshot !== undefined) this.#snapshots.delete(snapshot)
    }
  }

  #openSnapshot (): Map<number, R | null> {
    const snapshot = new Map<number, R | null>()
    this.#snapshots.add(snapshot)
    return snapshot
  }

  /**
   * What a walk does with a held slot: the record to give, undefined to pass
   * over it, END to stop. `kept` is its record as an open walk's snapshot kept
   * it; otherwise the verdict is asked of the view of the slot's columns.
   */
  #judge (slot: number, kept: R | undefined, verdict: Verdict<R>): R | undefined | typeof END {
    let says: number
    if (kept !== undefined) says = verdict(kept)
    else {
      this.#view.moveTo(slot)
      says = verdict(this.#view.row)
      if (says > 0) return this.#read(slot)
    }
    return says > 0 ? kept : says < 0 ? END : undefined
  }

  /** Before a write to `slot`: every open walk that has not kept its record yet keeps it (null: none). */
  #keepForWalks (slot: number): void {
    if (this.#snapshots.size === 0) return
    let old: R | null | undefined
    for (const snapshot of this.#snapshots) {
      if (snapshot.has(slot)) continue
      old ??= this.#held.has(slot) ? this.#read(slot) : null
      snapshot.set(slot, old)
    }
  }

  /** The record in a held slot: the one handed out already, else a new one. */
  #read (slot: number): R {
    return this.#recent.get(slot) ?? this.#make(this.#idAt(slot), slot)
  }
}

/** What a walk does with a record: give it (> 0), pass over it (0), end (< 0). */
export type Verdict<R> = (record: R) => number
const give = (): number => 1
const END: unique symbol = Symbol('end')

interface RowView<R> {
  readonly row: R
  moveTo: (slot: number) => void
}

/**
 * A record-like object whose `id` and fields are getters reading the columns
 * at one slot, moved from slot to slot: a filter reads it as it reads a
 * record, and nothing is built for a record it rejects. An unset field reads
 * undefined, as an absent one does.
 */
function rowView<R> (fields: readonly string[], columns: readonly Column[], idAt: (slot: number) => RecordId): RowView<R> {
  let at = 0
  const row = {}
  Object.defineProperty(row, 'id', { get: () => idAt(at), enumerable: true })
  fields.forEach((field, i) => {
    const column = columns[i] as Column
    Object.defineProperty(row, field, { get: () => column.get(at), enumerable: true })
  })
  return { row: row as R, moveTo: (slot) => { at = slot } }
}

/** The records of the last slots read or written, RECENT_RECORDS places, a slot's place fixed by its low bits. */
class RecentRecords<R> {
  // Made with the first record kept, not with the table: a start opens a table per collection (the
  // declared ones, the change feed's...) and most hold nothing yet; 192 KB each was garbage to collect.
  #slots: Int32Array | undefined
  #records: Array<R | undefined> | undefined

  get (slot: number): R | undefined {
    const at = slot & (RECENT_RECORDS - 1)
    return this.#slots !== undefined && this.#slots[at] === slot ? this.#records?.[at] : undefined
  }

  set (slot: number, record: R): void {
    const at = slot & (RECENT_RECORDS - 1)
    const slots = this.#slots ??= new Int32Array(RECENT_RECORDS).fill(-1)
    const records = this.#records ??= new Array<R | undefined>(RECENT_RECORDS)
    slots[at] = slot
    records[at] = record
  }

  delete (slot: number): void {
    const at = slot & (RECENT_RECORDS - 1)
    if (this.#slots === undefined || this.#records === undefined || this.#slots[at] !== slot) return
    this.#slots[at] = -1
    this.#records[at] = undefined
  }
}

/**
 * How a table builds a record from a slot. With only required fields, one
 * compiled object literal of all of them, so every record has its fields in
 * the object itself, in the shape src/domain/collection.ts's recordOf gives;
 * with optional fields, each added when set (an unset one is absent).
 */
function recordMaker<K, R> (fields: readonly string[], columns: readonly Column[], optional: ReadonlySet<string>): (id: K, slot: number) => R {
  if (fields.every((field) => !optional.has(field))) {
    // Field names are JSON-quoted: the literal is built from data, never from code.
    const members = fields.map((field, i) => `${JSON.stringify(field)}: c[${i}].get(slot)`).join(', ')
    return new Function('c', `return (id, slot) => ({ id: id, ${members} })`)(columns) as (id: K, slot: number) => R
  }
  return (id, slot) => {
    const record: Record<string, unknown> = { id }
    for (let i = 0; i < fields.length; i++) {
      const value = columns[i]?.get(slot)
      if (value !== undefined) record[fields[i] as string] = value
    }
    return record as R
  }
}

/** The slots of `index` from `from` (undefined: the first) on, ascending or descending; past it when `beyond`. */
function * slotsOf (index: SlotIndex, from: number | undefined, descending: boolean, beyond: boolean): Generator<number, undefined> {
  const pair: unknown[] = []
  const entries = descending ? index.entriesReversed(from, pair as never, beyond) : index.entries(from, pair as never)
  for (const [slot] of entries) {
    if (beyond && slot === from) continue
    yield slot
  }
}

type Compare = (a: number, b: number) => number

/**
 * The order of one index: the field, then the id. One comparator per kind
 * of field, since every write compares a few dozen times per index.
 */
function comparator (valueAt: (slot: number) => FieldValue | undefined, kind: FieldKinds<string>[string], byId: Compare): Compare {
  if (KINDS[kind].order === 'text') {
    return (a, b) => {
      const x = valueAt(a) as string
      const y = valueAt(b) as string
      return x === y ? byId(a, b) : compareText(x, y)
    }
  }
  return (a, b) => {
    const x = valueAt(a) as number
    const y = valueAt(b) as number
    return x < y ? -1 : x > y ? 1 : byId(a, b)
  }
}

/** The order of an optional field's index: records lacking it first (as SQLite orders NULL), then by value, then id. */
function optionalComparator (valueAt: (slot: number) => FieldValue | undefined, byId: Compare): Compare {
  return (a, b) => {
    const x = valueAt(a)
    const y = valueAt(b)
    if (x === y) return byId(a, b)
    if (x === undefined) return -1
    if (y === undefined) return 1
    const c = compareValues(x, y)
    return c !== 0 ? c : byId(a, b)
  }
}

/**
 * Orders two ids. A query's probe carries ±Infinity as its id (before or
 * after every real one); against a UUID (a string) `<` would say neither.
 */
function compareIds (x: RecordId, y: RecordId): number {
  if (typeof x === 'string' && typeof y === 'number') return y < 0 ? 1 : -1
  if (typeof x === 'number' && typeof y === 'string') return x < 0 ? -1 : 1
  return x < y ? -1 : x > y ? 1 : 0
}
