import type { FastifyReply } from 'fastify'
import { LRUCache } from 'lru-cache'
import { JSON_TYPE } from '../versioning.js'
import type { Revisioned } from './kept-list.js'
import type { ListRequest } from './parse.js'
import { pageHeaders, readPage, type Collection, type Page } from './respond.js'

/** Characters of page answers kept per store, all its pages together; the least recently used go first. */
export const PAGES_KEPT_CHARS = 4 * 1024 * 1024

interface KeptPage {
  /** The store's revision the page was read at. */
  revision: number
  next?: string
  total?: number
  body: string
}

/** Per store (its revision object): pages by request target (path and query string as sent). */
const kept = new WeakMap<object, LRUCache<string, KeptPage>>()

/**
 * A JSON page of a revisioned store (see ./kept-list.ts), read and serialised
 * once per store revision and request target. A page is a function of the
 * target (which carries filters, sort, cursor, limit and count) and of the
 * records, so while the revision stands the kept body and its Link and
 * X-Total-Count are the answer. `body` makes the page's representation; the
 * route's own serializer writes it, as it would have.
 */
export async function sendKeptPage<R, F extends string> (
  reply: FastifyReply,
  collection: Collection<R, F> & { store: Revisioned },
  list: ListRequest<F>,
  target: string,
  body: (page: Page<R>) => unknown
): Promise<FastifyReply> {
  const revision = collection.store.revision
  const at = revision.current
  const pages = kept.get(revision) ?? keptPagesOf(revision)
  const hit = pages.get(target)
  const page = hit?.revision === at ? hit : await readAndKeep()
  pageHeaders(reply, page)
  // What Fastify gives a body it serialises: a string needs the type said (it would be text/plain).
  if (reply.getHeader('content-type') === undefined) reply.type(JSON_TYPE)
  return reply.send(page.body)

  async function readAndKeep (): Promise<KeptPage> {
    const read = await readPage(collection, list)
    const text = reply.serialize(body(read)) // the route's schema serializer: a string
    const fresh: KeptPage = { revision: at, next: read.next, total: read.total, body: typeof text === 'string' ? text : Buffer.from(text as Buffer).toString('utf8') }
    // A write while the page was read may or may not be in it: such a page is sent, never kept.
    if (revision.current === at && fresh.body.length <= PAGES_KEPT_CHARS / 4) pages.set(target, fresh)
    else pages.delete(target)
    return fresh
  }
}

function keptPagesOf (revision: object): LRUCache<string, KeptPage> {
  const pages = new LRUCache<string, KeptPage>({ maxSize: PAGES_KEPT_CHARS, sizeCalculation: (p, key) => p.body.length + key.length })
  kept.set(revision, pages)
  return pages
}
