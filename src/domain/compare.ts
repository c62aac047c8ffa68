import type { FieldValue } from './values.js'

/**
 * Compares two strings by Unicode code point, as SQLite's BINARY collation
 * and PostgreSQL's "C" collation do on UTF-8. JavaScript's `<` compares UTF-16
 * code units, which orders U+E000…U+FFFF after astral characters.
 */
export function compareText (a: string, b: string): number {
  if (a === b) return 0
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i)
    let y = b.charCodeAt(i)
    if (x === y) continue
    // Surrogates (D800–DFFF) stand for code points above FFFF: move them past E000–FFFF.
    if (x >= 0xD800 && y >= 0xD800) {
      x = x >= 0xE000 ? x - 0x800 : x + 0x2000
      y = y >= 0xE000 ? y - 0x800 : y + 0x2000
    }
    return x < y ? -1 : 1
  }
  return a.length - b.length
}

export function compareValues (a: FieldValue, b: FieldValue): number {
  if (typeof a === 'string' && typeof b === 'string') return compareText(a, b)
  if (typeof a === 'boolean' || typeof b === 'boolean') return Number(a) - Number(b)
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * Orders two sort key values where either may be unset (an optional field):
 * an unset value comes before every value, so an ascending order puts records
 * without the field first and a descending one last, on every store.
 */
export function compareKeys (a: FieldValue | null | undefined, b: FieldValue | null | undefined): number {
  if (a === undefined || a === null) return b === undefined || b === null ? 0 : -1
  if (b === undefined || b === null) return 1
  return compareValues(a, b)
}
