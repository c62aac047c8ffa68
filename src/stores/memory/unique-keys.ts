import { DuplicateKeyError, type CollectionDeclaration, type RecordId, type StoredRecord } from '../../domain/index.js'

/**
 * The memory store's unique index (issue 29 item 6): per declared key, the
 * record holding each combination of values. A record with a key field
 * unset holds no value of that key (as SQL's UNIQUE treats NULL). Writes are
 * synchronous, so a check and the store that follows it cannot interleave.
 */
export class UniqueKeys {
  readonly #keys: ReadonlyArray<readonly string[]>
  readonly #held: Array<Map<string, RecordId>>

  constructor (readonly declaration: CollectionDeclaration) {
    this.#keys = declaration.unique ?? []
    this.#held = this.#keys.map(() => new Map())
  }

  get empty (): boolean {
    return this.#keys.length === 0
  }

  /** Throws DuplicateKeyError when a record other than `own` (the one written; none for a create) holds one of the keys of `fields`. */
  check (fields: Readonly<Record<string, unknown>>, own: RecordId | undefined): void {
    for (const [i, key] of this.#keys.entries()) {
      const value = valueOf(key, fields)
      if (value === undefined) continue
      const holder = this.#held[i]?.get(value)
      if (holder !== undefined && holder !== own) throw new DuplicateKeyError(this.declaration.name, key, holder)
    }
  }

  /** Moves the keys of a record's id from what it held (`before`, if any) to what it holds now (`after`, none when deleted). */
  move (before: StoredRecord | undefined, after: StoredRecord | undefined): void {
    for (const [i, key] of this.#keys.entries()) {
      const held = this.#held[i] as Map<string, RecordId>
      const old = before === undefined ? undefined : valueOf(key, before)
      if (old !== undefined && held.get(old) === before?.id) held.delete(old)
      const now = after === undefined ? undefined : valueOf(key, after)
      if (now !== undefined && after !== undefined) held.set(now, after.id)
    }
  }

  /**
   * Checks a whole import before any of it is stored: each staged record
   * against the others and against the records held that it does not replace.
   */
  checkAll (staged: ReadonlyMap<RecordId, StoredRecord>): void {
    const ids = new Set(staged.keys())
    for (const [i, key] of this.#keys.entries()) {
      const seen = new Map<string, RecordId>()
      for (const record of staged.values()) {
        const value = valueOf(key, record)
        if (value === undefined) continue
        const other = seen.get(value)
        if (other !== undefined) throw new DuplicateKeyError(this.declaration.name, key, other)
        seen.set(value, record.id)
        const holder = this.#held[i]?.get(value)
        if (holder !== undefined && !ids.has(holder)) throw new DuplicateKeyError(this.declaration.name, key, holder)
      }
    }
  }
}

/** A key's values in a record as one map key, or undefined when one of them is unset. */
function valueOf (key: readonly string[], record: Readonly<Record<string, unknown>>): string | undefined {
  const values: unknown[] = []
  for (const field of key) {
    const value = record[field]
    if (value === undefined || value === null) return undefined
    values.push(typeof value === 'bigint' ? String(value) : value)
  }
  return JSON.stringify(values)
}
