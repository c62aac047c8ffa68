import { closestMatch } from 'leven'

/**
 * The candidate a mistyped word most likely meant (`prot` → `port`), or
 * undefined when none is close: at most a third of the word may differ (two
 * edits at least, so a swap of two letters is found), so `--x` suggests nothing
 * rather than something arbitrary.
 */
export function closestWord (word: string, candidates: readonly string[]): string | undefined {
  return closestMatch(word, candidates, { maxDistance: Math.max(2, Math.ceil(word.length / 3)) })
}
