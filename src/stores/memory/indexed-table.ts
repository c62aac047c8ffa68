import btree from 'sorted-btree'
import { compareText, compareValues, type FieldKinds, type FieldValue, type RecordId } from '../../domain/index.js'
import { Revision } from './revision.js'

// sorted-btree is CommonJS with `exports.default = BTree`: Node's loader hands over module.exports
// (the class is its `default`), bundlers and vitest the class itself.
type BTree<K, V> = btree.default<K, V>
const BTree: typeof btree.default = (btree as { default?: typeof btree.default }).default ?? (btree as unknown as typeof btree.default)
type Row = Readonly<Record<string, FieldValue>>

/** A record index: every record once, ordered by one field, then by id. */
export type FieldIndex<R> = BTree<R, undefined>

/**
 * A Map from id to record that also keeps one sorted index per field (a B+
 * tree ordered by that field, then id). Queries walk an index from a position
 * instead of sorting the whole collection, so a page costs O(log n + what it
 * reads) even with a million records. It has the Map methods the stores use,
 * so a store swaps `new Map()` for it and nothing else. Records are never
 * changed in place: a write stores a new object. Every write advances
 * `revision`, whatever store method made it.
 *
 * The id index is kept from the start (every whole list walks it). Any other
 * field's index is built when a query first needs it, then kept up to date by
 * every write (issue 12): until then a write costs one B+ tree insertion
 * instead of one per field, and a store never queried by a field holds no
 * index on it. Building one costs O(n log n) once, the event loop held
 * meanwhile: ≈ 1 s for a million records.
 */
export class IndexedTable<K extends RecordId, R extends { id: K }> {
  readonly #records = new Map<K, R>()
  readonly #kinds: FieldKinds<string>
  /** The indexes built so far. */
  readonly #indexes = new Map<string, FieldIndex<R>>()
  readonly revision = new Revision()
  /** Fields a record may lack (optional ones): their indexes order the lacking records first. */
  readonly #optional: ReadonlySet<string>

  constructor (kinds: FieldKinds<string>, optional: readonly string[] = []) {
    this.#kinds = kinds
    this.#optional = new Set(optional)
    this.index('id')
  }

  get size (): number {
    return this.#records.size
  }

  get (id: K): R | undefined {
    return this.#records.get(id)
  }

  has (id: K): boolean {
    return this.#records.has(id)
  }

  set (id: K, record: R): this {
    const old = this.#records.get(id)
    if (old !== undefined) for (const index of this.#indexes.values()) index.delete(old)
    this.#records.set(id, record)
    for (const index of this.#indexes.values()) index.set(record, undefined)
    this.revision.advance()
    return this
  }

  delete (id: K): boolean {
    const old = this.#records.get(id)
    if (old === undefined) return false
    for (const index of this.#indexes.values()) index.delete(old)
    this.revision.advance()
    return this.#records.delete(id)
  }

  keys (): IterableIterator<K> {
    return this.#records.keys()
  }

  values (): IterableIterator<R> {
    return this.#records.values()
  }

  /** The index ordered by `field`, then id; built from the records held on first use. */
  index (field: string): FieldIndex<R> {
    const built = this.#indexes.get(field)
    if (built !== undefined) return built
    const kind = Object.hasOwn(this.#kinds, field) ? this.#kinds[field] : undefined
    if (kind === undefined) throw new RangeError(`no index on ${field}`)
    const index = new BTree<R, undefined>(undefined, this.#optional.has(field) ? optionalComparator(field) : comparator(field, kind))
    for (const record of this.#records.values()) index.set(record, undefined)
    this.#indexes.set(field, index)
    return index
  }

  /** The fields whose index has been built. */
  get indexedFields (): string[] {
    return [...this.#indexes.keys()]
  }
}

/**
 * The order of one index: the field, then the id. One comparator per kind
 * of field, since every write compares a few dozen times per index.
 */
function comparator<R extends { id: RecordId }> (field: string, kind: FieldKinds<string>[string]): (a: R, b: R) => number {
  const byId = (a: R, b: R): number => compareIds(a.id, b.id)
  if (field === 'id') return byId
  if (kind === 'text') {
    return (a, b) => {
      const x = (a as unknown as Row)[field] as string
      const y = (b as unknown as Row)[field] as string
      return x === y ? byId(a, b) : compareText(x, y)
    }
  }
  return (a, b) => {
    const x = (a as unknown as Row)[field] as number
    const y = (b as unknown as Row)[field] as number
    return x < y ? -1 : x > y ? 1 : byId(a, b)
  }
}

/** The order of an optional field's index: records lacking it first (as SQLite orders NULL), then by value, then id. */
function optionalComparator<R extends { id: RecordId }> (field: string): (a: R, b: R) => number {
  return (a, b) => {
    const x = (a as unknown as Row)[field] as FieldValue | undefined
    const y = (b as unknown as Row)[field] as FieldValue | undefined
    if (x === y) return compareIds(a.id, b.id)
    if (x === undefined) return -1
    if (y === undefined) return 1
    const c = compareValues(x, y)
    return c !== 0 ? c : compareIds(a.id, b.id)
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
