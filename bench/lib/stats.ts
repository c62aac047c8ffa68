/** Order statistics of a run's figures. */

export const median = (values: number[]): number => {
  const s = values.filter(Number.isFinite).sort((a, b) => a - b)
  if (s.length === 0) return Number.NaN
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

export const percentile = (values: number[], p: number): number => {
  const s = [...values].sort((a, b) => a - b)
  if (s.length === 0) return Number.NaN
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!
}
