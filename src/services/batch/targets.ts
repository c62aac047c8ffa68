import type { ServedCollection } from '../../data/collection.js'
import type { RecordStores } from '../../domain/index.js'
import { CollectionWrites } from '../../graphql/writes.js'
import type { DirectoryLink } from '../types.js'

/** A record collection a batch may address. */
export interface Target {
  name: string
  /** Its records' path without a version (`/students`, `/addresses`, `/books`; '' for students at the root). */
  path: string
  /** The only version a batch may name it in (students: 2, their v1 being the spec's envelope); undefined: any or none. */
  version?: number
  collection: ServedCollection
  /** Its ids and its not-found answer, as GraphQL's writes read and word them. */
  ids: CollectionWrites
}

/** Where a request of a batch points: its collection, the collection's URL as sent, and the id's segment if any. */
export interface Resolved {
  target: Target
  /** The collection's URL as the request wrote it (`/v2/students`): what Location headers start with. */
  base: string
  /** The record's id as written in the URL; absent for the collection itself. */
  segment?: string
}

const VERSIONED = /^\/v([1-9][0-9]{0,2})(?=\/|$)/

/**
 * The collections a batch serves: every record collection of the enabled
 * services that the stores keep (students v2, addresses, declared ones),
 * where the directory says they are. Longest paths first, so `/books/7`
 * never reaches students mounted at the root.
 */
export function batchTargets (collections: readonly ServedCollection[], stores: RecordStores, links: readonly DirectoryLink[]): Target[] {
  const targets: Target[] = []
  for (const collection of collections) {
    const store = stores.collections.get(collection.name)
    const href = links.find((l) => l.rel === collection.name)?.href
    if (store === undefined || href === undefined) continue
    const path = href === '/' ? '' : href.replace(/\/$/, '')
    // Students' v1 is the spec's envelope, not the record representation a batch answers in.
    targets.push({ name: collection.name, path, version: collection.name === 'students' ? 2 : undefined, collection, ids: new CollectionWrites(collection, store) })
  }
  return targets.sort((a, b) => b.path.length - a.path.length)
}

/** The target of a request's URL, or why there is none (a sentence for BATCH_REQUEST_INVALID). */
export function resolveUrl (url: string, targets: readonly Target[]): Resolved | string {
  if (!url.startsWith('/')) return `url must be a path starting with "/" (such as /books or /books/7), not ${JSON.stringify(url.slice(0, 60))}`
  if (/[?#]/.test(url)) return 'url must name a collection or one record: query strings (lists) are not part of a batch'
  const versioned = VERSIONED.exec(url)
  const version = versioned === null ? undefined : Number(versioned[1])
  const rest = versioned === null ? url : url.slice(versioned[0].length)
  const path = rest.length > 1 && rest.endsWith('/') ? rest.slice(0, -1) : rest
  for (const target of targets) {
    let segment: string | undefined
    if (path === target.path || (target.path === '' && path === '/')) segment = undefined
    else if (path.startsWith(`${target.path}/`) && !path.slice(target.path.length + 1).includes('/')) segment = path.slice(target.path.length + 1)
    else continue
    if (target.version !== undefined && version !== target.version) {
      return `${target.name} are served in a batch in version ${target.version} only: use /v${target.version}${target.path}`
    }
    const base = `${versioned?.[0] ?? ''}${target.path}`
    if (segment === undefined) return { target, base }
    try {
      return { target, base, segment: decodeURIComponent(segment) }
    } catch {
      return `url has a malformed percent-encoding: ${JSON.stringify(url.slice(0, 60))}`
    }
  }
  return `url names no record collection of this server: ${JSON.stringify(url.slice(0, 60))} (the collections: ${targets.map((t) => `/${t.version === undefined ? '' : `v${t.version}`}${t.path}`.replace('//', '/')).join(', ')})`
}
