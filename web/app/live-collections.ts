import { useEffect, useState } from 'preact/hooks'
import type { AppCollection } from '../../src/services/app/page-config.js'

/**
 * The declared collections as the server serves them now: GET /collections
 * read at once and then every few seconds (and when `refresh` changes), so
 * a collection created or changed while the page is open gets its view
 * without a reload. A server without the listing (404) or one that refuses
 * the page's token is asked once only, and a server whose page names no
 * listing (no collections service) never: the page then keeps what its own
 * configuration says (undefined).
 */

/** How often the listing is read again. */
const POLL_MS = 3_000

/** An entry of GET /collections, as far as the page reads it. */
interface ListedCollection {
  name: string
  href: string
  declared: boolean
  description?: string
  label?: string
  schema: { properties?: Record<string, unknown>, required?: string[] }
  sort?: string[]
}

export function useLiveCollections (listing: string | undefined, token: () => string | undefined, refresh: number): AppCollection[] | undefined {
  const [collections, setCollections] = useState<AppCollection[] | undefined>(undefined)
  const [served, setServed] = useState(listing !== undefined)
  useEffect(() => {
    if (!served || listing === undefined) return
    let stopped = false
    let last = ''
    const read = async (): Promise<void> => {
      const headers = new Headers({ accept: 'application/json' })
      const value = token()
      if (value !== undefined) headers.set('authorization', `Bearer ${value}`)
      let res: Response
      try { res = await fetch(listing, { headers, cache: 'no-store' }) } catch { return }
      if (!res.ok) { setServed(false); stopped = true; return }
      const text = await res.text()
      // The same listing as before changes nothing: no new render.
      if (stopped || text === last) return
      last = text
      const items = (JSON.parse(text) as { items: ListedCollection[] }).items
      setCollections(items.filter((c) => c.declared).map((c) => ({
        name: c.name,
        url: c.href,
        ...(c.description === undefined ? {} : { description: c.description }),
        ...(c.label === undefined ? {} : { label: c.label }),
        schema: {
          properties: Object.fromEntries(Object.entries(c.schema.properties ?? {}).filter(([key]) => key !== 'id')) as AppCollection['schema']['properties'],
          required: (c.schema.required ?? []).filter((key) => key !== 'id')
        },
        ...(c.sort === undefined ? {} : { sort: c.sort })
      })))
    }
    void read()
    const timer = setInterval(() => { if (!stopped) void read() }, POLL_MS)
    return () => { stopped = true; clearInterval(timer) }
  }, [served, refresh])
  return collections
}
