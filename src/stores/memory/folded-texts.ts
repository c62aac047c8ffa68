import { fold, isAscii, type FoldedField } from '../../domain/index.js'

/** How many folded texts a store keeps at most; past that it starts afresh. */
const KEPT_MAX = 50_000

/**
 * Folds records' text fields for a search or `contains` (see
 * src/domain/case-fold.ts). ASCII text folds faster than any lookup; other
 * text (its normalisation costs ≈ 0.6 µs) is kept by value, so a name that
 * many records share is folded once. Bounded: a store keeps at most KEPT_MAX.
 */
export class FoldedTexts {
  readonly #kept = new Map<string, string>()

  readonly of: FoldedField = (record, field) => {
    const text = (record as Record<string, string>)[field] as string
    if (isAscii(text)) return text.toLowerCase()
    let folded = this.#kept.get(text)
    if (folded === undefined) {
      if (this.#kept.size >= KEPT_MAX) this.#kept.clear()
      folded = fold(text)
      this.#kept.set(text, folded)
    }
    return folded
  }
}
