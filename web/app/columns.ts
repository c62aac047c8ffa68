/**
 * Which columns a collection's table shows: kept per collection in this
 * browser (localStorage), as the names of the hidden ones, so a column the
 * declaration adds later shows by default.
 */
const KEY_PREFIX = 'rqs.columns.'

export function hiddenColumns (collection: string): ReadonlySet<string> {
  try {
    const stored = JSON.parse(localStorage.getItem(KEY_PREFIX + collection) ?? '[]') as unknown
    return new Set(Array.isArray(stored) ? stored.filter((key): key is string => typeof key === 'string') : [])
  } catch {
    // Storage blocked or unreadable: every column.
    return new Set()
  }
}

export function rememberHiddenColumns (collection: string, hidden: ReadonlySet<string>): void {
  try {
    if (hidden.size === 0) localStorage.removeItem(KEY_PREFIX + collection)
    else localStorage.setItem(KEY_PREFIX + collection, JSON.stringify([...hidden]))
  } catch { /* storage blocked: the choice lasts for this page */ }
}
