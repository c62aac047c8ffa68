import { positionOf, type QueryableStore, type RecordQuery } from '../domain/index.js'
import { encodeCursor } from './cursor.js'
import type { ListRequest } from './parse.js'

/** A collection as its list is read: the store, and the path its next links start with. */
export interface ListSource<R, F extends string> {
  store: QueryableStore<R, F>
  path: string
}

export interface Page<R> {
  items: R[]
  /** Relative link to the next page; absent on the last page and without paging. */
  next?: string
  /** Records matching the filters, when the client asked (`count=true`). */
  total?: number
}

/** The store's query for a list request, reading at most `limit` records. */
export function storeQuery<F extends string> (list: ListRequest<F>, limit: number | undefined): RecordQuery<F> {
  return { ...list.filter, sort: list.sort, after: list.after, limit }
}

/**
 * Reads one page. One record more than asked tells whether a next page
 * exists without a second query; the next link carries every parameter the
 * client sent (filters, sort, q, count) and the cursor after the page's last record.
 */
export async function readPage<R, F extends string> (collection: ListSource<R, F>, list: ListRequest<F>): Promise<Page<R>> {
  const limit = list.pageSize
  const [rows, total] = await Promise.all([
    collection.store.query(storeQuery(list, limit === undefined ? undefined : limit + 1)),
    list.count ? collection.store.count(list.filter) : undefined
  ])
  if (limit === undefined || rows.length <= limit) return { items: rows, total }
  const items = rows.slice(0, limit)
  const cursor = encodeCursor(list.sort, positionOf(items[limit - 1], list.sort))
  return { items, next: nextLink(collection.path, limit, cursor, list.carried), total }
}

export function nextLink (path: string, limit: number, cursor: string, carried: ReadonlyArray<[string, string]>): string {
  let link = `${path}?limit=${limit}&cursor=${cursor}`
  for (const [name, value] of carried) link += `&${encodeURIComponent(name)}=${encodeURIComponent(value)}`
  return link
}

/** Whole lists at least this long are streamed: one string for them would hold the event loop and the memory. */
export const STREAM_FROM = 1000

/** Every record, in id order. */
export const EVERYTHING: RecordQuery<never> = { where: [], sort: [] }

/** Whether a whole list is long enough to be streamed. */
export async function streamsWhole<R, F extends string> (store: QueryableStore<R, F>): Promise<boolean> {
  return await store.count(EVERYTHING) >= STREAM_FROM
}
