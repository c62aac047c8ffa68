import { KINDS, type FieldData, type Kind } from '../../domain/index.js'

/**
 * The columns of a memory table (issue 20): one value per slot, held in
 * fixed-size chunks so a growing table never copies (nor leaves behind) one
 * big array, and a small table holds one chunk. Numbers and booleans sit in
 * typed arrays, outside the JavaScript heap and without an object per value;
 * text in plain arrays of the strings themselves.
 */

/** Slots per chunk: 4096 (32 KB of a text or number column). */
export const CHUNK_BITS = 12
export const CHUNK = 1 << CHUNK_BITS
const MASK = CHUNK - 1

/** A column's values by slot; `undefined` is an unset optional field (or a slot never written). */
export interface Column {
  get: (slot: number) => FieldData | undefined
  set: (slot: number, value: FieldData | undefined) => void
}

/** Text, or anything that is not a number or boolean (the ids of an int64 or uuid table). */
class ValueColumn implements Column {
  readonly #chunks: Array<Array<FieldData | undefined> | undefined> = []

  get (slot: number): FieldData | undefined {
    const chunk = this.#chunks[slot >>> CHUNK_BITS]
    return chunk === undefined ? undefined : chunk[slot & MASK]
  }

  set (slot: number, value: FieldData | undefined): void {
    let chunk = this.#chunks[slot >>> CHUNK_BITS]
    if (chunk === undefined) {
      chunk = new Array<FieldData | undefined>(CHUNK)
      this.#chunks[slot >>> CHUNK_BITS] = chunk
    }
    chunk[slot & MASK] = value
  }
}

/** Texts a column shares at most; past that it starts afresh. */
const SHARED_MAX = 1 << 16
/** Longer texts are kept as written: names, cities and codes repeat, long texts seldom do. */
const SHARED_LENGTH = 64

/**
 * Text: a text written again (a first name, a city) is kept as the one string
 * already held instead of its own copy; a string costs ≈ 24 bytes and more,
 * its place in the column 8.
 */
class TextColumn extends ValueColumn {
  readonly #shared = new Map<string, string>()

  override set (slot: number, value: FieldData | undefined): void {
    if (typeof value === 'string' && value.length <= SHARED_LENGTH) {
      const held = this.#shared.get(value)
      if (held !== undefined) value = held
      else {
        if (this.#shared.size >= SHARED_MAX) this.#shared.clear()
        this.#shared.set(value, value)
      }
    }
    super.set(slot, value)
  }
}

/**
 * Integers and numbers as doubles (exact for every safe integer). NaN marks an
 * unset field: JSON, hence any write, has no NaN. A value that is not a
 * number (a bigint, should one ever come) moves the column to plain values.
 */
class NumberColumn implements Column {
  readonly #chunks: Array<Float64Array | undefined> = []
  #fallback: ValueColumn | undefined

  get (slot: number): FieldData | undefined {
    if (this.#fallback !== undefined) return this.#fallback.get(slot)
    const chunk = this.#chunks[slot >>> CHUNK_BITS]
    if (chunk === undefined) return undefined
    const value = chunk[slot & MASK] as number
    return value === value ? value : undefined // NaN (unset) is the one value unequal to itself
  }

  set (slot: number, value: FieldData | undefined): void {
    if (this.#fallback === undefined && typeof value !== 'number' && value !== undefined) this.#fallback = this.#toValues()
    if (this.#fallback !== undefined) {
      this.#fallback.set(slot, value)
      return
    }
    let chunk = this.#chunks[slot >>> CHUNK_BITS]
    if (chunk === undefined) {
      chunk = new Float64Array(CHUNK).fill(NaN)
      this.#chunks[slot >>> CHUNK_BITS] = chunk
    }
    chunk[slot & MASK] = (value as number | undefined) ?? NaN
  }

  #toValues (): ValueColumn {
    const values = new ValueColumn()
    this.#chunks.forEach((chunk, c) => {
      if (chunk === undefined) return
      chunk.forEach((value, i) => { if (!Number.isNaN(value)) values.set(c * CHUNK + i, value) })
    })
    this.#chunks.length = 0
    return values
  }
}

/** Booleans as one byte each: 0 unset, 1 false, 2 true. */
class BooleanColumn implements Column {
  readonly #chunks: Array<Uint8Array | undefined> = []

  get (slot: number): FieldData | undefined {
    const chunk = this.#chunks[slot >>> CHUNK_BITS]
    const byte = chunk === undefined ? 0 : chunk[slot & MASK]
    return byte === 0 ? undefined : byte === 2
  }

  set (slot: number, value: FieldData | undefined): void {
    let chunk = this.#chunks[slot >>> CHUNK_BITS]
    if (chunk === undefined) {
      chunk = new Uint8Array(CHUNK)
      this.#chunks[slot >>> CHUNK_BITS] = chunk
    }
    chunk[slot & MASK] = value === undefined ? 0 : value === true ? 2 : 1
  }
}

/** The column a kind's values are kept in (its `storage.memory`), or one for any value. */
export function columnFor (kind: Kind | 'any'): Column {
  const column = kind === 'any' ? 'value' : KINDS[kind].storage.memory
  switch (column) {
    case 'number': return new NumberColumn()
    case 'boolean': return new BooleanColumn()
    case 'text': return new TextColumn()
    case 'value': return new ValueColumn()
  }
}

/** Which slots hold a record: one byte per slot. */
export class Occupancy {
  readonly #chunks: Array<Uint8Array | undefined> = []
  /** One past the highest slot ever held. */
  end = 0

  has (slot: number): boolean {
    const chunk = this.#chunks[slot >>> CHUNK_BITS]
    return chunk !== undefined && chunk[slot & MASK] === 1
  }

  set (slot: number, held: boolean): void {
    let chunk = this.#chunks[slot >>> CHUNK_BITS]
    if (chunk === undefined) {
      chunk = new Uint8Array(CHUNK)
      this.#chunks[slot >>> CHUNK_BITS] = chunk
    }
    chunk[slot & MASK] = held ? 1 : 0
    if (held && slot >= this.end) this.end = slot + 1
  }

  /** The next held slot at or after `slot` (ascending) or at or before it (descending); -1 when none. Skips an absent chunk whole. */
  next (slot: number, descending: boolean): number {
    if (descending) {
      for (let s = Math.min(slot, this.end - 1); s >= 0;) {
        const chunk = this.#chunks[s >>> CHUNK_BITS]
        if (chunk === undefined) { s = (s & ~MASK) - 1; continue }
        if (chunk[s & MASK] === 1) return s
        s--
      }
      return -1
    }
    for (let s = Math.max(slot, 0); s < this.end;) {
      const chunk = this.#chunks[s >>> CHUNK_BITS]
      if (chunk === undefined) { s = (s & ~MASK) + CHUNK; continue }
      if (chunk[s & MASK] === 1) return s
      s++
    }
    return -1
  }
}
