import { fold, type FoldedField } from '../../domain/index.js'

/**
 * The folded text fields of records (see src/domain/case-fold.ts), computed the first
 * time a search or `contains` reads a record and kept with it: a record is
 * never changed in place (a write stores a new object), so what was folded
 * stays right, and it goes when the record does (a WeakMap).
 */
export class FoldedTexts {
  readonly #kept = new WeakMap<object, Record<string, string>>()
  /** @param fields the text fields of the records. */
  constructor (private readonly fields: readonly string[]) {}

  readonly of: FoldedField = (record, field) => {
    let folded = this.#kept.get(record)
    if (folded === undefined) {
      folded = {}
      for (const f of this.fields) folded[f] = fold((record as Record<string, string>)[f] as string)
      this.#kept.set(record, folded)
    }
    return folded[field] as string
  }
}
