/** How many numbers either side of the page shown the pager offers before it elides. */
const AROUND = 2

/**
 * The page numbers to show (indices from 0), with `gap` where numbers are
 * left out: the first, the last when it is reachable, and those around the
 * page shown, among the reachable ones.
 */
export function pageButtons (current: number, reachable: readonly number[]): Array<number | 'gap'> {
  const last = Math.max(...reachable, current)
  const shown = reachable.filter((index) => index === 0 || index === last || Math.abs(index - current) <= AROUND).sort((a, b) => a - b)
  const out: Array<number | 'gap'> = []
  for (const index of shown) {
    const before = out[out.length - 1]
    if (typeof before === 'number' && index > before + 1) out.push('gap')
    out.push(index)
  }
  return out
}
