import { onFirstUse } from '../lib/first-use.js'
import { CASE_FOLDING } from './case-folding-table.js'

/**
 * The one case-insensitive comparison rule of `contains` and the search, the
 * same on every store because it is computed here, in TypeScript, and nowhere
 * else: the memory store folds records as it reads them, the SQL stores keep
 * a folded copy of every text field (written by the store with each record)
 * and compare it with the folded needle.
 *
 * The rule is Unicode's canonical caseless matching (Unicode 17 §3.13, D145)
 * with full default case folding: NFD, then every character replaced by its
 * CaseFolding.txt mapping of status C or F (ß → ss, ẞ → ss, ς → σ, ﬁ → fi,
 * İ → i + U+0307, K (Kelvin) → k; dotless ı stays ı, the Turkic T mappings
 * are not applied), then NFC. Normalising makes canonically equivalent
 * spellings match ("é" precomposed and "e" + U+0301, "Ά" and "Α" + U+0301)
 * and keeps a needle from matching half a composed character ("e" is not
 * found in "é"). NFKC is not applied: it would also equate "①" with "1",
 * "²" with "2" and full-width with ASCII letters, which is not a difference
 * of case. JavaScript's toLowerCase is no case folding: it keeps ß and ﬁ,
 * maps ς and σ apart and lower-cases Cherokee the other way.
 */
export function fold (text: string): string {
  // ASCII text is its own NFD and NFC, and its only foldings are A–Z → a–z.
  if (isAscii(text)) return text.toLowerCase()
  // Lower-casing first leaves few characters whose folding differs (ß, ς, ﬁ, Cherokee): one pass of the
  // engine's own lower-casing and a rare replacement is faster than a lookup per character.
  return text.normalize('NFD').toLowerCase().replace(foldTables().unlikeLowercase, foldChar).normalize('NFC')
}

/** Folds one character (its CaseFolding.txt C or F mapping, or itself). */
export function foldChar (c: string): string {
  return foldTables().folds.get(c) ?? c
}

/** A record's text field, folded; a store may keep what it folded. */
export type FoldedField = (record: object, field: string) => string

const ASCII = /^[\x00-\x7F]*$/ // eslint-disable-line no-control-regex

/** Whether `text` is ASCII only: then folding it is toLowerCase(). */
export function isAscii (text: string): boolean {
  return ASCII.test(text)
}

interface FoldTables {
  /** Each character's CaseFolding.txt mapping. */
  readonly folds: ReadonlyMap<string, string>
  /**
   * The characters that are their own lower case but fold to something else.
   * Lower-casing never changes how a text folds (Unicode keeps
   * fold(lower(x)) = fold(x)), so after it only these are left to fold.
   */
  readonly unlikeLowercase: RegExp
}

/** Made with the first text that is not ASCII: a start (and ASCII data) never needs the ≈ 1 500 mappings. */
const foldTables = onFirstUse((): FoldTables => {
  const folds = new Map(CASE_FOLDING.map(([from, ...to]) => [String.fromCodePoint(from as number), String.fromCodePoint(...to)]))
  const unlikeLowercase = new RegExp(`[${[...folds.keys()].filter((c) => c.toLowerCase() === c).map((c) => `\\u{${(c.codePointAt(0) as number).toString(16)}}`).join('')}]`, 'gu')
  return { folds, unlikeLowercase }
})
