import { createContext } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import type { Api } from './api.js'

/**
 * What the record rules (docs/rules.md) let this page's caller attempt on
 * the collection it shows: GET /collections answers, per caller, the
 * operations of a collection with rules that its token may attempt; the
 * view hides New, Edit and Delete when the answer leaves them out. A
 * collection without rules (or a server that does not say) keeps every
 * action: the server still decides each write, and its refusal is shown.
 */

/** The server's listing of collections (src/services/collections/listing.ts). */
const COLLECTIONS_PATH = '/collections'

/** The operations the caller may attempt; undefined: every one (no rules, or not known). */
export type Attemptable = ReadonlySet<string> | undefined

/** The attemptable operations of the collection a view shows, for the rows and forms inside it. */
export const AttemptableContext = createContext<Attemptable>(undefined)

export function may (attemptable: Attemptable, operation: 'create' | 'update' | 'delete'): boolean {
  return attemptable === undefined || attemptable.has(operation)
}

/** The operations the caller may attempt on `collection`, read again when the token changes (`epoch`). */
export function useAttemptable (api: Api, collection: string, epoch: number): Attemptable {
  const [attemptable, setAttemptable] = useState<Attemptable>(undefined)
  useEffect(() => {
    let current = true
    void api.request('GET', COLLECTIONS_PATH, { accept: 'application/json' }).then((res) => {
      if (!current) return
      const items = (res.body as { items?: unknown } | undefined)?.items
      const entry = Array.isArray(items) ? (items as Array<{ name?: unknown, operations?: unknown }>).find((item) => item.name === collection) : undefined
      setAttemptable(res.ok && Array.isArray(entry?.operations) ? new Set(entry.operations as string[]) : undefined)
    })
    return () => { current = false }
  }, [api, collection, epoch])
  return attemptable
}
